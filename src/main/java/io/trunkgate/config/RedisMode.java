package io.trunkgate.config;

/** How the gateway reaches Redis. */
public enum RedisMode {
    /** The gateway starts and owns a private redis-server child process. */
    EMBEDDED,
    STANDALONE,
    SENTINEL,
    CLUSTER
}

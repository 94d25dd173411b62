package io.trunkgate.config;

/** How the gateway reaches Redis. */
public enum RedisMode {
    /** The gateway starts and owns a private redis-server child process. */
    EMBEDDED,
    STANDALONE,
    SENTINEL,
    CLUSTER;

    /** Whether every key is on one node, so one script may touch a peer's keys and a carrier's together. */
    public boolean oneNode() {
        return this != CLUSTER;
    }
}

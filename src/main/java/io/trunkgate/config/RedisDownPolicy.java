package io.trunkgate.config;

/** What admission does while Redis is unreachable. */
public enum RedisDownPolicy {
    /** Fail open: admit every call. */
    ALLOW,
    /** Fail closed: reject every call. */
    REJECT,
    /** Each instance enforces its configured share of every limit in memory. */
    LOCAL
}

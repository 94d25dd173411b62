package io.trunkgate.pace;

import io.trunkgate.testing.EmbeddedRedisBackend;
import io.trunkgate.testing.RedisBackend;

class EmbeddedPacingTest extends RedisPacingConformance {
    @Override
    protected RedisBackend backend() {
        return EmbeddedRedisBackend.shared();
    }
}

package io.trunkgate.pace;

import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.RedisBackend;

class StandalonePacingTest extends RedisPacingConformance {
    @Override
    protected RedisBackend backend() {
        return StandaloneRedis.shared();
    }
}

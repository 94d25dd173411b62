package io.trunkgate.pace;

import io.trunkgate.testing.RedisClusterHarness;
import io.trunkgate.testing.RedisBackend;

class ClusterPacingTest extends RedisPacingConformance {
    @Override
    protected RedisBackend backend() {
        return RedisClusterHarness.shared();
    }
}

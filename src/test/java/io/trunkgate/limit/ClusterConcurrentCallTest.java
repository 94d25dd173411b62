package io.trunkgate.limit;

import io.trunkgate.testing.RedisClusterHarness;
import io.trunkgate.testing.RedisBackend;

class ClusterConcurrentCallTest extends ConcurrentCallConformance {
    @Override
    protected RedisBackend backend() {
        return RedisClusterHarness.shared();
    }
}

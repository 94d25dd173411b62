package io.trunkgate.limit;

import io.trunkgate.testing.RedisClusterHarness;
import io.trunkgate.testing.RedisBackend;

class ClusterAdmissionTest extends RedisAdmissionConformance {
    @Override
    protected RedisBackend backend() {
        return RedisClusterHarness.shared();
    }

    @Override
    protected boolean oneNode() {
        return false;
    }
}

package io.trunkgate.limit;

import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.RedisBackend;

class StandaloneAdmissionTest extends RedisAdmissionConformance {
    @Override
    protected RedisBackend backend() {
        return StandaloneRedis.shared();
    }
}

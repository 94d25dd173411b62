package io.trunkgate.limit;

import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.RedisBackend;

class StandaloneAdmissionTest extends AdmissionConformance {
    @Override
    protected RedisBackend backend() {
        return StandaloneRedis.shared();
    }
}

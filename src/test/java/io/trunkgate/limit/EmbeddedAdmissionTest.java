package io.trunkgate.limit;

import io.trunkgate.testing.EmbeddedRedisBackend;
import io.trunkgate.testing.RedisBackend;

class EmbeddedAdmissionTest extends AdmissionConformance {
    @Override
    protected RedisBackend backend() {
        return EmbeddedRedisBackend.shared();
    }
}

package io.trunkgate.limit;

import io.trunkgate.testing.EmbeddedRedisBackend;
import io.trunkgate.testing.RedisBackend;

class EmbeddedAdmissionTest extends RedisAdmissionConformance {
    @Override
    protected RedisBackend backend() {
        return EmbeddedRedisBackend.shared();
    }
}

package io.trunkgate.limit;

import io.trunkgate.testing.EmbeddedRedisBackend;
import io.trunkgate.testing.RedisBackend;

class EmbeddedConcurrentCallTest extends ConcurrentCallConformance {
    @Override
    protected RedisBackend backend() {
        return EmbeddedRedisBackend.shared();
    }
}

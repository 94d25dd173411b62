package io.trunkgate.limit;

import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.RedisBackend;

class StandaloneConcurrentCallTest extends ConcurrentCallConformance {
    @Override
    protected RedisBackend backend() {
        return StandaloneRedis.shared();
    }
}

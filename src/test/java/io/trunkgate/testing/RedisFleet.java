package io.trunkgate.testing;

import java.util.ArrayList;
import java.util.List;
import org.redisson.api.RedissonClient;

/** The independent Redis clients of a fleet of gateways on one backend, as the conformance suites use them. */
public final class RedisFleet implements AutoCloseable {

    private final List<RedissonClient> clients = new ArrayList<>();

    public RedisFleet(RedisBackend backend, int gateways) {
        for (int i = 0; i < gateways; i++) {
            clients.add(backend.newClient());
        }
    }

    /** The client of gateway {@code gateway}. */
    public RedissonClient client(int gateway) {
        return clients.get(gateway);
    }

    @Override
    public void close() {
        clients.forEach(RedissonClient::shutdown);
    }
}

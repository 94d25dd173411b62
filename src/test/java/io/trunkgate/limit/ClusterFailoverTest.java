package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.RedisClusterHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A master of a real 3-master cluster with replicas is killed under load; admission and pacing carry on. */
class ClusterFailoverTest {

    @Test
    void admissionAndPacingContinueAfterAMasterFailsOver() throws Exception {
        RedisClusterHarness cluster = RedisClusterHarness.start();
        RedissonClient client = cluster.newClient();
        try {
            AdmissionLimiter limiter = new RedisAdmissionLimiter(client, "tg-failover");
            SlotReserver reserver = new RedisSlotReserver(client, "tg-failover");
            List<Scope> peers = new ArrayList<>();
            List<CarrierConfig> carriers = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                peers.add(Scope.peer("peer-" + i, List.of(Limit.exact(Duration.ofSeconds(1), 100_000))));
                carriers.add(Carriers.carrier(1000, 1, Duration.ofSeconds(1)));
            }
            assertTrue(allSucceed(limiter, reserver, peers, carriers), "all peers and carriers work before");

            RedisServerProcess master = cluster.nodes().get(0);
            master.kill();
            long killed = System.nanoTime();
            boolean recovered = Await.until(Duration.ofSeconds(20), () -> allSucceed(limiter, reserver, peers, carriers),
                    ok -> ok);
            long recoveredMs = (System.nanoTime() - killed) / 1_000_000;
            System.out.println("cluster failover: every peer and carrier served again " + recoveredMs
                    + " ms after the master was killed");
            assertTrue(recovered, "admission and pacing did not recover within 20 s of the failover");
        } finally {
            client.shutdown();
            cluster.close();
        }
    }

    /** One admission per peer and one reservation per carrier; whether every one of them got an answer. */
    private static boolean allSucceed(AdmissionLimiter limiter, SlotReserver reserver, List<Scope> peers,
                                      List<CarrierConfig> carriers) {
        try {
            for (int i = 0; i < peers.size(); i++) {
                if (!limiter.admit(AdmissionRequest.of(java.util.UUID.randomUUID().toString(), peers.get(i)))
                        .toCompletableFuture().get(2, TimeUnit.SECONDS).admitted()) {
                    return false;
                }
                if (!reserver.reserve(carriers.get(i), Duration.ofSeconds(1)).toCompletableFuture()
                        .get(2, TimeUnit.SECONDS).reserved()) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}

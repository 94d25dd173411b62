package io.trunkgate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.internal.BreakerAdmissionLimiter;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.pace.PacerUnavailableException;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.pace.internal.BreakerSlotReserver;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.RedisAdmin;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * A reply that arrives after the 50 ms budget: Redis ran the script, the gateway had already gone by its
 * Redis-down policy. A real redis-server is held up with CLIENT PAUSE so that its reply comes late.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LateReplyTest {

    private final GatewayThreads threads = new GatewayThreads();
    private StandaloneRedis redis;
    private RedissonClient client;
    private RedisAdmin admin;

    @BeforeAll
    void start() {
        redis = StandaloneRedis.startPrivate();
        client = redis.newClient();
        admin = new RedisAdmin(redis.server().port());
    }

    @AfterAll
    void stop() {
        client.shutdown();
        admin.close();
        redis.server().close();
        threads.close();
    }

    @Test
    void anAdmissionRepliedAfterTheTimeoutOfACallRefusedMeanwhileIsRevoked() throws Exception {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, "tg-test");
        BreakerAdmissionLimiter guarded = new BreakerAdmissionLimiter(limiter,
                RedisBreaker.withTimeout(Duration.ofMillis(50), threads.redisTimeouts(), threads.redisResults()), limiter);
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(10), 2),
                Limit.bucketed(Duration.ofSeconds(30), 2, Duration.ofSeconds(1))));
        limiter.admit(AdmissionRequest.of("load-the-script", Scope.peer("other", peer.limits())))
                .toCompletableFuture().join();

        pauseRedis(300);
        CompletionException late = assertThrowsCompletion(() -> guarded.admit(AdmissionRequest.of("late", peer)));
        LimiterUnavailableException unavailable = assertInstanceOf(LimiterUnavailableException.class, late.getCause());
        // the gateway answered 503 (reject): the admission Redis made meanwhile must not count
        unavailable.refusedWithoutDecision().toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertEquals(Outcome.ADMITTED, admit(limiter, "late", peer), "the refused call is new when it comes again");
        assertEquals(Outcome.ADMITTED, admit(limiter, "second", peer));
        assertEquals(Outcome.LIMITED, admit(limiter, "third", peer), "the two calls admitted use both units");
    }

    @Test
    void aSlotReservedAfterTheTimeoutIsGivenBack() throws Exception {
        CarrierConfig carrier = Carriers.carrier(2, 1, Duration.ofSeconds(5));
        RedisSlotReserver slots = new RedisSlotReserver(client, "tg-test");
        Semaphore givenBack = new Semaphore(0);
        SlotReserver watched = new SlotReserver() {
            @Override
            public CompletionStage<Reservation> reserve(CarrierConfig c, Duration maxWait) {
                return slots.reserve(c, maxWait);
            }

            @Override
            public CompletionStage<Void> giveBack(CarrierConfig c, Reservation reservation) {
                return slots.giveBack(c, reservation).whenComplete((v, e) -> givenBack.release());
            }
        };
        BreakerSlotReserver guarded = new BreakerSlotReserver(watched, RedisBreaker.withTimeout(Duration.ofMillis(50), threads.redisTimeouts(), threads.redisResults()));
        Reservation first = slots.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();

        pauseRedis(300);
        CompletionException late = assertThrowsCompletion(() -> guarded.reserve(carrier, carrier.maxWait()));
        assertInstanceOf(PacerUnavailableException.class, late.getCause());
        assertTrue(givenBack.tryAcquire(5, TimeUnit.SECONDS), "the late slot was given back");

        Reservation next = slots.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
        assertEquals(Math.max(next.serverTimeMicros(), first.slotMicros() + 500_000), next.slotMicros(),
                "the slot after the first call's, not one after the unused one");
    }

    @Test
    void aSlotReservedWithAnAdmissionRepliedAfterTheTimeoutIsGivenBack() throws Exception {
        CarrierConfig carrier = Carriers.carrier(2, 1, Duration.ofSeconds(5));
        RedisSlotReserver slots = new RedisSlotReserver(client, "tg-test");
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, "tg-test");
        BreakerAdmissionLimiter guarded = new BreakerAdmissionLimiter(limiter,
                RedisBreaker.withTimeout(Duration.ofMillis(50), threads.redisTimeouts(), threads.redisResults()), limiter);
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(10), 100)));
        Semaphore givenBack = new Semaphore(0);
        SlotRequest asked = slots.request(carrier, new SlotReserver() {
            @Override
            public CompletionStage<Reservation> reserve(CarrierConfig c, Duration maxWait) {
                throw new AssertionError("the slot comes with the admission");
            }

            @Override
            public CompletionStage<Void> giveBack(CarrierConfig c, Reservation reservation) {
                return slots.giveBack(c, reservation).whenComplete((v, e) -> givenBack.release());
            }
        });
        Reservation first = slots.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
        limiter.admit(AdmissionRequest.of("load-the-script", peer).withFirstSlot(asked)).toCompletableFuture().join();

        pauseRedis(300);
        CompletionException late = assertThrowsCompletion(
                () -> guarded.admit(AdmissionRequest.of("late", peer).withFirstSlot(asked)));
        assertInstanceOf(LimiterUnavailableException.class, late.getCause());
        assertTrue(givenBack.tryAcquire(5, TimeUnit.SECONDS), "the slot that came too late was given back");

        Reservation next = slots.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
        assertEquals(Math.max(next.serverTimeMicros(), first.slotMicros() + 1_000_000), next.slotMicros(),
                "the slot after load-the-script's, not one after the unused one");
    }

    private static Outcome admit(RedisAdmissionLimiter limiter, String callId, Scope peer) {
        return limiter.admit(AdmissionRequest.of(callId, peer)).toCompletableFuture().join().outcome();
    }

    private static CompletionException assertThrowsCompletion(java.util.function.Supplier<CompletionStage<?>> call) {
        try {
            call.get().toCompletableFuture().join();
        } catch (CompletionException e) {
            return e;
        }
        throw new AssertionError("the call did not fail");
    }

    /** Holds every client command for {@code ms}: the next script runs, and replies, only after that. */
    private void pauseRedis(long ms) {
        assertEquals("OK", admin.call("CLIENT", "PAUSE", ms, "ALL"));
    }
}

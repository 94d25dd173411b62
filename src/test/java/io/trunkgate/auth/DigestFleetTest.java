package io.trunkgate.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.auth.internal.Digests;
import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.RedisMode;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.redis.RedisClients;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.RedisBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Digest authentication of two (or three) gateways on one real redis-server, each with its own Redis client and a
 * clock of its own that the test moves: a nonce one issues is good at the other, an answer is used once in the
 * whole fleet, and with Redis killed each gateway still refuses the replays it saw itself.
 */
class DigestFleetTest {

    private static final Duration LIFETIME = Duration.ofSeconds(30);
    private static final PeerCredentials PBX = PeerCredentials.withPassword("pbx-1", "fleet.test", "secret",
            List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5));
    private static final Pattern NONCE = Pattern.compile("nonce=\"([^\"]+)\"");

    private RedisServerProcess server;
    private ScheduledExecutorService timeouts;
    private ExecutorService results;
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<DigestAuthentication> gateways = new ArrayList<>();

    @BeforeEach
    void start() {
        server = RedisServerProcess.start(0, List.of());
        timeouts = Executors.newSingleThreadScheduledExecutor();
        results = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void stop() {
        gateways.forEach(DigestAuthentication::close);
        clients.forEach(RedissonClient::shutdown);
        timeouts.shutdownNow();
        results.shutdownNow();
        server.close();
    }

    /** A gateway of the fleet, its nonces timed by {@code time} (its key read again in 30 s: not within a test). */
    private DigestAuthentication gateway(ManualTime time) {
        return gateway(client(), time);
    }

    /** A Redis client of its own, as each gateway has (Redisson connects as it is made: Redis must be up). */
    private RedissonClient client() {
        RedissonClient client = RedisClients.connect(RedisBackend.settings(RedisMode.STANDALONE,
                List.of(server.address())).connection(), server.address());
        clients.add(client);
        return client;
    }

    private DigestAuthentication gateway(RedissonClient client, ManualTime time) {
        RedisBreaker breaker = RedisBreaker.withTimeout(Duration.ofMillis(250), timeouts, results);
        DigestAuthentication gateway = DigestAuthentication.open(client, "tg-fleet", breaker, time.clock(),
                timeouts);
        gateways.add(gateway);
        return gateway;
    }

    /**
     * Reads the fleet's key at {@code gateway} once Redis answers it again: after an outage its breaker lets a call
     * through a quarter of a second after the last failure.
     */
    private static void shareOnceRedisAnswers(DigestAuthentication gateway) {
        Await.atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                gateway.shareSecret().toCompletableFuture().get();
                return true;
            } catch (ExecutionException notYet) {
                return false;
            }
        });
    }

    private static String nonceOf(DigestAuthentication gateway) {
        Matcher m = NONCE.matcher(gateway.challenge(List.of(PBX), false).get(0));
        assertTrue(m.find());
        return m.group(1);
    }

    /** The credentials a caller sends for {@code nonce}, nonce-count {@code nc}, with the right password. */
    private static DigestResponse answer(String nonce, int nc) {
        String count = String.format("%08x", nc);
        String response = Digests.response(DigestAlgorithm.SHA_256, PBX.ha1().get(DigestAlgorithm.SHA_256), nonce,
                count, "c0ffee", "auth", "INVITE", "sip:+44@gw");
        return new DigestResponse(PBX.user(), PBX.realm(), Optional.of(nonce), Optional.of("sip:+44@gw"),
                Optional.of(response), Optional.of("SHA-256"), Optional.of("c0ffee"), Optional.of(count),
                Optional.of("auth"));
    }

    private static DigestCheck.Accepted accepted(DigestAuthentication at, DigestResponse answer) {
        return assertInstanceOf(DigestCheck.Accepted.class, at.check(answer, PBX, "INVITE", LIFETIME));
    }

    private static boolean firstUse(DigestAuthentication at, DigestCheck.Accepted accepted) throws Exception {
        return at.firstUse(accepted, LIFETIME).toCompletableFuture().get();
    }

    @Test
    void aNonceOfOneGatewayIsGoodAtTheOtherAndEachAnswerIsUsedOnceInTheFleet() throws Exception {
        DigestAuthentication a = gateway(new ManualTime());
        DigestAuthentication b = gateway(new ManualTime());
        a.shareSecret().toCompletableFuture().get();
        b.shareSecret().toCompletableFuture().get();
        assertTrue(a.secretShared() && b.secretShared());

        String nonce = nonceOf(a);
        DigestCheck.Accepted first = accepted(b, answer(nonce, 1));
        assertTrue(firstUse(a, first));
        assertFalse(firstUse(b, first), "the same nonce and nonce-count at the other gateway: a replay");
        assertFalse(firstUse(a, accepted(a, answer(nonce, 1))));
        assertTrue(firstUse(b, accepted(b, answer(nonce, 2))), "the next nonce-count is an answer of its own");
    }

    @Test
    void aNonceIsStaleOnceItsLifetimeHasPassedOnEitherSideOfAGatewaysClock() {
        ManualTime aTime = new ManualTime();
        ManualTime bTime = new ManualTime();
        DigestAuthentication a = gateway(aTime);
        DigestAuthentication b = gateway(bTime);
        a.shareSecret().toCompletableFuture().join();
        b.shareSecret().toCompletableFuture().join();
        aTime.advance(Duration.ofSeconds(20));
        String nonce = nonceOf(a);

        accepted(b, answer(nonce, 1)); // b's clock is 20 s behind: issued "in the future", within the lifetime
        bTime.advance(Duration.ofSeconds(50));
        accepted(b, answer(nonce, 1)); // 30 s after it was issued, by b's clock
        bTime.advance(Duration.ofMillis(1));
        assertInstanceOf(DigestCheck.Stale.class, b.check(answer(nonce, 1), PBX, "INVITE", LIFETIME));
        aTime.advance(Duration.ofSeconds(30));
        accepted(a, answer(nonce, 1));
        aTime.advance(Duration.ofMillis(1));
        assertInstanceOf(DigestCheck.Stale.class, a.check(answer(nonce, 1), PBX, "INVITE", LIFETIME));
    }

    @Test
    void aWrongResponseIsAWrongPasswordWhateverTheNonceAndAForgedNonceIsStale() {
        DigestAuthentication a = gateway(new ManualTime());
        String nonce = nonceOf(a);
        DigestResponse right = answer(nonce, 1);
        DigestResponse wrong = new DigestResponse(right.username(), right.realm(), right.nonce(), right.uri(),
                Optional.of("0".repeat(64)), right.algorithm(), right.cnonce(), right.nonceCount(), right.qop());
        assertInstanceOf(DigestCheck.WrongPassword.class, a.check(wrong, PBX, "INVITE", LIFETIME));
        String forged = (nonce.charAt(0) == 'A' ? "B" : "A") + nonce.substring(1);
        assertInstanceOf(DigestCheck.Stale.class, a.check(answer(forged, 1), PBX, "INVITE", LIFETIME),
                "a nonce altered: the password is right, the nonce is not the fleet's");
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        String respelt = nonce.substring(0, nonce.length() - 1)
                + alphabet.charAt(alphabet.indexOf(nonce.charAt(nonce.length() - 1)) ^ 1);
        assertInstanceOf(DigestCheck.Stale.class, a.check(answer(respelt, 1), PBX, "INVITE", LIFETIME),
                "the same bytes spelt otherwise (unused low bits of the last character): one nonce, one spelling");
        DigestResponse wrongForged = new DigestResponse(right.username(), right.realm(), Optional.of(forged),
                right.uri(), wrong.response(), right.algorithm(), right.cnonce(), right.nonceCount(), right.qop());
        assertInstanceOf(DigestCheck.WrongPassword.class, a.check(wrongForged, PBX, "INVITE", LIFETIME),
                "stale never tells a wrong password it was right");
    }

    @Test
    void aChallengeHasOneHeaderPerRealmAndAlgorithmEightAtMostAllWithOneNonce() {
        DigestAuthentication a = gateway(new ManualTime());
        List<PeerCredentials> realms = new ArrayList<>(List.of(PBX, PBX));
        for (int i = 0; i < 5; i++) {
            realms.add(PeerCredentials.withPassword("pbx", "realm-" + i, "x",
                    List.of(DigestAlgorithm.MD5, DigestAlgorithm.SHA_256)));
        }
        List<String> challenges = a.challenge(realms, true);
        assertEquals(8, challenges.size());
        assertEquals("Digest realm=\"fleet.test\", nonce=\"" + nonceIn(challenges.get(0)) + "\", algorithm=SHA-256,"
                + " qop=\"auth\", stale=true", challenges.get(0));
        assertTrue(challenges.get(1).startsWith("Digest realm=\"fleet.test\","));
        assertTrue(challenges.get(1).contains("algorithm=MD5"));
        assertTrue(challenges.get(7).startsWith("Digest realm=\"realm-2\","));
        assertTrue(challenges.stream().allMatch(c -> nonceIn(c).equals(nonceIn(challenges.get(0)))));
    }

    private static String nonceIn(String challenge) {
        Matcher m = NONCE.matcher(challenge);
        assertTrue(m.find());
        return m.group(1);
    }

    @Test
    void credentialsThatCannotBeCheckedAreMalformed() {
        DigestAuthentication a = gateway(new ManualTime());
        DigestResponse right = answer(nonceOf(a), 1);
        PeerCredentials md5Only = PeerCredentials.withPassword(PBX.user(), PBX.realm(), "secret",
                List.of(DigestAlgorithm.MD5));
        assertInstanceOf(DigestCheck.Malformed.class, a.check(right, md5Only, "INVITE", LIFETIME),
                "SHA-256 where only MD5 was offered");
        assertInstanceOf(DigestCheck.Malformed.class, a.check(new DigestResponse(right.username(), right.realm(),
                right.nonce(), right.uri(), right.response(), right.algorithm(), right.cnonce(), right.nonceCount(),
                Optional.empty()), PBX, "INVITE", LIFETIME), "no qop (RFC 2069)");
        assertInstanceOf(DigestCheck.Malformed.class, a.check(new DigestResponse(right.username(), right.realm(),
                right.nonce(), right.uri(), right.response(), right.algorithm(), right.cnonce(), Optional.of("1"),
                right.qop()), PBX, "INVITE", LIFETIME), "nc not 8 hex digits");
        assertInstanceOf(DigestCheck.Malformed.class, a.check(new DigestResponse(right.username(), right.realm(),
                Optional.empty(), right.uri(), right.response(), right.algorithm(), right.cnonce(), right.nonceCount(),
                right.qop()), PBX, "INVITE", LIFETIME), "no nonce");
    }

    @Test
    void whileRedisIsDownEachGatewayRefusesTheReplaysItSawItself() throws Exception {
        DigestAuthentication a = gateway(new ManualTime());
        DigestAuthentication b = gateway(new ManualTime());
        a.shareSecret().toCompletableFuture().get();
        b.shareSecret().toCompletableFuture().get();
        String nonce = nonceOf(a);
        server.kill();

        DigestCheck.Accepted first = accepted(a, answer(nonce, 1));
        assertTrue(firstUse(a, first), "nonces need no Redis: the answer is good, its use kept in a's memory");
        assertFalse(firstUse(a, first), "a replay at the same gateway is refused without Redis");
        assertTrue(firstUse(b, accepted(b, answer(nonce, 1))), "the other gateway did not see it: let through");

        server.restart();
        shareOnceRedisAnswers(a);
        shareOnceRedisAnswers(b);
        assertTrue(firstUse(a, accepted(a, answer(nonce, 3))), "from Redis again once it answers");
        assertFalse(firstUse(b, accepted(b, answer(nonce, 3))));
    }

    @Test
    void aGatewayStartedWithoutRedisSignsWithItsOwnKeyUntilItReadsTheFleets() throws Exception {
        DigestAuthentication a = gateway(new ManualTime());
        a.shareSecret().toCompletableFuture().get();
        String nonceOfA = nonceOf(a);
        RedissonClient clientOfC = client();
        server.kill();
        DigestAuthentication c = gateway(clientOfC, new ManualTime());
        assertThrows(ExecutionException.class, () -> c.shareSecret().toCompletableFuture().get());
        assertFalse(c.secretShared());
        String ownNonce = nonceOf(c);
        accepted(c, answer(ownNonce, 1));
        assertInstanceOf(DigestCheck.Stale.class, a.check(answer(ownNonce, 1), PBX, "INVITE", LIFETIME),
                "signed with c's own key: good at c only");

        server.restart(); // empty: the fleet's key is made again by whichever gateway reads first
        shareOnceRedisAnswers(c);
        shareOnceRedisAnswers(a);
        accepted(a, answer(nonceOf(c), 1));
        accepted(c, answer(nonceOf(a), 1));
        accepted(c, answer(ownNonce, 2));
        accepted(a, answer(nonceOfA, 2));
    }
}

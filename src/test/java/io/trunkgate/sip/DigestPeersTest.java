package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.DigestClient;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Peers known by their digest credentials, through the gateway with JAIN-SIP agents as callers and carrier; the
 * callers compute their credentials with {@link DigestClient}, written from RFC 7616 apart from the gateway's code.
 */
class DigestPeersTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 10_000;
    private static final String USER = "pbx-9";
    private static final String PASSWORD = "pa55word";
    private static final PeerCredentials PBX = PeerCredentials.withPassword(USER, "trunkgate.test", PASSWORD,
            List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5));

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private <T extends AutoCloseable> T started(T part) {
        started.add(part);
        return part;
    }

    private static String uri(SipAgent.Call call) {
        return call.inviteRequest().getRequestURI().toString();
    }

    @Test
    void aCallAnsweringTheChallengeWithSha256IsAdmittedOnceAndItsChallengeCountsNothing() throws Exception {
        SipAgent caller = started(SipAgent.start("127.0.5.11"));
        SipAgent carrier = started(SipAgent.start("127.0.5.12"));
        TestConfigs config = TestConfigs.onSharedRedis("digest-once", RedisServerProcess.freePort())
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofHours(1), 1))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
        Gateway gateway = started(Gateway.start(config.build()));

        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+4411");
        Response challenge = call.awaitFinal(WAIT_MS);
        assertEquals(407, challenge.getStatusCode());
        List<DigestClient.Challenge> offered = DigestClient.challenges(challenge);
        assertEquals(List.of("SHA-256", "MD5"), offered.stream().map(DigestClient.Challenge::algorithm).toList(),
                "one challenge per algorithm, the preferred first (RFC 8760)");
        assertEquals(offered.get(0).nonce(), offered.get(1).nonce());
        assertEquals("trunkgate.test", offered.get(0).realm());
        assertEquals("auth", offered.get(0).qop());
        assertFalse(offered.get(0).stale());
        assertEquals(0, carrier.received(Request.INVITE).size(), "nothing goes on before the caller is known");

        call.retryWithProxyAuthorization(DigestClient.answer(offered.get(0), USER, PASSWORD, uri(call), 1));
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();
        assertEquals(1, carrier.received(Request.INVITE).size());
        assertNull(carrier.received(Request.INVITE).get(0).request().getHeader(ProxyAuthorizationHeader.NAME),
                "credentials for the gateway's realm are consumed there");

        SipAgent.Call second = caller.invite(GW, config.sipPort(), "+4412");
        DigestClient.Challenge again = DigestClient.challenges(second.awaitFinal(WAIT_MS)).get(1);
        second.retryWithProxyAuthorization(DigestClient.answer(again, USER, PASSWORD, uri(second), 1));
        assertEquals(503, second.awaitFinal(WAIT_MS).getStatusCode(),
                "the hour's one call is the first: its challenge did not count, its retry counted once");
        String metrics = new AdminClient(gateway.adminAddress()).get("/metrics").body();
        assertEquals(1.0, Metrics.value(metrics, "trunkgate_calls_admitted_total", Map.of("peer", "pbx"))
                .orElse(-1));
        assertEquals(2.0, Metrics.value(metrics, "trunkgate_auth_challenges_total",
                Map.of("reason", "no_credentials")).orElse(-1));
    }

    @Test
    void aRightAnswerToANonceNotTheFleetsIsStaleAndAWrongPasswordIsChallengedAgainAndCounted() throws Exception {
        SipAgent caller = started(SipAgent.start("127.0.5.21"));
        SipAgent carrier = started(SipAgent.start("127.0.5.22"));
        TestConfigs config = TestConfigs.onSharedRedis("digest-stale", RedisServerProcess.freePort())
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
        Gateway gateway = started(Gateway.start(config.build()));

        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+4421");
        DigestClient.Challenge first = DigestClient.challenges(call.awaitFinal(WAIT_MS)).get(0);
        call.retryWithProxyAuthorization(DigestClient.answer(first.realm(), "bm90LXRoZS1mbGVldHM", "SHA-256", USER,
                PASSWORD, uri(call), 1));
        Response stale = call.awaitFinal(WAIT_MS);
        assertEquals(407, stale.getStatusCode());
        assertTrue(DigestClient.challenges(stale).stream().allMatch(DigestClient.Challenge::stale),
                "the password was right, the nonce not the fleet's: stale=true");

        call.retryWithProxyAuthorization(DigestClient.answer(DigestClient.challenges(stale).get(0), USER, "guess",
                uri(call), 1));
        Response refused = call.awaitFinal(WAIT_MS);
        assertEquals(407, refused.getStatusCode(), "a wrong password is challenged again, as Kamailio does");
        assertFalse(DigestClient.challenges(refused).get(0).stale(), "never stale for a wrong password");

        call.retryWithProxyAuthorization(DigestClient.answer(DigestClient.challenges(refused).get(1), USER, PASSWORD,
                uri(call), 1));
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "MD5, the second challenge, serves as well");
        call.ack();
        String metrics = new AdminClient(gateway.adminAddress()).get("/metrics").body();
        assertEquals(1.0, Metrics.value(metrics, "trunkgate_auth_failures_total",
                Map.of("peer", "pbx", "reason", "wrong_password")).orElse(-1));
        assertEquals(1.0, Metrics.value(metrics, "trunkgate_auth_challenges_total",
                Map.of("reason", "stale_nonce")).orElse(-1));
        assertEquals(1.0, Metrics.value(metrics, "trunkgate_auth_challenges_total",
                Map.of("reason", "failed")).orElse(-1));
        assertEquals(1, carrier.received(Request.INVITE).size());
    }

    @Test
    void aReplayedNonceAndCountIsRefusedAtEitherGatewayWhileTheNonceServesBoth() throws Exception {
        SipAgent caller = started(SipAgent.start("127.0.5.31"));
        SipAgent carrier = started(SipAgent.start("127.0.5.32"));
        RedisSettings fleet = TestConfigs.sharedRedis("digest-fleet");
        TestConfigs configA = fleetMember(fleet, "gw-a", carrier);
        TestConfigs configB = fleetMember(fleet, "gw-b", carrier);
        Gateway a = started(Gateway.start(configA.build()));
        Gateway b = started(Gateway.start(configB.build()));

        SipAgent.Call call = caller.invite(GW, configA.sipPort(), "+4431");
        DigestClient.Challenge challenge = DigestClient.challenges(call.awaitFinal(WAIT_MS)).get(0);
        String credentials = DigestClient.answer(challenge, USER, PASSWORD, uri(call), 1);
        call.retryWithProxyAuthorization(credentials);
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();

        javax.sip.header.Header replay = header(ProxyAuthorizationHeader.NAME, credentials);
        for (TestConfigs at : List.of(configB, configA)) {
            Response replayed = caller.invite(GW, at.sipPort(), "+4432", invite -> invite.setHeader(replay))
                    .awaitFinal(WAIT_MS);
            assertEquals(407, replayed.getStatusCode(), "a replay at " + at.build().instanceId());
            assertTrue(DigestClient.challenges(replayed).get(0).stale());
        }
        assertEquals(1, carrier.received(Request.INVITE).size(), "no replay reached the carrier");

        javax.sip.header.Header nextCount = header(ProxyAuthorizationHeader.NAME,
                DigestClient.answer(challenge, USER, PASSWORD, uri(call), 2));
        SipAgent.Call next = caller.invite(GW, configB.sipPort(), "+4433", invite -> invite.setHeader(nextCount));
        assertEquals(200, next.awaitFinal(WAIT_MS).getStatusCode(),
                "the nonce gateway A issued, with the next nonce-count, is good at gateway B");
        next.ack();
        for (Gateway gateway : List.of(a, b)) {
            assertEquals(1.0, Metrics.value(new AdminClient(gateway.adminAddress()).get("/metrics").body(),
                    "trunkgate_auth_challenges_total", Map.of("reason", "replayed_nonce")).orElse(-1));
        }
    }

    @Test
    void aPeerWithSourcesAndCredentialsIsChallengedFromItsNetworkOnlyBesideAPeerKnownBySource() throws Exception {
        SipAgent office = started(SipAgent.start("127.0.5.41"));
        SipAgent elsewhere = started(SipAgent.start("127.0.5.42"));
        SipAgent plain = started(SipAgent.start("127.0.5.43"));
        SipAgent carrier = started(SipAgent.start("127.0.5.44"));
        PeerCredentials officeCredentials = PeerCredentials.withPassword("office", "trunkgate.test", "0ffice",
                List.of(DigestAlgorithm.MD5));
        TestConfigs config = TestConfigs.onSharedRedis("digest-sources", RedisServerProcess.freePort())
                .peerByCredentials("office", officeCredentials, Limit.exact(Duration.ofSeconds(1), 100),
                        "127.0.5.40/31")
                .peer("plain", "127.0.5.43", Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
        started(Gateway.start(config.build()));

        SipAgent.Call call = office.invite(GW, config.sipPort(), "+4441");
        DigestClient.Challenge challenge = DigestClient.challenges(call.awaitFinal(WAIT_MS)).get(0);
        assertEquals("MD5", challenge.algorithm(), "the peer offers MD5 alone");
        call.retryWithProxyAuthorization(DigestClient.answer(challenge, "office", "0ffice", uri(call), 1));
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();

        javax.sip.header.Header good = header(ProxyAuthorizationHeader.NAME,
                DigestClient.answer(challenge, "office", "0ffice", uri(call), 2));
        Response outside = elsewhere.invite(GW, config.sipPort(), "+4442", invite -> invite.setHeader(good))
                .awaitFinal(WAIT_MS);
        assertEquals(403, outside.getStatusCode(), "good credentials from outside the peer's network: a stranger");
        assertEquals(403, elsewhere.invite(GW, config.sipPort(), "+4443").awaitFinal(WAIT_MS).getStatusCode(),
                "no challenge where no peer with credentials may call from");

        SipAgent.Call byAddress = plain.invite(GW, config.sipPort(), "+4444");
        assertEquals(200, byAddress.awaitFinal(WAIT_MS).getStatusCode(), "a peer known by its address: no challenge");
        byAddress.ack();
        assertEquals(2, carrier.received(Request.INVITE).size());
    }

    @Test
    void aCarriersChallengeToAnAuthenticatedCallIsAnsweredWithBothCredentialsAsOneCall() throws Exception {
        SipAgent caller = started(SipAgent.start("127.0.5.71"));
        SipAgent carrier = started(SipAgent.start("127.0.5.72"));
        carrier.behave(SipAgent.Behaviour.CHALLENGE_407);
        TestConfigs config = TestConfigs.onSharedRedis("digest-carrier", RedisServerProcess.freePort())
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofHours(1), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
        Gateway gateway = started(Gateway.start(config.build()));

        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+4471");
        DigestClient.Challenge ours = DigestClient.challenges(call.awaitFinal(WAIT_MS)).get(0);
        call.retryWithProxyAuthorization(DigestClient.answer(ours, USER, PASSWORD, uri(call), 1));
        Response carriers = call.awaitFinal(WAIT_MS);
        assertEquals(407, carriers.getStatusCode(), "the carrier's own challenge, relayed");
        DigestClient.Challenge theirs = DigestClient.challenges(carriers).get(0);
        assertEquals("carrier.test", theirs.realm());
        assertNull(carrier.received(Request.INVITE).get(0).request().getHeader(ProxyAuthorizationHeader.NAME),
                "the gateway's credentials consumed: the carrier challenges");

        // as an agent does for every realm that challenged it: the gateway's nonce again, with the next count
        call.retryWithProxyAuthorization(DigestClient.answer(ours, USER, PASSWORD, uri(call), 2),
                DigestClient.answer(theirs, "acme", "carrier-secret", uri(call), 1));
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();
        List<SipAgent.Received> invites = carrier.received(Request.INVITE);
        assertEquals(2, invites.size());
        List<String> sent = new ArrayList<>();
        invites.get(1).request().getHeaders(ProxyAuthorizationHeader.NAME)
                .forEachRemaining(h -> sent.add(((ProxyAuthorizationHeader) h).getRealm()));
        assertEquals(List.of("carrier.test"), sent, "only the carrier's credentials go on to it");
        assertEquals(1, new AdminClient(gateway.adminAddress()).get("/api/peers/pbx").json().get("limits").get(0)
                .get("used").asLong(), "one call across both challenges");
    }

    @Test
    void anAuthenticatedCallIsShedWhileTheGatewayDrains() throws Exception {
        SipAgent caller = started(SipAgent.start("127.0.5.51"));
        SipAgent carrier = started(SipAgent.start("127.0.5.52"));
        TestConfigs config = TestConfigs.onSharedRedis("digest-drain", RedisServerProcess.freePort())
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
        Gateway gateway = started(Gateway.start(config.build()));
        gateway.drain();

        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+4451");
        DigestClient.Challenge challenge = DigestClient.challenges(call.awaitFinal(WAIT_MS)).get(0);
        call.retryWithProxyAuthorization(DigestClient.answer(challenge, USER, PASSWORD, uri(call), 1));
        Response shed = call.awaitFinal(WAIT_MS);
        assertNotNull(shed);
        assertEquals(503, shed.getStatusCode(), "known once authenticated, then shed as every peer's call");
        assertEquals(0, carrier.received(Request.INVITE).size());
        assertEquals(1.0, Metrics.value(new AdminClient(gateway.adminAddress()).get("/metrics").body(),
                "trunkgate_calls_shed_total", Map.of("peer", "pbx", "reason", "shutting_down")).orElse(-1));
    }

    private static TestConfigs fleetMember(RedisSettings redis, String instance, SipAgent carrier) {
        return new TestConfigs(redis, RedisServerProcess.freePort()).instance(instance)
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c");
    }

    private static javax.sip.header.Header header(String name, String value) throws Exception {
        return javax.sip.SipFactory.getInstance().createHeaderFactory().createHeader(name, value);
    }
}

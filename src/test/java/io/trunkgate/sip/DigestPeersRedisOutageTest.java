package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.DigestClient;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sip.header.Header;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Digest peers with the real redis-server killed under the gateway: nonces need no Redis, so a peer still
 * authenticates; a replay is refused by the gateway that saw the answer first (it keeps the uses in memory
 * meanwhile); and the call then meets {@code admission.redis-down} as every call does.
 */
class DigestPeersRedisOutageTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 10_000;
    private static final PeerCredentials PBX = PeerCredentials.withPassword("pbx-5", "trunkgate.test", "pw",
            List.of(DigestAlgorithm.MD5));

    private StandaloneRedis redis;
    private SipAgent caller;
    private SipAgent carrier;
    private Gateway gateway;
    private int port;

    @BeforeEach
    void start() throws Exception {
        redis = StandaloneRedis.startPrivate();
        caller = SipAgent.start("127.0.5.61");
        carrier = SipAgent.start("127.0.5.62");
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        caller.close();
        carrier.close();
        redis.server().close();
    }

    private void startGateway(RedisDownPolicy policy) throws Exception {
        port = RedisServerProcess.freePort();
        RedisSettings settings = new RedisSettings(RedisMode.STANDALONE, List.of(redis.server().address()),
                Optional.empty(), Optional.empty(), Duration.ofMillis(50), "tg-digest-outage", 0);
        gateway = Gateway.start(new TestConfigs(settings, port).redisDown(policy)
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofSeconds(10), 100))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5)).route("", "c").build());
    }

    /** A call challenged and answered with the right password; returns the final response and the credentials. */
    private Response authenticatedCall(String number, String[] credentials) throws Exception {
        SipAgent.Call call = caller.invite(GW, port, number);
        Response challenge = call.awaitFinal(WAIT_MS);
        assertEquals(407, challenge.getStatusCode(), "challenged with Redis down too");
        credentials[0] = DigestClient.answer(DigestClient.challenges(challenge).get(0), PBX.user(), "pw",
                call.inviteRequest().getRequestURI().toString(), 1);
        call.retryWithProxyAuthorization(credentials[0]);
        Response last = call.awaitFinal(WAIT_MS);
        if (last != null && last.getStatusCode() == 200) {
            call.ack();
        }
        return last;
    }

    @Test
    void underAllowAPeerStillAuthenticatesAndAReplayAtThisGatewayIsRefused() throws Exception {
        startGateway(RedisDownPolicy.ALLOW);
        redis.server().kill();

        String[] credentials = new String[1];
        assertEquals(200, authenticatedCall("+4461", credentials).getStatusCode());
        Header replay = javax.sip.SipFactory.getInstance().createHeaderFactory()
                .createHeader(ProxyAuthorizationHeader.NAME, credentials[0]);
        Response replayed = caller.invite(GW, port, "+4462", invite -> invite.setHeader(replay)).awaitFinal(WAIT_MS);
        assertEquals(407, replayed.getStatusCode());
        assertTrue(DigestClient.challenges(replayed).get(0).stale());
        assertEquals(1, carrier.received("INVITE").size());
    }

    @Test
    void underRejectAnAuthenticatedCallIsRefusedAsEveryCallIs() throws Exception {
        startGateway(RedisDownPolicy.REJECT);
        redis.server().kill();

        Response refused = authenticatedCall("+4463", new String[1]);
        assertEquals(503, refused.getStatusCode(), "admission.redis-down = reject decides, after the credentials");
        assertEquals(0, carrier.received("INVITE").size());
    }
}

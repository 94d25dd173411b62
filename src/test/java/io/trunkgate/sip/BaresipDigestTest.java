package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Baresip;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * baresip, a softphone with its own SIP stack (libre), as a PBX known by its digest credentials alone: it answers the
 * gateway's 407 with MD5 credentials and its calls go through; with a wrong password its call ends at the second 407
 * (libre never sends the same credentials twice) and nothing reaches the carrier. libre 1.x answers only MD5 and only
 * one challenge per realm, so the peer offers MD5 alone. Runs where baresip is installed (CI installs it).
 */
class BaresipDigestTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final PeerCredentials PHONE = PeerCredentials.withPassword("phone-3", "trunkgate.test",
            "c0rrect-horse", List.of(DigestAlgorithm.MD5));

    @TempDir
    Path dir;

    @Test
    void baresipAnswersTheChallengeAndAWrongPasswordGetsNowhere() throws Exception {
        assumeTrue(Baresip.installed(), "baresip is not installed");
        int port = SipSockets.freePort();
        try (SipAgent carrier = SipAgent.start("127.0.5.82");
             Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("baresip-digest", port)
                     .peerByCredentials("phone", PHONE, Limit.exact(Duration.ofHours(1), 100))
                     .carrier("c", carrier, 100, Duration.ofSeconds(1), Duration.ofSeconds(5)).route("", "c")
                     .build())) {
            try (Baresip phone = Baresip.startWithPassword(dir, "127.0.5.81", PHONE.user(), "c0rrect-horse")) {
                for (int i = 0; i < 3; i++) {
                    phone.command("dial", "sip:+4470" + i + "@127.0.0.1:" + port);
                    assertNotNull(phone.awaitEvent("CALL_ESTABLISHED", WAIT), "call " + i + ": " + phone.log());
                    assertTrue(carrier.await(Request.ACK, i + 1, WAIT.toMillis()), "call " + i + ": its ACK");
                    phone.command("hangup", "");
                    assertNotNull(phone.awaitEvent("CALL_CLOSED", WAIT), "call " + i + " not closed: " + phone.log());
                }
                assertTrue(carrier.await(Request.BYE, 3, WAIT.toMillis()), "the phone's BYEs at the carrier");
            }
            assertEquals(3, carrier.received(Request.INVITE).size());
            for (SipAgent.Received invite : carrier.received(Request.INVITE)) {
                assertNull(invite.request().getHeader(ProxyAuthorizationHeader.NAME));
            }

            try (Baresip intruder = Baresip.startWithPassword(dir, "127.0.5.83", PHONE.user(), "guessed")) {
                intruder.command("dial", "sip:+44709@127.0.0.1:" + port);
                assertNotNull(intruder.awaitEvent("CALL_CLOSED", WAIT), "refused: " + intruder.log());
            }
            assertEquals(3, carrier.received(Request.INVITE).size(), "a wrong password reaches no carrier");
            String metrics = new AdminClient(gateway.adminAddress()).get("/metrics").body();
            assertEquals(1.0, Metrics.value(metrics, "trunkgate_auth_failures_total",
                    Map.of("peer", "phone", "reason", "wrong_password")).orElse(-1));
            assertEquals(3.0, Metrics.value(metrics, "trunkgate_calls_admitted_total", Map.of("peer", "phone"))
                    .orElse(-1));
        }
    }
}

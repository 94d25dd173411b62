package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.CarrierTls;
import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.Baresip;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * baresip, a softphone with its own TLS (libre over OpenSSL), calls through the gateway's TLS listener to a carrier
 * reached over TLS: known by its client certificate alone, it completes ten calls with ACK, a BYE from either end,
 * a re-INVITE, and a call it cancels while it rings. Runs where baresip is installed (CI installs it).
 */
class BaresipTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void tenCallsFromBaresipOverTlsWithByeEachWayReinviteAndCancel() throws Exception {
        assumeTrue(Baresip.installed(), "baresip is not installed");
        TestCertificates certificates = new TestCertificates(dir);
        TestCertificates.Issued ca = certificates.certificate("baresip test CA").ca().write("ca");
        TestCertificates.Issued gatewayCertificate = certificates.certificate("gateway").ip("127.0.0.1")
                .issuedBy(ca).write("gateway");
        TestCertificates.Issued phoneCertificate = certificates.certificate("phone").issuedBy(ca).write("phone");
        SipAgent carrier = SipAgent.startTls("127.0.0.142", certificates.certificate("carrier").ip("127.0.0.142")
                .issuedBy(ca).write("carrier"), ca.certificate(), false, dir);
        int port = SipSockets.freePort();
        int tlsPort = SipSockets.freePort();
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("baresip-tls", port).instance("baresip-gw")
                .listenTls(tlsPort, gatewayCertificate, Optional.empty())
                .peerByCertificate("phone", CertificateMatch.Sha256.parse(phoneCertificate.sha256()))
                .carrier(new CarrierConfig("carrier", SipUri.parse(carrier.uri()), 100, 1, Duration.ofSeconds(1),
                        Set.of(503, 408), true, List.of(), 1000, Duration.ofSeconds(5), Duration.ofMinutes(2),
                        OptionalInt.empty(), Optional.empty(),
                        Optional.of(new CarrierTls(Optional.of(ca.certificateFile())))))
                .route("", "carrier")
                .build());
             Baresip phone = Baresip.start(dir, "127.0.0.141", "phone", phoneCertificate, ca)) {
            for (int i = 0; i < 10; i++) {
                phone.command("dial", "sip:+4450" + i + "@127.0.0.1:" + tlsPort + ";transport=tls");
                assertNotNull(phone.awaitEvent("CALL_ESTABLISHED", WAIT), "call " + i + " not answered: "
                        + phone.log());
                assertTrue(carrier.await(Request.ACK, i + 1, WAIT.toMillis()), "call " + i + ": ACK at the carrier");
                String callId = carrier.received(Request.INVITE).get(carrier.received(Request.INVITE).size() - 1)
                        .request().getHeader("Call-ID").toString().replace("Call-ID:", "").trim();
                if (i == 0) {
                    phone.command("reinvite", "");
                    assertTrue(carrier.await(Request.INVITE, 2, WAIT.toMillis()), "the re-INVITE at the carrier");
                }
                if (i % 2 == 0) {
                    phone.command("hangup", "");
                } else {
                    assertEquals(200, carrier.byeFromCallee(callId, WAIT.toMillis()).getStatusCode(),
                            "call " + i + ": the phone's answer to the callee's BYE");
                }
                assertNotNull(phone.awaitEvent("CALL_CLOSED", WAIT), "call " + i + " not closed: " + phone.log());
            }
            assertTrue(carrier.await(Request.BYE, 5, WAIT.toMillis()), "the phone's BYEs at the carrier");

            carrier.behave(SipAgent.Behaviour.RING);
            phone.command("dial", "sip:+4459@127.0.0.1:" + tlsPort + ";transport=tls");
            assertNotNull(phone.awaitEvent("CALL_RINGING", WAIT), "no ringing: " + phone.log());
            phone.command("hangup", "");
            assertTrue(carrier.await(Request.CANCEL, 1, WAIT.toMillis()), "the phone's CANCEL at the carrier");
            assertNotNull(phone.awaitEvent("CALL_CLOSED", WAIT), "the cancelled call not closed: " + phone.log());
        } finally {
            carrier.close();
        }
    }
}

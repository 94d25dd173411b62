package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.CarrierTls;
import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.Limit;
import io.trunkgate.config.SipUri;
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
import java.util.concurrent.Callable;
import javax.sip.message.Request;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * baresip, a softphone with its own SIP stack (libre), calls through the gateway over UDP, TCP and TLS (its own TLS,
 * libre over OpenSSL) to a carrier reached over the same transport: ten calls with ACK, a BYE from either end, a
 * re-INVITE, and a call it cancels while it rings. Over TLS it is known by its client certificate alone, over UDP
 * and TCP by its address. Runs where baresip is installed (CI installs it).
 */
class BaresipCallsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PHONE = "127.0.0.141";
    private static final String CARRIER = "127.0.0.142";

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void tenCallsFromBaresipWithByeEachWayReinviteAndCancel(Transport transport) throws Exception {
        assumeTrue(Baresip.installed(), "baresip is not installed");
        int port = SipSockets.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("baresip-" + transport.sipName(), port)
                .instance("baresip-gw-" + port).route("", "carrier");
        SipAgent carrier;
        Callable<Baresip> phone;
        int callPort;
        if (transport == Transport.TLS) {
            TestCertificates certificates = new TestCertificates(dir);
            TestCertificates.Issued ca = certificates.certificate("baresip test CA").ca().write("ca");
            TestCertificates.Issued phoneCertificate = certificates.certificate("phone").issuedBy(ca).write("phone");
            carrier = SipAgent.startTls(CARRIER, certificates.certificate("carrier").ip(CARRIER).issuedBy(ca)
                    .write("carrier"), ca.certificate(), false, dir);
            callPort = SipSockets.freePort();
            config.listenTls(callPort, certificates.certificate("gateway").ip("127.0.0.1").issuedBy(ca)
                            .write("gateway"), Optional.empty())
                    .peerByCertificate("phone", CertificateMatch.Sha256.parse(phoneCertificate.sha256()))
                    .carrier(new CarrierConfig("carrier", SipUri.parse(carrier.uri()), 100, 1, Duration.ofSeconds(1),
                            Set.of(503, 408), true, List.of(), 1000, Duration.ofSeconds(5), Duration.ofMinutes(2),
                            OptionalInt.empty(), Optional.empty(),
                            Optional.of(new CarrierTls(Optional.of(ca.certificateFile())))));
            phone = () -> Baresip.start(dir, PHONE, "phone", phoneCertificate, ca);
        } else {
            carrier = SipAgent.start(CARRIER, transport.name());
            callPort = port;
            // libre 1.0 binds its TCP connections to no address: they come from the one the kernel picks, 127.0.0.1
            config.peer("phone", transport == Transport.TCP ? "127.0.0.1" : PHONE,
                            Limit.exact(Duration.ofSeconds(1), 1000))
                    .carrier("carrier", carrier, 100, Duration.ofSeconds(1), Duration.ofSeconds(5));
            phone = () -> Baresip.start(dir, PHONE, "phone", transport.sipName());
        }
        // baresip adds its account's transport parameter to the URIs it dials
        String gateway = "@127.0.0.1:" + callPort;
        try (carrier; Gateway started = Gateway.start(config.build()); Baresip baresip = phone.call()) {
            for (int i = 0; i < 10; i++) {
                baresip.command("dial", "sip:+4450" + i + gateway);
                assertNotNull(baresip.awaitEvent("CALL_ESTABLISHED", WAIT), "call " + i + " not answered: "
                        + baresip.log());
                assertTrue(carrier.await(Request.ACK, i + 1, WAIT.toMillis()), "call " + i + ": ACK at the carrier");
                String callId = carrier.received(Request.INVITE).get(carrier.received(Request.INVITE).size() - 1)
                        .request().getHeader("Call-ID").toString().replace("Call-ID:", "").trim();
                if (i == 0) {
                    baresip.command("reinvite", "");
                    assertTrue(carrier.await(Request.INVITE, 2, WAIT.toMillis()), "the re-INVITE at the carrier");
                }
                if (i % 2 == 0) {
                    baresip.command("hangup", "");
                } else {
                    assertEquals(200, carrier.byeFromCallee(callId, WAIT.toMillis()).getStatusCode(),
                            "call " + i + ": the phone's answer to the callee's BYE");
                }
                assertNotNull(baresip.awaitEvent("CALL_CLOSED", WAIT), "call " + i + " not closed: "
                        + baresip.log());
            }
            assertTrue(carrier.await(Request.BYE, 5, WAIT.toMillis()), "the phone's BYEs at the carrier");

            carrier.behave(SipAgent.Behaviour.RING);
            baresip.command("dial", "sip:+4459" + gateway);
            assertNotNull(baresip.awaitEvent("CALL_RINGING", WAIT), "no ringing: " + baresip.log());
            baresip.command("hangup", "");
            assertTrue(carrier.await(Request.CANCEL, 1, WAIT.toMillis()), "the phone's CANCEL at the carrier");
            assertNotNull(baresip.awaitEvent("CALL_CLOSED", WAIT), "the cancelled call not closed: "
                    + baresip.log());
        }
    }
}

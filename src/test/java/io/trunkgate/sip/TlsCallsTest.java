package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestConfigs;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.htmlunit.BrowserVersion;
import org.htmlunit.WebClient;
import org.htmlunit.html.DomNode;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls over TLS end to end, with JAIN-SIP agents using their own TLS stack as caller and carriers: the gateway's
 * listener takes a caller known only by its client certificate, from any address; carriers are reached over TLS and
 * their certificates checked, a bad one (expired, self-signed, another name) is never sent a call, which fails over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsCallsTest {

    private static final long WAIT_MS = 10_000;
    private static final String CALLER_HOST = "127.0.0.121";
    private static final String GOOD_CARRIER_HOST = "127.0.0.122";

    @TempDir
    static Path dir;
    private TestCertificates.Issued ca;
    private TestCertificates certificates;
    private TestCertificates.Issued callerCertificate;
    private TestCertificates.Issued gatewayCertificate;
    private SipAgent caller;
    private SipAgent carrier;
    private final SipAgent[] badCarriers = new SipAgent[3];
    private Gateway gateway;
    private int tlsPort;

    @BeforeAll
    void start() throws Exception {
        certificates = new TestCertificates(dir);
        ca = certificates.certificate("trunkgate test CA").ca().write("ca");
        gatewayCertificate = certificates.certificate("gateway").ip("127.0.0.1")
                .issuedBy(ca).write("gateway");
        callerCertificate = certificates.certificate("acme trunk").issuedBy(ca).write("caller");
        caller = SipAgent.startTls(CALLER_HOST, callerCertificate, ca.certificate(), false, dir);
        carrier = SipAgent.startTls(GOOD_CARRIER_HOST, certificates.certificate("carrier").ip(GOOD_CARRIER_HOST)
                .issuedBy(ca).write("carrier"), ca.certificate(), false, dir);
        badCarriers[0] = SipAgent.startTls("127.0.0.123", certificates.certificate("expired").ip("127.0.0.123")
                .issuedBy(ca).expired().write("expired"), ca.certificate(), false, dir);
        badCarriers[1] = SipAgent.startTls("127.0.0.124", certificates.certificate("self-signed")
                .ip("127.0.0.124").write("self-signed"), ca.certificate(), false, dir);
        badCarriers[2] = SipAgent.startTls("127.0.0.125", certificates.certificate("other").ip("127.0.0.99")
                .issuedBy(ca).write("other-name"), ca.certificate(), false, dir);

        int port = SipSockets.freePort();
        tlsPort = SipSockets.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("tls-calls", port).instance("tls-gw")
                .listenTls(tlsPort, gatewayCertificate, Optional.of(ca.certificateFile()))
                .peerByCertificate("acme", CertificateMatch.Sha256.parse(callerCertificate.sha256()))
                .peerByCertificate("initech", CertificateMatch.SubjectAltName.parse("trunk.initech.example"))
                .carrier(tlsCarrier("good", carrier))
                .route("", "good");
        String[] names = {"expired", "self-signed", "other-name"};
        for (int i = 0; i < badCarriers.length; i++) {
            config.carrier(tlsCarrier(names[i], badCarriers[i], "good")).route("+9" + i, names[i]);
        }
        gateway = Gateway.start(config.build());
    }

    private CarrierConfig tlsCarrier(String id, SipAgent agent, String... alternates) {
        return new CarrierConfig(id, SipUri.parse(agent.uri()), 1000, 1, Duration.ofSeconds(1), Set.of(503, 408),
                true, List.of(alternates), 1000, Duration.ofSeconds(5), Duration.ofMinutes(2), OptionalInt.empty(),
                Optional.empty(), Optional.of(new CarrierTls(Optional.of(ca.certificateFile()))));
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        for (SipAgent agent : List.of(caller, carrier, badCarriers[0], badCarriers[1], badCarriers[2])) {
            agent.close();
        }
    }

    @Test
    void tenCallsWithAckAndByeEachWayCancelAndReinviteAllOverTls() throws Exception {
        carrier.clear();
        for (int i = 0; i < 10; i++) {
            SipAgent.Call call = caller.invite("127.0.0.1", tlsPort, "+4410" + i);
            Response answer = call.awaitFinal(WAIT_MS);
            assertNotNull(answer, "call " + i + " got no answer");
            assertEquals(200, answer.getStatusCode(), "call " + i);
            call.ack();
            if (i == 0) {
                Response reinvite = call.reinvite(WAIT_MS);
                assertNotNull(reinvite, "no answer to the re-INVITE");
                assertEquals(200, reinvite.getStatusCode(), "re-INVITE");
            }
            Response bye = i % 2 == 0 ? call.bye(WAIT_MS) : carrier.byeFromCallee(call.callId(), WAIT_MS);
            assertNotNull(bye, "call " + i + ": no answer to its BYE");
            assertEquals(200, bye.getStatusCode(), "call " + i + ": BYE " + (i % 2 == 0 ? "from the caller"
                    : "from the callee"));
        }
        assertTrue(carrier.await(Request.ACK, 11, WAIT_MS), "ACKs at the carrier: "
                + carrier.received(Request.ACK).size());
        assertEquals(11, carrier.received(Request.INVITE).size(), "INVITEs (one a re-INVITE) at the carrier");
        assertEquals(5, carrier.received(Request.BYE).size(), "the callers' BYEs at the carrier");
        assertEquals(1, SipSockets.establishedTo(carrier.host(), carrier.port()),
                "TLS connections from the gateway to the carrier: one, reused by every call");
        for (SipAgent.Received received : carrier.received(Request.INVITE)) {
            assertEquals("TLS", ((ViaHeader) received.request().getHeader(ViaHeader.NAME)).getTransport(),
                    "the gateway's Via on what reached the carrier");
        }

        carrier.behave(SipAgent.Behaviour.RING);
        try {
            SipAgent.Call ringing = caller.invite("127.0.0.1", tlsPort, "+4419");
            Response ring = ringing.next(WAIT_MS);
            while (ring != null && ring.getStatusCode() < 180) {
                ring = ringing.next(WAIT_MS);
            }
            assertNotNull(ring, "no ringing over TLS");
            ringing.cancel();
            Response cancelled = ringing.awaitFinal(WAIT_MS);
            assertNotNull(cancelled, "no final answer after CANCEL");
            assertEquals(487, cancelled.getStatusCode());
            assertTrue(carrier.await(Request.CANCEL, 1, WAIT_MS), "CANCEL at the carrier");
        } finally {
            carrier.behave(SipAgent.Behaviour.ANSWER);
        }
    }

    @Test
    void aPeerKnownByItsCertificateIsAdmittedFromAnyAddressAndNoOrAnotherCertificateIsRefused() throws Exception {
        TestCertificates.Issued stranger = certificates.certificate("acme trunk").issuedBy(ca).write("stranger");
        SipAgent elsewhere = SipAgent.startTls("127.0.0.126", callerCertificate, ca.certificate(), false, dir);
        SipAgent unknown = SipAgent.startTls("127.0.0.127", stranger, ca.certificate(), false, dir);
        SipAgent anonymous = SipAgent.startTls("127.0.0.128", null, ca.certificate(), false, dir);
        try {
            SipAgent.Call known = elsewhere.invite("127.0.0.1", tlsPort, "+4420100");
            assertEquals(200, known.awaitFinal(WAIT_MS).getStatusCode(), "the pinned certificate from another address");
            known.ack();
            assertEquals(200, known.bye(WAIT_MS).getStatusCode());
            assertEquals(403, unknown.invite("127.0.0.1", tlsPort, "+4420101").awaitFinal(WAIT_MS).getStatusCode(),
                    "a certificate of the same name and CA that is not the pinned one");
            assertEquals(403, anonymous.invite("127.0.0.1", tlsPort, "+4420102").awaitFinal(WAIT_MS).getStatusCode(),
                    "no client certificate");
        } finally {
            elsewhere.close();
            unknown.close();
            anonymous.close();
        }
    }

    @Test
    void aPeerKnownByANameIsAdmittedOnlyWithACertificateTheClientCaIssued() throws Exception {
        SipAgent issued = SipAgent.startTls("127.0.0.129", certificates.certificate("initech")
                .dns("trunk.initech.example").issuedBy(ca).write("initech"), ca.certificate(), false, dir);
        SipAgent forged = SipAgent.startTls("127.0.0.130", certificates.certificate("initech")
                .dns("trunk.initech.example").write("forged"), ca.certificate(), false, dir);
        try {
            SipAgent.Call call = issued.invite("127.0.0.1", tlsPort, "+4420300");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "the name, in a certificate the client CA issued");
            call.ack();
            assertEquals(200, call.bye(WAIT_MS).getStatusCode());
            assertEquals(403, forged.invite("127.0.0.1", tlsPort, "+4420301").awaitFinal(WAIT_MS).getStatusCode(),
                    "the same name in a self-signed certificate");
        } finally {
            issued.close();
            forged.close();
        }
    }

    @Test
    void aRenewedCertificateIsPresentedByTheNextHandshakeWithoutARestart() throws Exception {
        BigInteger before = presentedSerial();
        assertEquals(gatewayCertificate.certificate().getSerialNumber(), before);
        TestCertificates.Issued renewed = certificates.certificate("gateway").ip("127.0.0.1").issuedBy(ca)
                .write("renewed");
        // written beside, then moved over: a reader sees the old files or the new ones, never half of one
        Path certificate = dir.resolve("renewing.pem");
        Path key = dir.resolve("renewing.key");
        Files.copy(renewed.certificateFile(), certificate);
        Files.copy(renewed.keyFile(), key);
        Files.move(key, gatewayCertificate.keyFile(), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        Files.move(certificate, gatewayCertificate.certificateFile(), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        BigInteger after = Await.until(Duration.ofSeconds(10), this::presentedSerial,
                serial -> serial.equals(renewed.certificate().getSerialNumber()));
        assertEquals(renewed.certificate().getSerialNumber(), after);
        SipAgent.Call call = caller.invite("127.0.0.1", tlsPort, "+4420200");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "a call after the renewal");
        call.ack();
        assertEquals(200, call.bye(WAIT_MS).getStatusCode());
    }

    @Test
    void theApiTheStatusPageAndTheMetricsShowTheListenersCertificateAndItsExpiry() throws Exception {
        AdminClient admin = new AdminClient(gateway.adminAddress());
        JsonNode listeners = admin.get("/api/listeners").json().get("listeners");
        JsonNode tls = null;
        for (JsonNode listener : listeners) {
            if (listener.get("transport").asText().equals("tls")) {
                tls = listener;
            }
        }
        assertNotNull(tls, "the TLS listener in " + listeners);
        assertEquals(tlsPort, tls.get("port").asInt());
        assertEquals("CN=gateway", tls.get("certificate").get("subject").asText());
        long days = tls.get("certificate").get("expiresInSeconds").asLong() / 86400;
        assertTrue(days >= 360 && days <= 366, "days to expiry of a certificate made for a year: " + days);
        double notAfter = Metrics.value(admin.get("/metrics").body(), "trunkgate_tls_certificate_expiry_seconds",
                Map.of("listener", "tls 127.0.0.1:" + tlsPort)).orElseThrow();
        assertEquals(Instant.parse(tls.get("certificate").get("notAfter").asText()).getEpochSecond(), (long) notAfter,
                "the metric is the certificate's notAfter as Unix time");
        try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
            browser.getOptions().setFetchPolyfillEnabled(true);
            HtmlPage page = browser.getPage(admin.base() + "/");
            String row = Await.until(Duration.ofSeconds(30), () -> tlsRow(page), text -> !text.isEmpty());
            page.getEnclosingWindow().getJobManager().removeAllJobs();
            assertTrue(row.contains("tls 127.0.0.1:" + tlsPort) && row.contains("CN=gateway")
                    && row.contains(days + " days"), "the status page's row for the TLS listener: " + row);
        }
    }

    /** The text of the status page's row for a TLS listener, once its script has drawn it; else "". */
    private static String tlsRow(HtmlPage page) {
        try {
            for (DomNode row : page.querySelectorAll("#listeners tbody tr")) {
                if (row.getTextContent().startsWith("tls ")) {
                    return row.getTextContent();
                }
            }
        } catch (RuntimeException drawingMeanwhile) {
            // read while the script changed the page: asked again
        }
        return "";
    }

    /** The serial number of the certificate the gateway presents to a new TLS connection. */
    private BigInteger presentedSerial() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", tlsPort)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    @Test
    void aCarrierWhoseCertificateIsExpiredSelfSignedOrForAnotherNameIsNeverSentTheCall() throws Exception {
        String[] why = {"expired", "self-signed", "another name"};
        String[] logged = {"expired on", "self-signed (CN=self-signed), not trusted", "name mismatch"};
        for (int i = 0; i < badCarriers.length; i++) {
            LogCapture log = LogCapture.of("io.trunkgate.sip.transport");
            carrier.clear();
            SipAgent.Call call = caller.invite("127.0.0.1", tlsPort, "+9" + i + "5550100");
            Response answer = call.awaitFinal(WAIT_MS);
            assertNotNull(answer, why[i] + ": no answer");
            assertEquals(200, answer.getStatusCode(), why[i] + ": the call failed over to the good carrier");
            assertEquals(1, carrier.received(Request.INVITE).size(), why[i] + ": INVITEs at the alternate");
            assertEquals(0, badCarriers[i].received(Request.INVITE).size(), why[i] + ": INVITEs at the bad carrier");
            call.ack();
            assertEquals(200, call.bye(WAIT_MS).getStatusCode(), why[i] + ": BYE");
            String line = "TLS connection to /" + badCarriers[i].host();
            String reason = logged[i];
            try (log) {
                assertTrue(log.await(event -> event.getFormattedMessage().startsWith(line)
                                && event.getFormattedMessage().contains(reason), Duration.ofSeconds(5)),
                        why[i] + ": a line saying why, in " + log.events().stream()
                                .map(event -> event.getFormattedMessage()).toList());
            }
        }
    }
}

package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.CarrierTls;
import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.Cidr;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.SipUri;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import javax.sip.header.ReasonHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may speak in a dialog, with real agents: a carrier hangs up from another of its addresses (one its match.sources
 * lists, over UDP, and over TLS on a new connection from another local address; one its name resolves to, an SRV
 * target the call did not go to), a peer from another of its match.sources, or on a new TLS connection from another
 * address presenting its certificate; each BYE reaches the other end. A BYE
 * from an address that speaks for neither end is refused 403 with a Reason, never 481, and the call stays up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DialogPartiesTest {

    private static final String GW = "127.0.0.1";
    private static final String D = LoopbackDns.DOMAIN;
    private static final long WAIT_MS = 15_000;

    @TempDir
    static Path dir;
    private final List<SipAgent> agents = new ArrayList<>();
    private SipAgent caller;
    private SipAgent callerElsewhere;
    private SipAgent udpCarrier;
    private SipAgent udpCarrierElsewhere;
    private SipAgent tlsCarrier;
    private SipAgent tlsCarrierElsewhere;
    private SipAgent srvOne;
    private SipAgent srvTwo;
    private SipAgent stranger;
    private SipAgent tlsCaller;
    private SipAgent tlsCallerElsewhere;
    private int tlsPort;
    private LoopbackDns dns;
    private Gateway gateway;
    private TestConfigs config;

    private SipAgent agent(SipAgent agent) {
        agents.add(agent);
        return agent;
    }

    @BeforeAll
    void start() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        TestCertificates.Issued ca = certificates.certificate("trunkgate test CA").ca().write("ca");
        TestCertificates.Issued gatewayCertificate = certificates.certificate("gateway").ip(GW).issuedBy(ca)
                .write("gateway");
        TestCertificates.Issued carrierCertificate = certificates.certificate("carrier").ip("127.0.0.203")
                .ip("127.0.0.204").issuedBy(ca).write("carrier");
        caller = agent(SipAgent.start("127.0.0.201"));
        callerElsewhere = agent(SipAgent.start("127.0.0.202"));
        tlsCarrier = agent(SipAgent.startTls("127.0.0.203", carrierCertificate, ca.certificate(), false, dir));
        tlsCarrierElsewhere = agent(SipAgent.startTls("127.0.0.204", carrierCertificate, ca.certificate(), false,
                dir));
        udpCarrier = agent(SipAgent.start("127.0.0.205"));
        udpCarrierElsewhere = agent(SipAgent.start("127.0.0.206"));
        srvOne = agent(SipAgent.start("127.0.0.207"));
        srvTwo = agent(SipAgent.start("127.0.0.208"));
        stranger = agent(SipAgent.start("127.0.0.209"));
        TestCertificates.Issued callerCertificate = certificates.certificate("acme trunk").issuedBy(ca)
                .write("caller");
        tlsCaller = agent(SipAgent.startTls("127.0.0.200", callerCertificate, ca.certificate(), false, dir));
        tlsCallerElsewhere = agent(SipAgent.startTls("127.0.0.210", callerCertificate, ca.certificate(), false,
                dir));
        dns = LoopbackDns.start(60,
                LoopbackDns.srv("_sip._udp.pair." + D, "one." + D, srvOne.port(), 10, 50),
                LoopbackDns.srv("_sip._udp.pair." + D, "two." + D, srvTwo.port(), 10, 50),
                LoopbackDns.host("one." + D, srvOne.host()), LoopbackDns.host("two." + D, srvTwo.host()));

        Duration wait = Duration.ofSeconds(5);
        tlsPort = SipSockets.freePort();
        config = TestConfigs.onSharedRedis("dialog-parties", RedisServerProcess.freePort())
                .dns(new DnsSettings(Optional.of(dns.address()), Duration.ofSeconds(1), Duration.ofHours(1)))
                .listenTls(tlsPort, gatewayCertificate, Optional.of(ca.certificateFile()))
                .peer(new PeerConfig("caller", List.of(Cidr.parse("127.0.0.201"), Cidr.parse("127.0.0.202")),
                        Optional.empty(), List.of(Limit.exact(Duration.ofSeconds(1), 1000))))
                .peerByCertificate("acme-tls", CertificateMatch.Sha256.parse(callerCertificate.sha256()))
                .carrier("udp", udpCarrier, 1000, wait, Duration.ofSeconds(5))
                .carrier("pair", "sip:pair." + D + ";transport=udp", 1000, wait, Duration.ofSeconds(5))
                .carrier(new CarrierConfig("tls", SipUri.parse(tlsCarrier.uri()), 1000, 1, wait, Set.of(503, 408),
                        true, List.of(), 1000, Duration.ofSeconds(5), Duration.ofMinutes(2), OptionalInt.empty(),
                        Optional.empty(), Optional.of(new CarrierTls(Optional.of(ca.certificateFile()))))
                        .withSources(List.of(Cidr.parse("127.0.0.204"))))
                .route("+1", "udp").route("+2", "pair").route("+3", "tls");
        config.carrier(config.build().carriers().get("udp").withSources(List.of(Cidr.parse("127.0.0.206/32"))));
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        agents.parallelStream().forEach(SipAgent::close);
        dns.close();
    }

    private SipAgent.Call answered(String number) throws Exception {
        SipAgent.Call call = caller.invite(GW, config.sipPort(), number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no answer to " + number);
        assertEquals(200, answer.getStatusCode());
        call.ack();
        return call;
    }

    /** {@code carrier}'s BYE for the call, sent by {@code from}: answered 200 by the caller, who got it. */
    private void carrierHangsUpFrom(SipAgent carrier, SipAgent from, SipAgent.Call call) throws Exception {
        Response answer = from.sendFromHere(carrier.calleeBye(call.callId()), WAIT_MS);
        assertNotNull(answer, "no answer to the BYE from " + from.host());
        assertEquals(200, answer.getStatusCode(), "the BYE from " + from.host() + ": " + answer);
        assertEquals(1, caller.received(Request.BYE, call.callId()), "the caller got the carrier's BYE");
    }

    @Test
    void aUdpCarrierHangsUpFromAnAddressOfItsMatchSources() throws Exception {
        SipAgent.Call call = answered("+1555001");
        carrierHangsUpFrom(udpCarrier, udpCarrierElsewhere, call);
    }

    @Test
    void aTlsCarrierHangsUpOnANewConnectionFromAnotherLocalAddress() throws Exception {
        SipAgent.Call call = answered("+3555001");
        assertEquals(1, tlsCarrier.received(Request.INVITE, call.callId()));
        carrierHangsUpFrom(tlsCarrier, tlsCarrierElsewhere, call);
    }

    @Test
    void aCarrierHangsUpFromTheSrvTargetTheCallDidNotGoTo() throws Exception {
        SipAgent.Call call = answered("+2555001");
        boolean atOne = srvOne.received(Request.INVITE, call.callId()) == 1;
        carrierHangsUpFrom(atOne ? srvOne : srvTwo, atOne ? srvTwo : srvOne, call);
    }

    @Test
    void aPeerHangsUpFromAnotherOfItsSources() throws Exception {
        SipAgent.Call call = answered("+1555002");
        Response answer = callerElsewhere.sendFromHere(call.byeRequest(), WAIT_MS);
        assertNotNull(answer, "no answer to the caller's BYE from its second address");
        assertEquals(200, answer.getStatusCode());
        assertEquals(1, udpCarrier.received(Request.BYE, call.callId()), "the carrier got the caller's BYE");
    }

    @Test
    void aPeerKnownByItsCertificateHangsUpOnANewTlsConnectionFromAnotherAddress() throws Exception {
        SipAgent.Call call = tlsCaller.invite(GW, tlsPort, "+1555004");
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no answer to the TLS caller");
        assertEquals(200, answer.getStatusCode());
        call.ack();
        Response bye = tlsCallerElsewhere.sendFromHere(call.byeRequest(), WAIT_MS);
        assertNotNull(bye, "no answer to the BYE on the new connection");
        assertEquals(200, bye.getStatusCode(), "the same certificate speaks for the peer from another address");
        assertEquals(1, udpCarrier.received(Request.BYE, call.callId()), "the carrier got the caller's BYE");
    }

    @Test
    void aByeFromAnAddressOfNeitherEndIsRefused403WithAReasonAndTheCallStaysUp() throws Exception {
        SipAgent.Call call = answered("+1555003");
        Response refused = stranger.sendFromHere(udpCarrier.calleeBye(call.callId()), WAIT_MS);
        assertNotNull(refused);
        assertEquals(403, refused.getStatusCode(), "the dialog exists: not 481");
        ReasonHeader reason = (ReasonHeader) refused.getHeader(ReasonHeader.NAME);
        assertNotNull(reason, "the refusal says why");
        assertTrue(reason.getText().contains("not a party"), reason.toString());
        assertEquals(0, caller.received(Request.BYE, call.callId()), "nothing reached the caller");

        Response ended = call.bye(WAIT_MS);
        assertNotNull(ended);
        assertEquals(200, ended.getStatusCode(), "the call was still up: the caller's BYE ends it");
    }
}

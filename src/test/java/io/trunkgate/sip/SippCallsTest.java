package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.Sipp;
import io.trunkgate.testing.TestConfigs;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SIPp at both ends, over UDP and over TCP: a SIPp caller (uac) calls through the gateway to SIPp carriers (uas), on
 * IPv4 and on IPv6 loopback. Calls are answered, ACKed and ended with a BYE; a caller cancels while the carrier rings
 * (the gateway answers it 487 and cancels the carrier); a carrier answering 503, and one that never gets past
 * 100 Trying (cancelled at answer-timeout), fail over to the next carrier, which answers. Each SIPp scenario fails
 * in SIPp if its side of the call goes any other way, so each test asserts every SIPp's outcome. Skipped where SIPp
 * is not installed (.ci/run installs it).
 */
class SippCallsTest {

    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(2);

    /** SIPp's transport mode and the gateway's name for it. */
    enum Mode {
        UDP("u1", "udp"), TCP("t1", "tcp");

        final String sipp;
        final String uriTransport;

        Mode(String sipp, String uriTransport) {
            this.sipp = sipp;
            this.uriTransport = uriTransport;
        }
    }

    /** Where the caller and the two carriers run, and the gateway address they call. */
    private record Hosts(String caller, String first, String second, String gateway) {
        static final Hosts V4 = new Hosts("127.0.7.1", "127.0.7.2", "127.0.7.3", SipSockets.GW);
        static final Hosts V6 = new Hosts("::1", "::1", "::1", "::1");

        String uri(String host, int port, Mode mode) {
            return "sip:" + bracketed(host) + ":" + port + ";transport=" + mode.uriTransport;
        }

        static String bracketed(String host) {
            return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        }
    }

    @TempDir
    Path dir;

    private final int gatewayPort = SipSockets.freePort();
    private final int firstPort = SipSockets.freePort();
    private final int secondPort = SipSockets.freePort();

    @BeforeEach
    void sippInstalled() {
        assumeTrue(Sipp.installed(), "SIPp is not installed");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void callsAreAnsweredAckedAndEndedWithBye(Mode mode) throws Exception {
        threeCalls(mode, Hosts.V4);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void callsOverIpv6AreAnsweredAckedAndEndedWithBye(Mode mode) throws Exception {
        assumeTrue(ipv6Loopback(), "this machine has no IPv6 loopback (::1)");
        threeCalls(mode, Hosts.V6);
    }

    private void threeCalls(Mode mode, Hosts hosts) throws Exception {
        try (Gateway gateway = gateway(mode, hosts);
             Sipp carrier = Sipp.startCarrier(dir, "carrier", Sipp.bench("uas.xml"), mode.sipp, hosts.first(),
                     firstPort, "-m", "3");
             Sipp caller = caller(mode, hosts, Sipp.bench("uac.xml"), "-m", "3", "-r", "10")) {
            assertEquals("", caller.awaitOutcome(), "the caller: 3 calls answered, ACKed and ended with BYE");
            assertEquals("", carrier.awaitOutcome(), "the carrier: 3 calls answered, ACKed and ended with BYE");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallCancelledWhileItRingsIsAnswered487AndCancelledAtTheCarrier(Mode mode) throws Exception {
        try (Gateway gateway = gateway(mode, Hosts.V4);
             Sipp carrier = Sipp.startCarrier(dir, "carrier", Sipp.resource(dir, "uas-ringing.xml"), mode.sipp,
                     Hosts.V4.first(), firstPort, "-m", "1");
             Sipp caller = caller(mode, Hosts.V4, Sipp.resource(dir, "uac-cancel.xml"), "-m", "1")) {
            assertEquals("", caller.awaitOutcome(), "the caller: 180, its CANCEL answered 200, the INVITE 487");
            assertEquals("", carrier.awaitOutcome(), "the carrier: the gateway's CANCEL, the ACK for its 487");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallAnswered503FailsOverToTheNextCarrier(Mode mode) throws Exception {
        try (Gateway gateway = gateway(mode, Hosts.V4);
             Sipp refusing = Sipp.startCarrier(dir, "refusing", Sipp.resource(dir, "uas-503.xml"), mode.sipp,
                     Hosts.V4.first(), firstPort, "-m", "1");
             Sipp answering = Sipp.startCarrier(dir, "answering", Sipp.bench("uas.xml"), mode.sipp,
                     Hosts.V4.second(), secondPort, "-m", "1");
             Sipp caller = caller(mode, Hosts.V4, Sipp.bench("uac.xml"), "-m", "1")) {
            assertEquals("", caller.awaitOutcome(), "the caller: answered (never the 503), ACKed, ended with BYE");
            assertEquals("", refusing.awaitOutcome(), "the first carrier: its 503 ACKed by the gateway");
            assertEquals("", answering.awaitOutcome(), "the next carrier: the call answered, ACKed, ended");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCarrierThatDoesNotAnswerIsCancelledAndTheCallFailsOver(Mode mode) throws Exception {
        try (Gateway gateway = gateway(mode, Hosts.V4);
             Sipp silent = Sipp.startCarrier(dir, "silent", Sipp.resource(dir, "uas-trying.xml"), mode.sipp,
                     Hosts.V4.first(), firstPort, "-m", "1");
             Sipp answering = Sipp.startCarrier(dir, "answering", Sipp.bench("uas.xml"), mode.sipp,
                     Hosts.V4.second(), secondPort, "-m", "1");
             Sipp caller = caller(mode, Hosts.V4, Sipp.bench("uac.xml"), "-m", "1")) {
            assertEquals("", caller.awaitOutcome(), "the caller: answered by the next carrier, ACKed, ended");
            assertEquals("", silent.awaitOutcome(), "the first carrier: cancelled at answer-timeout, 487 ACKed");
            assertEquals("", answering.awaitOutcome(), "the next carrier: the call answered, ACKed, ended");
        }
    }

    /**
     * A gateway on 127.0.0.1 (and ::1 for IPv6) whose peer is the caller, routing every call to the first carrier
     * and on failover to the second, both reached over {@code mode}.
     */
    private Gateway gateway(Mode mode, Hosts hosts) throws Exception {
        TestConfigs config = TestConfigs.onSharedRedis("sipp-" + mode.uriTransport, gatewayPort)
                .instance("sipp-calls-" + gatewayPort)
                .peer("sipp", hosts.caller(), Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("first", hosts.uri(hosts.first(), firstPort, mode), 1000, Duration.ofSeconds(5),
                        ANSWER_TIMEOUT, "second")
                .carrier("second", hosts.uri(hosts.second(), secondPort, mode), 1000, Duration.ofSeconds(5),
                        ANSWER_TIMEOUT)
                .route("", "first");
        if (!hosts.gateway().equals(SipSockets.GW)) {
            config.alsoListenOn(hosts.gateway());
        }
        return Gateway.start(config.build());
    }

    private Sipp caller(Mode mode, Hosts hosts, Path scenario, String... args) throws IOException {
        String[] all = new String[args.length + 3];
        all[0] = Hosts.bracketed(hosts.gateway()) + ":" + gatewayPort;
        all[1] = "-s";
        all[2] = "+15557000";
        System.arraycopy(args, 0, all, 3, args.length);
        return Sipp.start(dir, "caller", scenario, mode.sipp, hosts.caller(), SipSockets.freePort(), all);
    }

    private static boolean ipv6Loopback() {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("::1"), 0))) {
            return true;
        } catch (IOException noIpv6) {
            return false;
        }
    }
}

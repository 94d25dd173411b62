package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.stream.Stream;
import javax.sip.header.CallIdHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A gateway listening on 127.0.0.1 and ::1: calls between IPv4 and IPv6 callers and carriers, in every
 * combination, connect and end with a BYE; each side gets a Record-Route of its own address family.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Ipv6Test {

    private static final long WAIT_MS = 5000;

    private Gateway gateway;
    private int port;
    private SipAgent v4Caller;
    private SipAgent v6Caller;
    private SipAgent v4Carrier;
    private SipAgent v6Carrier;
    private int calls;

    @BeforeAll
    void start() throws Exception {
        v4Caller = SipAgent.start("127.0.0.91");
        v6Caller = SipAgent.start("::1");
        v4Carrier = SipAgent.start("127.0.0.92");
        v6Carrier = SipAgent.start("::1");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("v6", port)
                .alsoListenOn("::1")
                .peer("v4", "127.0.0.91", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("v6", "::1/128", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("v4-carrier", v4Carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .carrier("v6-carrier", v6Carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+4", "v4-carrier")
                .route("+6", "v6-carrier")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(v4Caller, v6Caller, v4Carrier, v6Carrier).parallel().forEach(SipAgent::close);
    }

    private static List<String> recordRouteHosts(Response response) {
        List<String> hosts = new ArrayList<>();
        for (ListIterator<?> it = response.getHeaders(RecordRouteHeader.NAME); it.hasNext(); ) {
            hosts.add(((javax.sip.address.SipURI) ((RecordRouteHeader) it.next()).getAddress().getURI()).getHost());
        }
        return hosts;
    }

    @ParameterizedTest(name = "caller IPv{0} -> carrier IPv{1}")
    @CsvSource({"4, 6", "6, 4", "6, 6"})
    void callsConnectAndEndAcrossAddressFamilies(int callerFamily, int carrierFamily) throws Exception {
        SipAgent caller = callerFamily == 6 ? v6Caller : v4Caller;
        SipAgent carrier = carrierFamily == 6 ? v6Carrier : v4Carrier;
        String gateway = callerFamily == 6 ? "[::1]" : "127.0.0.1";
        SipAgent.Call call = caller.invite(gateway, port, "+" + carrierFamily + "555" + (++calls));
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer");
        assertEquals(200, answer.getStatusCode());
        // The caller's way back into the dialog (the last Record-Route) is of its own family.
        List<String> hosts = recordRouteHosts(answer);
        String callerSide = hosts.get(hosts.size() - 1);
        assertEquals(callerFamily == 6, callerSide.contains(":"), "caller-side Record-Route " + hosts);
        call.ack();
        Response bye = call.bye(WAIT_MS);
        assertNotNull(bye, "no answer to the BYE");
        assertEquals(200, bye.getStatusCode());
        long byes = carrier.received(Request.BYE).stream()
                .filter(r -> ((CallIdHeader) r.request().getHeader(CallIdHeader.NAME)).getCallId().equals(call.callId()))
                .count();
        assertTrue(byes == 1, "BYEs at the carrier: " + byes);
    }
}

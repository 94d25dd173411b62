package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sip.header.ToHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Answers of real carriers that a simple relay gets wrong: a fork's two 2xx, a 487 carrying only our Via. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarrierAnswersTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent forking;
    private SipAgent oddCancel;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.101");
        forking = SipAgent.start("127.0.0.102");
        oddCancel = SipAgent.start("127.0.0.103");
        forking.behave(Behaviour.FORK);
        oddCancel.behave(Behaviour.RING_487_WITH_CANCEL_VIA);
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("answers", port)
                .peer("caller", "127.0.0.101", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("forking", forking, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .carrier("odd-cancel", oddCancel, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+1", "forking")
                .route("+2", "odd-cancel")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(caller, forking, oddCancel).parallel().forEach(SipAgent::close);
    }

    @Test
    void bothAnswersOfAForkReachTheCaller() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+1555");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        Set<String> tags = okTags(call.awaitResponses(responses -> okTags(responses).size() >= 2, WAIT_MS));
        assertEquals(2, tags.size(), "distinct 2xx of the fork at the caller: " + tags);
    }

    @Test
    void a487WithOnlyTheCancelsViaStillReachesTheCaller() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+2555");
        assertTrue(call.awaitResponses(responses -> responses.stream().anyMatch(r -> r.getStatusCode() == 180), WAIT_MS)
                .stream().anyMatch(r -> r.getStatusCode() == 180), "180 relayed");
        call.cancel();
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer after the CANCEL");
        assertEquals(487, answer.getStatusCode());
    }

    private static Set<String> okTags(List<Response> responses) {
        return responses.stream().filter(r -> r.getStatusCode() == 200)
                .map(r -> ((ToHeader) r.getHeader(ToHeader.NAME)).getTag()).collect(Collectors.toSet());
    }
}

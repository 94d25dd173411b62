package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.ManualTime;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The calls refused lately, which copies of their INVITEs are answered from: each kept for the span its caller
 * may retransmit, and never more of them than the bound, however fast they are refused.
 */
class RefusedCallsTest {

    private final ManualTime time = new ManualTime();
    private final CallRegistry calls = new CallRegistry(time::nanoTime);

    private static CallIdentity call(int n) {
        return new CallIdentity("call-" + n + "@192.0.2.1", "tag", 1);
    }

    @Test
    void aRefusedCallIsKnownByItsIdentityForTheSpanOfItsCopiesOnly() {
        calls.refused(call(1), Optional.of("gateway overloaded"));
        calls.refused(call(2), Optional.empty());
        assertEquals(Optional.of("gateway overloaded"), calls.refusedLately(call(1)).flatMap(CallRegistry.Refused::shedReason));
        assertEquals(Optional.empty(), calls.refusedLately(call(2)).flatMap(CallRegistry.Refused::shedReason),
                "refused after parsing: its transaction answers");
        assertTrue(calls.refusedLately(call(2)).isPresent());
        assertTrue(calls.refusedLately(new CallIdentity("call-1@192.0.2.1", "tag", 2)).isEmpty(), "a new CSeq is a new call");
        assertTrue(calls.refusedLately(new CallIdentity("call-1@192.0.2.1", "other", 1)).isEmpty(), "a new From tag too");

        time.advance(CallRegistry.COPY_SPAN.minusMillis(1));
        assertTrue(calls.refusedLately(call(1)).isPresent());
        time.advance(Duration.ofMillis(1));
        assertTrue(calls.refusedLately(call(1)).isEmpty(), "past the span");
    }

    @Test
    void aFloodOfRefusalsKeepsTheNewestUpToTheBound() {
        int flood = CallRegistry.MAX_REFUSED + 1_000;
        for (int n = 0; n < flood; n++) {
            calls.refused(call(n), Optional.of("gateway overloaded"));
        }
        assertTrue(calls.refusedLately(call(999)).isEmpty(), "the oldest are forgotten");
        assertTrue(calls.refusedLately(call(1_000)).isPresent());
        assertTrue(calls.refusedLately(call(flood - 1)).isPresent());
        long kept = java.util.stream.IntStream.range(0, flood).filter(n -> calls.refusedLately(call(n)).isPresent()).count();
        assertEquals(CallRegistry.MAX_REFUSED, kept);
    }
}

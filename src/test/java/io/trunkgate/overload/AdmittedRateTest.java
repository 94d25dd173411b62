package io.trunkgate.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The rate of new calls let in since an overload, driven through {@link OverloadController} on an injected clock. */
class AdmittedRateTest {

    private static final Duration TARGET = Duration.ofMillis(40);
    private static final OverloadSettings SETTINGS = OverloadSettings.of(TARGET, 10_000, 0);
    private static final double DECREASE = SETTINGS.decrease();

    private final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1_000));
    private final OverloadController delay = new OverloadController(() -> SETTINGS, nanos::get);

    /**
     * Offers {@code perSecond} new INVITEs a second for {@code ms}, evenly, while each datagram waits
     * {@code waitMs} for a worker; returns how many were let in.
     */
    private int offer(int perSecond, long ms, long waitMs) {
        long stepNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        long end = nanos.get() + TimeUnit.MILLISECONDS.toNanos(ms);
        int letIn = 0;
        while (nanos.get() < end) {
            delay.messageWaited(waitMs);
            if (delay.shed(0, false, Duration.ZERO).isEmpty()) {
                letIn++;
            }
            nanos.addAndGet(stepNanos);
        }
        return letIn;
    }

    @Test
    void withoutAnOverloadEveryCallIsLetIn() {
        assertEquals(2_000, offer(2_000, 1_000, 10));
        assertEquals(0, delay.newCallsPerSecondLimit(), "not limited");
    }

    @Test
    void anOverloadCutsTheRateToAShareOfWhatWasLetIn() {
        assertEquals(1_000, offer(1_000, 1_000, 10));
        // the waits stand over the target: everything is refused while they do, and the rate is cut once
        assertEquals(0, offer(1_000, 300, 60) - 100, "the first interval's calls were let in before it ended");
        assertEquals(1_000 * DECREASE, delay.newCallsPerSecondLimit(), 1.0);
        // another cut only after the spacing, and from the limit: every call was refused meanwhile, so the hundred
        // let in over the last second say nothing about what the gateway takes
        offer(1_000, 200, 60);
        assertEquals(1_000 * DECREASE, delay.newCallsPerSecondLimit(), 1.0, "not yet");
        offer(1_000, 200, 60);
        double secondCut = delay.newCallsPerSecondLimit();
        assertEquals(1_000 * DECREASE * DECREASE, secondCut, 1.0, "cut again");
        // the waits fall to the target: no growth yet, and the rate holds the offer down to the limit
        int letIn = offer(1_000, 1_000, 30);
        assertEquals(secondCut, delay.newCallsPerSecondLimit(), 0.001, "held between half the target and the target");
        assertTrue(letIn <= secondCut + secondCut / 10 + 1 && letIn >= secondCut - secondCut / 100 - 1,
                "let in " + letIn + " at a limit of " + secondCut);
    }

    @Test
    void aNewOverloadCutsFromWhatWasLetInAgain() {
        assertEquals(1_000, offer(1_000, 1_000, 10));
        offer(1_000, 300, 60);
        assertEquals(1_000 * DECREASE, delay.newCallsPerSecondLimit(), 1.0, "the first overload's cut");
        // the waits fall to the target, and fewer calls come than the limit lets in
        int letIn = offer(400, 1_000, 30);
        assertTrue(letIn > 300 && letIn <= 400, "let in " + letIn);
        // a second overload: cut from what was let in over the last second (give or take its first interval), not
        // from the first overload's limit
        offer(400, 300, 60);
        assertEquals(letIn * DECREASE, delay.newCallsPerSecondLimit(), 40 * DECREASE + 1,
                "the second overload's cut");
    }

    @Test
    void wellUnderTheTargetTheRateGrowsAndIsLiftedAfterTenSecondsWithTheOfferUnderIt() {
        offer(1_000, 1_000, 10);
        offer(1_000, 100, 60);
        offer(1_000, 10, 1);
        double cut = delay.newCallsPerSecondLimit();
        assertEquals(850, cut, 1.0);
        assertTrue(offer(1_000, 1_000, 1) < 1_000, "limited");
        double grown = delay.newCallsPerSecondLimit();
        assertTrue(grown > cut * 1.08 && grown < cut * 1.12, "ten intervals of 1% growth: " + grown);
        int seconds = 0;
        int wholeOffers = 0;
        while (delay.newCallsPerSecondLimit() > 0) {
            assertTrue(++seconds < 30, "still limited after " + seconds + " s");
            wholeOffers = offer(1_000, 1_000, 1) == 1_000 ? wholeOffers + 1 : 0;
        }
        assertTrue(wholeOffers >= 9, "lifted after " + wholeOffers + " s with the whole offer let in");
        assertEquals(1_000, offer(1_000, 1_000, 1), "lifted: the whole offer");
    }

    @Test
    void anOverloadWithFewCallsLetInRefusesWhileItLastsAndSetsNoLimit() {
        delay.messageWaited(60);
        nanos.addAndGet(SETTINGS.interval().toNanos());
        assertEquals(0, offer(10, 1_000, 60), "the waits stand over the target");
        assertEquals(0, delay.newCallsPerSecondLimit(), "ten calls a second did not make the overload");
        offer(10, 1_000, 1);
        assertEquals(10, offer(10, 1_000, 1), "the overload over, and no limit left behind");
        assertFalse(delay.standingWaitMs() > TARGET.toMillis());
    }
}

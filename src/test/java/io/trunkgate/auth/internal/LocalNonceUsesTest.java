package io.trunkgate.auth.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.ManualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The uses a gateway keeps in memory while Redis is away: each refused again while kept, never more than its bound. */
class LocalNonceUsesTest {

    private static final Duration KEEP = Duration.ofSeconds(60);
    private final ManualTime time = new ManualTime();

    private boolean firstUse(LocalNonceUses uses, String nonce, String nc) {
        return uses.firstUse(nonce, nc, KEEP).toCompletableFuture().join();
    }

    @Test
    void aPairIsRefusedWhileKeptAndTakenAgainOnceItLapsed() {
        LocalNonceUses uses = new LocalNonceUses(time.clock(), 10);
        assertTrue(firstUse(uses, "n1", "00000001"));
        assertFalse(firstUse(uses, "n1", "00000001"));
        assertTrue(firstUse(uses, "n1", "00000002"));
        time.advance(KEEP.minusMillis(1));
        assertFalse(firstUse(uses, "n1", "00000001"));
        time.advance(Duration.ofMillis(1));
        assertTrue(firstUse(uses, "n1", "00000001"), "its nonce has long expired: no answer to it gets this far");
    }

    @Test
    void whenFullANewPairIsRefusedRatherThanAnOldOneForgotten() {
        LocalNonceUses uses = new LocalNonceUses(time.clock(), 2);
        assertTrue(firstUse(uses, "n1", "00000001"));
        time.advance(Duration.ofSeconds(1));
        assertTrue(firstUse(uses, "n2", "00000001"));
        assertFalse(firstUse(uses, "n3", "00000001"), "full");
        assertFalse(firstUse(uses, "n1", "00000001"), "still a replay: nothing was forgotten");
        time.advance(KEEP.minusSeconds(1));
        assertTrue(firstUse(uses, "n3", "00000001"), "the oldest lapsed: room again");
        assertFalse(firstUse(uses, "n2", "00000001"));
    }
}

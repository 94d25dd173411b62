package io.trunkgate.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The compiler counts as busy while it compiled for more than a tenth of the last full second. */
class CompilerActivityTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicLong compileMillis = new AtomicLong(5_000);
    private final CompilerActivity compiler = new CompilerActivity(compileMillis::get, nanos::get);

    @Test
    void busyUntilAFullSecondWasMeasured() {
        assertTrue(compiler.busy(), "nothing measured yet");
        advance(999, 0);
        assertTrue(compiler.busy(), "the first second is not over");
        assertTrue(Double.isNaN(compiler.lastShare()));
    }

    @Test
    void busyWhileCompilingTakesMoreThanATenthOfASecond() {
        advance(1_000, 450);
        assertTrue(compiler.busy(), "450 ms of 1,000 compiling");
        assertEquals(0.45, compiler.lastShare(), 1e-9);
        advance(1_000, 101);
        assertTrue(compiler.busy(), "101 ms of 1,000 compiling");
        advance(1_000, 100);
        assertFalse(compiler.busy(), "100 ms of 1,000 compiling");
        advance(500, 400);
        assertFalse(compiler.busy(), "the second under way does not count before it is over");
        advance(500, 0);
        assertTrue(compiler.busy(), "400 ms of the last second compiling");
    }

    @Test
    void compilerThreadsTogetherCanCompileForMoreThanTheSecond() {
        advance(2_000, 3_000);
        assertTrue(compiler.busy());
        assertEquals(1.5, compiler.lastShare(), 1e-9);
    }

    private void advance(long millis, long compiled) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        compileMillis.addAndGet(compiled);
    }
}

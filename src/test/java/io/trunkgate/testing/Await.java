package io.trunkgate.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Waits for a condition a test can only see by asking (an HTTP API, a count, a connection table), where the code
 * offers no event to wait on. Everything else waits on the event itself (a future, a latch, {@link SipAgent}'s
 * monitors).
 */
public final class Await {

    private static final Duration POLL = Duration.ofMillis(20);

    private Await() {
    }

    /** Awaitility asking at once and then every 20 ms, for at most {@code timeout}. */
    public static ConditionFactory atMost(Duration timeout) {
        return Awaitility.await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(POLL);
    }

    /**
     * Reads {@code reading} until {@code wanted} holds and returns that reading, or the last one when
     * {@code timeout} passed first, so that the caller's assertion shows what it saw.
     */
    public static <T> T until(Duration timeout, Callable<T> reading, Predicate<? super T> wanted) {
        AtomicReference<T> last = new AtomicReference<>();
        try {
            return atMost(timeout).until(() -> {
                T value = reading.call();
                last.set(value);
                return value;
            }, wanted);
        } catch (ConditionTimeoutException notInTime) {
            return last.get();
        }
    }
}

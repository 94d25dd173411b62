package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.Transport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The idle timeout on a manual clock: the channel's scheduler and the handler's clock move together. */
class IdleTimeoutTest {

    private static final Duration IDLE = Duration.ofSeconds(120);

    private final AtomicLong nanos = new AtomicLong();
    private final EmbeddedChannel channel;

    IdleTimeoutTest() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(new IdleTimeout(IDLE, Transport.TCP, nanos::get));
    }

    private void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
        channel.advanceTimeBy(by.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aConnectionOnWhichNothingArrivesIsClosedAtTheIdleTimeoutNotBefore() {
        advance(IDLE.minusMillis(1));
        assertTrue(channel.isOpen());
        advance(Duration.ofMillis(1));
        assertFalse(channel.isOpen());
    }

    @Test
    void anyByteReceivedPutsTheTimeoutOff() {
        advance(Duration.ofSeconds(100));
        channel.writeInbound(Messages.buffer("\r\n\r\n"));
        advance(Duration.ofSeconds(100));
        assertTrue(channel.isOpen(), "200 s after the start, 100 s after the last byte");
        advance(Duration.ofSeconds(20));
        assertFalse(channel.isOpen());
    }
}

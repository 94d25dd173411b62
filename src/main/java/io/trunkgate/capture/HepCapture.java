package io.trunkgate.capture;

import io.trunkgate.capture.internal.Captured;
import io.trunkgate.capture.internal.CollectorLink;
import io.trunkgate.capture.internal.CollectorLinks;
import io.trunkgate.capture.internal.HepEncoder;
import io.trunkgate.capture.internal.Sender;
import io.trunkgate.config.CaptureSettings;
import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * SIP capture to a Homer collector (HEP version 3, over UDP or TCP): each message is put in a bounded queue, from
 * which a thread of its own encodes and sends. A message that finds the queue full (the collector is slow, or down
 * and being connected to again) is dropped and counted, never waited for. Messages are taken from {@link #open()}
 * on, so a gateway's warm-up calls are not captured. The sender has a thread of the executor it is given to itself,
 * from start to close.
 */
public final class HepCapture implements Capture, AutoCloseable {

    /** Dropped because the queue was full: the collector is slower than the traffic, or down. */
    public static final String QUEUE_FULL = "queue_full";
    /** Lost as sending it failed (a TCP connection broke, say): the link is opened again. */
    public static final String SEND_FAILED = "send_failed";
    /** Not sent: its HEP packet would be over the largest UDP datagram (65,507 bytes). */
    public static final String TOO_LARGE = "too_large";
    public static final List<String> DROP_REASONS = List.of(QUEUE_FULL, SEND_FAILED, TOO_LARGE);

    private static final Duration RETRY = Duration.ofSeconds(1);

    private final ArrayBlockingQueue<Captured> queue;
    private final Sender sender;
    private final Future<?> sending;
    private final LongAdder queueFull = new LongAdder();
    private volatile boolean open;

    private HepCapture(CaptureSettings settings, CollectorLink.Connector connector, Duration retry,
                       ExecutorService thread) {
        queue = new ArrayBlockingQueue<>(settings.queueSize());
        String collector = settings.host() + ":" + settings.port() + "/"
                + settings.transport().name().toLowerCase(Locale.ROOT);
        sender = new Sender(queue, connector, new HepEncoder(settings.captureId(), settings.password()), retry,
                collector);
        sending = thread.submit(sender);
    }

    /**
     * Starts connecting to the collector {@code settings} names, on a thread of {@code thread} it keeps until closed;
     * messages are taken once {@link #open()}ed.
     */
    public static HepCapture start(CaptureSettings settings, ExecutorService thread) {
        return new HepCapture(settings, CollectorLinks.connector(settings), RETRY, thread);
    }

    /**
     * As {@link #start(CaptureSettings, ExecutorService)}, over the links {@code connector} opens, trying again every
     * {@code retry}.
     */
    static HepCapture start(CaptureSettings settings, CollectorLink.Connector connector, Duration retry,
                            ExecutorService thread) {
        return new HepCapture(settings, connector, retry, thread);
    }

    /** Takes messages from now on. */
    public void open() {
        open = true;
    }

    @Override
    public boolean on() {
        return open;
    }

    @Override
    public void message(byte[] bytes, int offset, int length, InetSocketAddress source, InetSocketAddress destination,
                        Transport transport, long epochMicros) {
        if (open && !queue.offer(new Captured(bytes, offset, length, source, destination, transport, epochMicros))) {
            queueFull.increment();
        }
    }

    /** Messages sent to the collector. */
    public long sent() {
        return sender.sent();
    }

    /** Messages dropped for {@code reason}, one of {@link #DROP_REASONS}. */
    public long dropped(String reason) {
        return switch (reason) {
            case QUEUE_FULL -> queueFull.sum();
            case SEND_FAILED -> sender.sendFailed();
            case TOO_LARGE -> sender.tooLarge();
            default -> throw new IllegalArgumentException("no drop reason " + reason);
        };
    }

    /** Whether the sender has a link to the collector open. */
    public boolean connected() {
        return sender.connected();
    }

    /** Messages waiting to be sent. */
    public int queued() {
        return queue.size();
    }

    /** Stops the sender, which closes its link as it ends; what is still queued is not sent. */
    @Override
    public void close() {
        open = false;
        sender.stop();
        sending.cancel(true);
    }
}

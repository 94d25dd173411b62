package io.trunkgate.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.encoder.Encoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's console log (logback.xml): events are encoded and written to stdout by a thread of its own, a batch
 * at a time, each batch in one write, at most {@link #LINGER} after its first event. It replaces logback's
 * AsyncAppender in front of a ConsoleAppender, which woke its thread for every event and wrote every line with a
 * system call of its own: with a line per call (logger {@code trunkgate.calls}) that was about 5% of the
 * gateway's CPU at 400 calls/s, the wake-up on the call's own thread. Like that AsyncAppender (neverBlock), an
 * event that finds {@code queueSize} events waiting is dropped rather than holding up the thread logging it; the
 * batch written next says how many were.
 */
public final class BatchingConsoleAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

    /** How long a batch waits after its first event for others. */
    static final Duration LINGER = Duration.ofMillis(100);

    private final OutputStream out;
    private Encoder<ILoggingEvent> encoder;
    private int queueSize = 8192;
    private final AtomicLong dropped = new AtomicLong();
    private ScheduledThreadPoolExecutor thread;
    private BatchWriter<ILoggingEvent> batches;
    /** A batch's bytes, kept from batch to batch (the writer thread's only): grown once, to the largest batch. */
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);

    /** To stdout. */
    public BatchingConsoleAppender() {
        this(System.out);
    }

    BatchingConsoleAppender(OutputStream out) {
        this.out = out;
    }

    public void setEncoder(Encoder<ILoggingEvent> encoder) {
        this.encoder = encoder;
    }

    /** Events that may wait for the writer at most. */
    public void setQueueSize(int queueSize) {
        this.queueSize = queueSize;
    }

    @Override
    public void start() {
        if (encoder == null) {
            addError("no encoder for appender " + name);
            return;
        }
        thread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread writer = new Thread(runnable, "log-writer");
            writer.setDaemon(true);
            return writer;
        });
        batches = new BatchWriter<>(thread, LINGER, queueSize, this::write);
        super.start();
    }

    @Override
    protected void append(ILoggingEvent event) {
        // the message formatted, the thread's name and MDC taken now, as the thread that logs it still has them
        event.prepareForDeferredProcessing();
        if (!batches.offer(event)) {
            dropped.incrementAndGet();
        }
    }

    private void write(List<ILoggingEvent> batch) {
        bytes.reset();
        for (ILoggingEvent event : batch) {
            bytes.writeBytes(encoder.encode(event));
        }
        // dropped after those of the batch were queued (and before it was taken)
        long lost = dropped.getAndSet(0);
        if (lost > 0) {
            bytes.writeBytes((lost + " log lines dropped: more than " + queueSize + " were waiting to be written"
                    + System.lineSeparator()).getBytes(StandardCharsets.UTF_8));
        }
        try {
            bytes.writeTo(out);
            out.flush();
        } catch (IOException e) {
            addError("cannot write the log", e);
        }
    }

    /** Writes what is waiting, then stops the writer thread. */
    @Override
    public void stop() {
        if (!isStarted()) {
            return;
        }
        super.stop();
        batches.close();
        thread.shutdown();
    }
}

package io.trunkgate.capture.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture's one thread: takes the queued messages in order, encodes each and sends it. Without a link to the
 * collector it opens one, every {@code retry} until that works, taking nothing from the queue meanwhile (so the
 * queue fills, and what does not fit is dropped by those who queue). A packet whose sending fails is lost: the link
 * is closed and another opened.
 */
public final class Sender implements Runnable {

    private static final Logger log = LoggerFactory.getLogger("io.trunkgate.capture");

    private final BlockingQueue<Captured> queue;
    private final CollectorLink.Connector connector;
    private final HepEncoder encoder;
    private final Duration retry;
    private final String collector;
    private final LongAdder sent = new LongAdder();
    private final LongAdder sendFailed = new LongAdder();
    private final LongAdder tooLarge = new LongAdder();
    private volatile boolean connected;
    private volatile boolean running = true;
    /** Whether the collector's loss was logged, so an outage is logged once and its end once. */
    private boolean lossLogged;
    private CollectorLink link;

    public Sender(BlockingQueue<Captured> queue, CollectorLink.Connector connector, HepEncoder encoder,
                  Duration retry, String collector) {
        this.queue = queue;
        this.connector = connector;
        this.encoder = encoder;
        this.retry = retry;
        this.collector = collector;
    }

    @Override
    public void run() {
        try {
            while (running) {
                if (link == null) {
                    connect();
                } else {
                    send(queue.take());
                }
            }
        } catch (InterruptedException e) {
            // stopped
        } finally {
            closeLink();
        }
    }

    /** Ends {@link #run()} once the thread running it is interrupted. */
    public void stop() {
        running = false;
    }

    private void connect() throws InterruptedException {
        try {
            link = connector.open();
            connected = true;
            log.info("SIP capture: sending HEP to {}", collector);
            lossLogged = false;
        } catch (IOException e) {
            if (!running) {
                return;
            }
            lost("cannot reach the collector " + collector + ": " + e.getMessage() + "; trying again every "
                    + retry.toMillis() + " ms, messages that do not fit in the queue meanwhile are dropped");
            Thread.sleep(retry.toMillis());
        }
    }

    private void send(Captured message) {
        Optional<ByteBuffer> packet = encoder.encode(message);
        if (packet.isEmpty()) {
            tooLarge.increment();
            return;
        }
        try {
            link.send(packet.get());
            sent.increment();
        } catch (IOException e) {
            if (!running) {
                return;
            }
            sendFailed.increment();
            closeLink();
            lost("sending to the collector " + collector + " failed: " + e.getMessage() + "; connecting again");
        }
    }

    private void lost(String why) {
        connected = false;
        if (!lossLogged) {
            log.warn("SIP capture: {}", why);
            lossLogged = true;
        }
    }

    private void closeLink() {
        if (link != null) {
            link.close();
            link = null;
        }
        connected = false;
    }

    public long sent() {
        return sent.sum();
    }

    /** Messages lost because sending them failed. */
    public long sendFailed() {
        return sendFailed.sum();
    }

    /** Messages not sent because their packet would be over {@link HepEncoder#MAX_PACKET}. */
    public long tooLarge() {
        return tooLarge.sum();
    }

    /** Whether a link to the collector is open (for TCP: connected, as far as the last packet showed). */
    public boolean connected() {
        return connected;
    }
}

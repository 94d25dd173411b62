package io.trunkgate.sip.transport;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.slf4j.event.Level;

/**
 * The queue between a UDP listener and JAIN-SIP's worker threads, split into one lane per worker by Call-ID, so
 * that every datagram of a call is handled by one thread in the order it arrived. With one shared queue two
 * workers take a 180 and a 183 (or a 180 and the 200 right behind it) and relay them in either order: RFC 3261
 * §16.7 wants a transaction's responses forwarded in the order received, and a 180 after the 200 is lost. TCP
 * messages are kept in order by a {@link PerCallSequencer}.
 *
 * <p>Each worker thread owns the lane it first takes from. A datagram that waited longer than {@code maxAge} is
 * dropped unread (its sender has retransmitted it by now); this replaces JAIN-SIP's congestion auditor, which
 * watches the stack's own queue. Only the operations JAIN-SIP's UDP path uses are supported.
 */
final class PerCallDatagramQueue extends AbstractQueue<DatagramQueuedMessageDispatch>
        implements BlockingQueue<DatagramQueuedMessageDispatch> {

    private final List<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> lanes;
    private final AtomicInteger lanesTaken = new AtomicInteger();
    private final ThreadLocal<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> ownLane;
    private final long maxAgeMs;
    private final LongSupplier clockMs;
    private final QueueDelay delay;
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param workers  the number of threads that will take from this queue (each needs a lane of its own)
     * @param maxAgeMs how long a datagram may wait; 0 or less keeps every datagram
     * @param clockMs  the clock {@link DatagramQueuedMessageDispatch#getReceptionTime()} was read from
     * @param delay    told how long each datagram waited
     */
    PerCallDatagramQueue(int workers, long maxAgeMs, LongSupplier clockMs, QueueDelay delay) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1: " + workers);
        }
        this.lanes = IntStream.range(0, workers).mapToObj(i -> new LinkedBlockingQueue<DatagramQueuedMessageDispatch>())
                .toList();
        this.maxAgeMs = maxAgeMs;
        this.clockMs = clockMs;
        this.delay = delay;
        this.ownLane = ThreadLocal.withInitial(() -> {
            int lane = lanesTaken.getAndIncrement();
            if (lane >= workers) {
                throw new IllegalStateException("more UDP worker threads than the " + workers + " lanes");
            }
            return lanes.get(lane);
        });
    }

    /** Datagrams dropped because they waited longer than the maximum age. */
    long dropped() {
        return dropped.get();
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message) {
        return lanes.get(Math.floorMod(CallIdHash.of(message.packet), lanes.size())).offer(message);
    }

    @Override
    public void put(DatagramQueuedMessageDispatch message) {
        offer(message);
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message, long timeout, TimeUnit unit) {
        return offer(message);
    }

    @Override
    public DatagramQueuedMessageDispatch take() throws InterruptedException {
        LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane = ownLane.get();
        while (true) {
            DatagramQueuedMessageDispatch message = lane.take();
            if (fresh(message)) {
                return message;
            }
        }
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane = ownLane.get();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            DatagramQueuedMessageDispatch message = lane.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (message == null || fresh(message)) {
                return message;
            }
        }
    }

    private boolean fresh(DatagramQueuedMessageDispatch message) {
        long waitedMs = clockMs.getAsLong() - message.getReceptionTime();
        delay.record(waitedMs);
        if (maxAgeMs > 0 && waitedMs > maxAgeMs) {
            GuardedTransports.LOG.log(Level.WARN, "datagram from " + message.packet.getSocketAddress()
                    + " dropped unread: it waited over " + maxAgeMs + " ms for a worker (" + dropped.incrementAndGet()
                    + " so far)");
            return false;
        }
        return true;
    }

    @Override
    public DatagramQueuedMessageDispatch poll() {
        return ownLane.get().poll();
    }

    @Override
    public DatagramQueuedMessageDispatch peek() {
        return ownLane.get().peek();
    }

    @Override
    public int size() {
        return lanes.stream().mapToInt(LinkedBlockingQueue::size).sum();
    }

    @Override
    public boolean isEmpty() {
        return lanes.stream().allMatch(LinkedBlockingQueue::isEmpty);
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public Iterator<DatagramQueuedMessageDispatch> iterator() {
        throw new UnsupportedOperationException("a per-call datagram queue is only offered to and taken from");
    }

    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink) {
        throw new UnsupportedOperationException("a per-call datagram queue is only offered to and taken from");
    }

    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink, int maxElements) {
        throw new UnsupportedOperationException("a per-call datagram queue is only offered to and taken from");
    }

    /** The hash of a datagram's Call-ID, read from the raw bytes before JAIN-SIP parses them. */
    static final class CallIdHash {

        private CallIdHash() {
        }

        /** The Call-ID's hash, or the sender's when the datagram has no Call-ID header (junk, keep-alives). */
        static int of(DatagramPacket packet) {
            byte[] data = packet.getData();
            int end = packet.getOffset() + packet.getLength();
            int line = nextLine(data, packet.getOffset(), end); // skip the request or status line
            while (line < end && data[line] != '\r' && data[line] != '\n') {
                int value = valueOfCallId(data, line, end);
                if (value >= 0) {
                    return hashValue(data, value, end);
                }
                line = nextLine(data, line, end);
            }
            return packet.getSocketAddress() == null ? 0 : packet.getSocketAddress().hashCode();
        }

        private static int nextLine(byte[] data, int from, int end) {
            int i = from;
            while (i < end && data[i] != '\n') {
                i++;
            }
            return i + 1;
        }

        /** Where the value starts when the line at {@code start} is a Call-ID header ("Call-ID" or "i"), else -1. */
        private static int valueOfCallId(byte[] data, int start, int end) {
            int i = start;
            if (matches(data, i, end, "call-id")) {
                i += "call-id".length();
            } else if (i < end && (data[i] | 0x20) == 'i') {
                i++;
            } else {
                return -1;
            }
            while (i < end && (data[i] == ' ' || data[i] == '\t')) {
                i++;
            }
            if (i >= end || data[i] != ':') {
                return -1;
            }
            i++;
            while (i < end && (data[i] == ' ' || data[i] == '\t')) {
                i++;
            }
            return i;
        }

        private static boolean matches(byte[] data, int at, int end, String lowerName) {
            if (at + lowerName.length() > end) {
                return false;
            }
            for (int k = 0; k < lowerName.length(); k++) {
                if ((data[at + k] | 0x20) != lowerName.charAt(k)) {
                    return false;
                }
            }
            return true;
        }

        private static int hashValue(byte[] data, int from, int end) {
            int hash = 1;
            int last = from;
            for (int i = from; i < end && data[i] != '\r' && data[i] != '\n'; i++) {
                if (data[i] != ' ' && data[i] != '\t') {
                    last = i + 1;
                }
            }
            for (int i = from; i < last; i++) {
                hash = 31 * hash + data[i];
            }
            return hash;
        }
    }
}

package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.sip.wire.NewCallTriage;
import io.trunkgate.sip.wire.SipHead;
import java.net.DatagramPacket;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
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
 * watches the stack's own queue. A new INVITE is dropped after T1 (500 ms) already: its caller has sent it again,
 * and the copy may have been shed meanwhile by the {@link NewCallTriage}, which answers the new calls the gateway
 * sheds before they reach a lane (one taken sooner whose copy was shed all the same is dropped by the proxy once
 * parsed). Only the operations JAIN-SIP's UDP path uses are supported, and only the listener's receive loop
 * offers, each datagram with the {@link SipHead} it read.
 */
final class PerCallDatagramQueue extends AbstractQueue<DatagramQueuedMessageDispatch>
        implements BlockingQueue<DatagramQueuedMessageDispatch> {

    /** T1 (RFC 3261 §17.1.1.1): a caller that heard nothing sends its INVITE again after this long. */
    private static final long RETRANSMIT_INTERVAL_MS = 500;

    private final List<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> lanes;
    private final AtomicInteger lanesTaken = new AtomicInteger();
    private final ThreadLocal<Lane> ownLane;
    /** Datagrams offered and not yet done with: queued, or taken by a worker that has not come back for more. */
    private final AtomicInteger unfinished = new AtomicInteger();
    private final long maxAgeMs;
    private final LongSupplier clockMs;
    private final LongConsumer waited;
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param workers  the number of threads that will take from this queue (each needs a lane of its own)
     * @param maxAgeMs how long a datagram may wait; 0 or less keeps every datagram
     * @param clockMs  the clock {@link DatagramQueuedMessageDispatch#getReceptionTime()} was read from
     * @param waited   told how long each datagram waited, in milliseconds (overload control's signal)
     */
    PerCallDatagramQueue(int workers, long maxAgeMs, LongSupplier clockMs, LongConsumer waited) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1: " + workers);
        }
        this.lanes = IntStream.range(0, workers).mapToObj(i -> new LinkedBlockingQueue<DatagramQueuedMessageDispatch>())
                .toList();
        this.maxAgeMs = maxAgeMs;
        this.clockMs = clockMs;
        this.waited = waited;
        this.ownLane = ThreadLocal.withInitial(() -> {
            int lane = lanesTaken.getAndIncrement();
            if (lane >= workers) {
                throw new IllegalStateException("more UDP worker threads than the " + workers + " lanes");
            }
            return new Lane(lanes.get(lane));
        });
    }

    /** Datagrams dropped because they waited longer than the maximum age. */
    long dropped() {
        return dropped.get();
    }

    /**
     * Whether no worker has a datagram of this queue to handle: none is queued, and every worker that took one has
     * come back for the next. Read by the thread that offers, it stays true until that thread offers again.
     */
    boolean idle() {
        return unfinished.get() == 0;
    }

    /** A datagram the receive loop read, with its head. */
    static final class Received extends DatagramQueuedMessageDispatch {
        final SipHead head;

        Received(DatagramPacket packet, long receivedAtMs, SipHead head) {
            super(packet, receivedAtMs);
            this.head = head;
        }
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message) {
        if (!(message instanceof Received received)) {
            throw new IllegalArgumentException("only the receive loop offers datagrams, with their heads");
        }
        unfinished.incrementAndGet();
        return lanes.get(lane(received.head, received.packet.getSocketAddress())).offer(received);
    }

    /**
     * How long the oldest datagram in the lane a datagram with {@code head} from {@code source} would join has
     * waited: the least it would wait itself.
     */
    Duration waitAhead(SipHead head, SocketAddress source) {
        DatagramQueuedMessageDispatch oldest = lanes.get(lane(head, source)).peek();
        return oldest == null ? Duration.ZERO
                : Duration.ofMillis(Math.max(0, clockMs.getAsLong() - oldest.getReceptionTime()));
    }

    /** The lane of a datagram: by its Call-ID, or by its sender when it has none (junk, keep-alives). */
    int lane(SipHead head, SocketAddress source) {
        return Math.floorMod(head.callIdHash(source == null ? 0 : source.hashCode()), lanes.size());
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
        Lane lane = ownLane.get();
        lane.finished();
        while (true) {
            DatagramQueuedMessageDispatch message = lane.queue.take();
            if (lane.keeps(message)) {
                return message;
            }
        }
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        Lane lane = ownLane.get();
        lane.finished();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            DatagramQueuedMessageDispatch message = lane.queue.poll(deadline - System.nanoTime(),
                    TimeUnit.NANOSECONDS);
            if (message == null || lane.keeps(message)) {
                return message;
            }
        }
    }

    private boolean fresh(DatagramQueuedMessageDispatch message) {
        long waitedMs = clockMs.getAsLong() - message.getReceptionTime();
        waited.accept(waitedMs);
        long limitMs = maxAgeMs;
        if (waitedMs > RETRANSMIT_INTERVAL_MS && ((Received) message).head.isNewInvite()) {
            limitMs = limitMs > 0 ? Math.min(limitMs, RETRANSMIT_INTERVAL_MS) : RETRANSMIT_INTERVAL_MS;
        }
        if (limitMs > 0 && waitedMs > limitMs) {
            long count = dropped.incrementAndGet();
            if (!WarmUpSettings.ADDRESS.equals(message.packet.getAddress())) {
                TransportProperties.LOG.log(Level.WARN, "datagram from " + message.packet.getSocketAddress()
                        + " dropped unread: it waited over " + limitMs + " ms for a worker (" + count + " so far)");
            }
            return false;
        }
        return true;
    }

    @Override
    public DatagramQueuedMessageDispatch poll() {
        throw new UnsupportedOperationException("a per-call datagram queue is only offered to and taken from");
    }

    @Override
    public DatagramQueuedMessageDispatch peek() {
        throw new UnsupportedOperationException("a per-call datagram queue is only offered to and taken from");
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

    /** A worker's lane, and whether the worker is still handling the datagram it took last. */
    private final class Lane {
        final LinkedBlockingQueue<DatagramQueuedMessageDispatch> queue;
        /** Read and written by the lane's worker only. */
        boolean holding;

        Lane(LinkedBlockingQueue<DatagramQueuedMessageDispatch> queue) {
            this.queue = queue;
        }

        /** Whether the worker is to handle a datagram it took: a stale one is done with at once. */
        boolean keeps(DatagramQueuedMessageDispatch message) {
            if (fresh(message)) {
                holding = true;
                return true;
            }
            unfinished.decrementAndGet();
            return false;
        }

        /** The worker came back for more: the datagram it took last is handled. */
        void finished() {
            if (holding) {
                holding = false;
                unfinished.decrementAndGet();
            }
        }
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
}

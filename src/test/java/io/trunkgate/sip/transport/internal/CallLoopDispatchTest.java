package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The hand-off to the call's loop, with real loops (the messages come from an embedded channel's thread). */
class CallLoopDispatchTest {

    private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(4);
    private final AtomicLong nanos = new AtomicLong(Duration.ofHours(1).toNanos());
    private final CallLoops loops = new CallLoops(group, nanos::get);
    private final LinkedBlockingQueue<Delivered> delivered = new LinkedBlockingQueue<>();
    private final List<Long> waits = new ArrayList<>();
    private final CallLoopDispatch dispatch = new CallLoopDispatch(loops,
            message -> delivered.add(new Delivered(message, Thread.currentThread())),
            ms -> {
                synchronized (waits) {
                    waits.add(ms);
                }
            }, nanos::get);
    private final EmbeddedChannel channel = new EmbeddedChannel(dispatch);

    private record Delivered(InboundMessage message, Thread thread) {
    }

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Delivered next() throws InterruptedException {
        Delivered next = delivered.poll(10, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("nothing delivered");
        }
        return next;
    }

    @Test
    void everyMessageOfACallIsDeliveredOnItsLoopInOrder() throws Exception {
        Set<Thread> threadsOfCalls = ConcurrentHashMap.newKeySet();
        for (int call = 0; call < 20; call++) {
            String callId = "call-" + call + "@example.com";
            EventLoop loop = loops.loopFor(callId);
            for (int cseq = 1; cseq <= 5; cseq++) {
                channel.writeInbound(Messages.received(Messages.bye(callId, cseq), Transport.UDP, nanos.get()));
            }
            for (int cseq = 1; cseq <= 5; cseq++) {
                Delivered message = next();
                assertEquals(callId, message.message().head().callId());
                assertEquals(cseq, message.message().head().cseq(), "in the order received");
                assertTrue(loop.inEventLoop(message.thread()), "on the call's loop");
                threadsOfCalls.add(message.thread());
            }
        }
        assertEquals(4, threadsOfCalls.size(), "20 calls spread over the 4 loops");
    }

    @Test
    void theWaitForTheLoopGoesToOverloadControl() throws Exception {
        long readAt = nanos.get();
        nanos.addAndGet(Duration.ofMillis(70).toNanos());
        channel.writeInbound(Messages.received(Messages.bye("call-w", 2), Transport.TCP, readAt));
        next();
        synchronized (waits) {
            assertEquals(List.of(70L), waits);
        }
    }

    @Test
    void aNewInviteOverUdpThatWaitedOverT1IsDroppedButNotOverTcpNorOtherRequests() throws Exception {
        long readAt = nanos.get();
        nanos.addAndGet(Duration.ofMillis(501).toNanos());
        channel.writeInbound(Messages.received(Messages.invite("stale-udp"), Transport.UDP, readAt),
                Messages.received(Messages.invite("stale-tcp"), Transport.TCP, readAt),
                Messages.received(Messages.bye("stale-bye", 2), Transport.UDP, readAt));
        List<String> callIds = new ArrayList<>();
        callIds.add(next().message().head().callId());
        callIds.add(next().message().head().callId());
        assertTrue(callIds.containsAll(List.of("stale-tcp", "stale-bye")), callIds.toString());
        assertEquals(1, dispatch.dropped());
    }

    @Test
    void aNewCallIsToldHowLongWhatIsAheadOfItOnItsLoopHasWaited() throws Exception {
        String callId = "held";
        EventLoop loop = loops.loopFor(callId);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(1);
        loop.execute(() -> {
            holding.countDown();
            try {
                held.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        holding.await();
        channel.writeInbound(Messages.received(Messages.bye(callId, 2), Transport.UDP, nanos.get()));
        nanos.addAndGet(Duration.ofMillis(250).toNanos());
        assertEquals(Duration.ofMillis(250), loops.waitAhead(callId, Messages.CALLER));
        held.countDown();
        assertEquals(callId, next().message().head().callId());
        assertEquals(Duration.ZERO, loops.waitAhead(callId, Messages.CALLER));
    }
}

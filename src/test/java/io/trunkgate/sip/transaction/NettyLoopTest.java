package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The layer on real Netty event loops: a Call-ID's work and timers run on its loop's thread. */
class NettyLoopTest {

    private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(2);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void oneSchedulerPerLoopAndItRunsTasksAndTimersOnTheLoopsThread() throws Exception {
        EventLoop loop = group.next();
        Function<String, Scheduler> loopFor = Scheduler.perLoop(callId -> loop);
        Scheduler scheduler = loopFor.apply("a");
        assertSame(scheduler, loopFor.apply("b"));
        assertFalse(scheduler.inLoop());

        CompletableFuture<Boolean> ran = new CompletableFuture<>();
        scheduler.execute(() -> ran.complete(scheduler.inLoop()));
        assertTrue(ran.get(10, TimeUnit.SECONDS));

        CountDownLatch fired = new CountDownLatch(1);
        Scheduler.Timer cancelled = scheduler.schedule(() -> fired.countDown(), TimeUnit.MILLISECONDS.toNanos(5));
        cancelled.cancel();
        scheduler.schedule(fired::countDown, TimeUnit.MILLISECONDS.toNanos(5));
        assertTrue(fired.await(10, TimeUnit.SECONDS));
    }

    @Test
    void anInviteSentFromTheTestThreadIsRetransmittedAndTimesOutOnItsLoop() throws Exception {
        EventLoop loop = group.next();
        List<String> threads = new CopyOnWriteArrayList<>();
        CompletableFuture<ClientTimeout> timedOut = new CompletableFuture<>();
        TransactionTimers fast = new TransactionTimers(Duration.ofMillis(10), Duration.ofMillis(40),
                Duration.ofMillis(50), Duration.ofSeconds(10), Duration.ofMillis(320));
        TransactionLayer layer = TransactionLayer.create((message, to) -> {
            threads.add(Thread.currentThread().getName());
            return CompletableFuture.completedFuture(null);
        }, Scheduler.perLoop(callId -> loop), fast, null, null);
        Request invite = SipText.invite("z9hG4bK-netty-1", "UDP");

        layer.send(invite, SipText.CARRIER_UDP, new ClientListener() {
            @Override
            public void provisional(ClientTransaction transaction, Response response) {
            }

            @Override
            public void finalResponse(ClientTransaction transaction, Response response) {
            }

            @Override
            public void timeout(ClientTransaction transaction, ClientTimeout timer) {
                threads.add(Thread.currentThread().getName());
                timedOut.complete(timer);
            }

            @Override
            public void transportError(ClientTransaction transaction, Throwable cause) {
                timedOut.completeExceptionally(cause);
            }
        });

        assertEquals(ClientTimeout.TIMER_B, timedOut.get(10, TimeUnit.SECONDS));
        // copies at 0, 10, 30, 70, 150, 310 and 630 ms, the timeout at 640: how many made it depends on the box's load
        assertTrue(threads.size() >= 3, threads.toString());
        assertEquals(1, threads.stream().distinct().count(), "every send and the timeout on the Call-ID's loop");
        assertFalse(threads.get(0).equals(Thread.currentThread().getName()));
        assertEquals(0, layer.size());
    }
}

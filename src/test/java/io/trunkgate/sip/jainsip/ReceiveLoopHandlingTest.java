package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.SipSockets;
import io.trunkgate.config.SipSettings;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.sip.wire.SipHead;
import io.trunkgate.testing.TestConfigs;
import java.lang.reflect.Proxy;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sip.SipListener;
import org.junit.jupiter.api.Test;

/**
 * Which thread of a real JAIN-SIP stack handles a datagram. An idle UDP listener handles a request on its receive
 * loop, with no worker to wake; a request that may be relayed to a host name, which JAIN-SIP resolves on the
 * sending thread, goes to a worker.
 * While a worker holds a datagram, whatever comes next waits in the lanes behind it, so a call's messages keep
 * their order.
 */
class ReceiveLoopHandlingTest {

    private static final String RECEIVE_LOOP = "MessageProcessorThread";
    private static final String WORKER = "UDPMessageChannelThread";

    @Test
    void anIdleListenerHandlesRequestsOnItsReceiveLoop() throws Exception {
        try (Listener listener = new Listener()) {
            // the loop's meter reads a clock that stands still: it is idle whatever else runs on the machine (how
            // busy a loop may be to keep handling is ReceiveLoopTest's)
            listener.send(SipSockets.invite("UDP", SipSockets.GW, listener.caller.getLocalPort(), listener.port));
            assertTrue(listener.handledBy().startsWith(RECEIVE_LOOP));
            listener.send(bye(listener, SipSockets.GW));
            assertTrue(listener.handledBy().startsWith(RECEIVE_LOOP));
        }
    }

    @Test
    void aRequestThatMayBeRelayedToAHostNameGoesToAWorker() throws Exception {
        try (Listener listener = new Listener()) {
            listener.send(bye(listener, "carrier.invalid"));
            assertTrue(listener.handledBy().contains(WORKER));
        }
    }

    @Test
    void whileAWorkerHandlesADatagramTheNextOneGoesToAWorkerToo() throws Exception {
        try (Listener listener = new Listener()) {
            listener.holdNext = true;
            String bye = bye(listener, "carrier.invalid");
            listener.send(bye);
            assertTrue(listener.handledBy().contains(WORKER));
            // the BYE is held in its worker until the end: the INVITE must not be handled beside it on the loop,
            // and it goes to another worker's lane, or it would wait behind the BYE
            String invite;
            do {
                invite = SipSockets.invite("UDP", SipSockets.GW, listener.caller.getLocalPort(), listener.port);
            } while (listener.lane(invite) == listener.lane(bye));
            listener.send(invite);
            assertTrue(listener.handledBy().contains(WORKER));
        }
    }

    /** A BYE whose Request-URI names {@code host}. */
    private static String bye(Listener listener, String host) {
        return SipSockets.invite("UDP", SipSockets.GW, listener.caller.getLocalPort(), listener.port)
                .replace("INVITE sip:+15550001@" + SipSockets.GW, "BYE sip:+15550001@" + host)
                .replace("CSeq: 1 INVITE", "CSeq: 2 BYE")
                .replace("To: <sip:+15550001@" + SipSockets.GW + ">", "To: <sip:+15550001@" + SipSockets.GW
                        + ">;tag=callee");
    }

    /** A stack on a free port whose one listener notes the thread each request is handled on. */
    private static final class Listener implements AutoCloseable {
        final int port = SipSockets.freePort();
        final SipStackFactory.Stack stack;
        final DatagramSocket caller = new DatagramSocket(new InetSocketAddress(SipSockets.GW, 0));
        final BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        /** Holds the next request in the listener until the test ends. */
        volatile boolean holdNext;
        private final CountDownLatch end = new CountDownLatch(1);
        private final int workers;

        Listener() throws Exception {
            SipSettings sip = TestConfigs.onSharedRedis("receive-loop", port).build().sip();
            workers = sip.workerThreads();
            stack = SipStackFactory.create("receive-loop-" + port, sip, new OverloadController(
                    () -> OverloadSettings.of(sip.overloadDelay(), sip.maxCallsInProgress(), 0), () -> 0L));
            // only requests matter here: every other event is ignored
            stack.providers().get(0).addSipListener((SipListener) Proxy.newProxyInstance(
                    SipListener.class.getClassLoader(), new Class<?>[] {SipListener.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "processRequest" -> {
                            processRequest();
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        case "toString" -> "receive-loop test listener";
                        default -> null;
                    }));
        }

        /** The worker lane a message goes to, as {@link PerCallDatagramQueue#lane} picks it. */
        int lane(String message) {
            byte[] bytes = message.getBytes(StandardCharsets.US_ASCII);
            return Math.floorMod(SipHead.read(bytes, 0, bytes.length).callIdHash(0), workers);
        }

        void send(String message) throws Exception {
            byte[] bytes = message.getBytes(StandardCharsets.US_ASCII);
            caller.send(new DatagramPacket(bytes, bytes.length, new InetSocketAddress(SipSockets.GW, port)));
        }

        String handledBy() throws InterruptedException {
            String thread = threads.poll(30, TimeUnit.SECONDS);
            assertNotNull(thread, "the request never reached the listener");
            return thread;
        }

        private void processRequest() {
            threads.add(Thread.currentThread().getName());
            boolean hold = holdNext;
            holdNext = false;
            if (hold) {
                try {
                    end.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() {
            end.countDown();
            caller.close();
            stack.stack().stop();
        }
    }
}

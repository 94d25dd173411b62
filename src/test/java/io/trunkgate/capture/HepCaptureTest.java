package io.trunkgate.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.capture.internal.CollectorLink;
import io.trunkgate.capture.internal.CollectorLinks;
import io.trunkgate.config.CaptureSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.HepCollector;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The capture's queue and sender: a slow collector costs dropped (and counted) messages, never a wait; a TCP
 * collector that goes away is connected to again; nothing is taken before the capture is opened.
 */
class HepCaptureTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.11", 5062);
    private static final InetSocketAddress GATEWAY = new InetSocketAddress("127.0.0.1", 5060);

    private final AtomicInteger numbers = new AtomicInteger();
    private final ExecutorService thread = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        thread.shutdownNow();
    }

    @Test
    void aSlowCollectorCostsDroppedMessagesNeverAWait() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch collectorCatchesUp = new CountDownLatch(1);
        List<byte[]> delivered = new CopyOnWriteArrayList<>();
        CollectorLink slow = new CollectorLink() {
            @Override
            public void send(ByteBuffer packet) throws IOException {
                sending.countDown();
                try {
                    collectorCatchesUp.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                byte[] copy = new byte[packet.remaining()];
                packet.get(copy);
                delivered.add(copy);
            }

            @Override
            public void close() {
            }
        };
        try (HepCapture capture = HepCapture.start(settings(4), () -> slow, Duration.ofMillis(10), thread)) {
            capture.open();
            List<String> sent = new ArrayList<>(List.of(message(capture)));
            assertTrue(sending.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the sender took the first message");

            for (int i = 0; i < 7; i++) {
                sent.add(message(capture));
            }

            assertEquals(4, capture.queued());
            assertEquals(3, capture.dropped(HepCapture.QUEUE_FULL), "what did not fit in the queue");
            collectorCatchesUp.countDown();
            assertEquals(5L, Await.until(WAIT, capture::sent, n -> n == 5));
            List<String> expected = sent.subList(0, 5);
            assertEquals(expected, delivered.stream().map(HepCaptureTest::payload).toList(), "in order");
            assertEquals(0, capture.dropped(HepCapture.SEND_FAILED));
        }
    }

    @Test
    void aTcpCollectorThatGoesAwayIsConnectedToAgain() throws Exception {
        int port;
        List<String> atFirst = new CopyOnWriteArrayList<>();
        List<String> atSecond = new CopyOnWriteArrayList<>();
        CaptureSettings tcp;
        try (ServerSocket first = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            first.setSoTimeout((int) WAIT.toMillis());
            port = first.getLocalPort();
            tcp = new CaptureSettings("127.0.0.1", port, CaptureSettings.Transport.TCP, 7, Optional.empty(), 100);
            try (HepCapture capture = HepCapture.start(tcp, CollectorLinks.connector(tcp), Duration.ofMillis(20),
                    thread)) {
                capture.open();
                Socket connection = first.accept();
                Thread reading = read(connection, atFirst);
                String before = message(capture);
                assertEquals(before, Await.until(WAIT, () -> atFirst.isEmpty() ? null : atFirst.get(0),
                        m -> m != null));

                connection.close();
                first.close();
                reading.join(WAIT.toMillis());
                assertTrue(Await.until(WAIT, () -> {
                    message(capture);
                    return !capture.connected();
                }, down -> down), "the sender saw the collector go");

                try (ServerSocket second = new ServerSocket()) {
                    second.setReuseAddress(true);
                    second.setSoTimeout((int) WAIT.toMillis());
                    second.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                    Socket again = second.accept();
                    read(again, atSecond);
                    String after = message(capture);
                    assertTrue(Await.until(WAIT, () -> atSecond.contains(after), found -> found),
                            "a message sent after the collector came back reached it: " + atSecond);
                    assertTrue(capture.connected());
                    again.close();
                }
            }
        }
    }

    @Test
    void overUdpEachMessageIsOneDatagram() throws Exception {
        try (DatagramSocket collector = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            collector.setSoTimeout((int) WAIT.toMillis());
            CaptureSettings udp = new CaptureSettings("127.0.0.1", collector.getLocalPort(),
                    CaptureSettings.Transport.UDP, 7, Optional.empty(), 100);
            try (HepCapture capture = HepCapture.start(udp, thread)) {
                capture.open();
                String sent = message(capture);
                DatagramPacket packet = new DatagramPacket(new byte[65_535], 65_535);
                collector.receive(packet);
                byte[] hep = Arrays.copyOf(packet.getData(), packet.getLength());
                assertArrayEquals("HEP3".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(hep, 4));
                assertEquals(hep.length, ((hep[4] & 0xff) << 8) | (hep[5] & 0xff), "the length is the packet's");
                assertEquals(sent, payload(hep));
            }
        }
    }

    @Test
    void nothingIsTakenBeforeOpenAndAMessageTooLargeIsCountedNotSent() throws Exception {
        List<byte[]> delivered = new CopyOnWriteArrayList<>();
        CollectorLink collector = new CollectorLink() {
            @Override
            public void send(ByteBuffer packet) {
                byte[] copy = new byte[packet.remaining()];
                packet.get(copy);
                delivered.add(copy);
            }

            @Override
            public void close() {
            }
        };
        try (HepCapture capture = HepCapture.start(settings(100), () -> collector, Duration.ofMillis(10), thread)) {
            assertTrue(!capture.on());
            message(capture);
            assertEquals(0, capture.queued());

            capture.open();
            byte[] huge = new byte[65_500];
            capture.message(huge, 0, huge.length, CALLER, GATEWAY, Transport.TCP, Capture.nowMicros());
            String fits = message(capture);

            assertEquals(1L, Await.until(WAIT, capture::sent, n -> n == 1));
            assertEquals(1, capture.dropped(HepCapture.TOO_LARGE));
            assertEquals(List.of(fits), delivered.stream().map(HepCaptureTest::payload).toList());
        }
    }

    private static CaptureSettings settings(int queueSize) {
        return new CaptureSettings("127.0.0.1", 9060, CaptureSettings.Transport.UDP, 7, Optional.empty(), queueSize);
    }

    /** Captures an OPTIONS with a Call-ID of its own; returns it. */
    private String message(Capture capture) {
        String text = "OPTIONS sip:127.0.0.1 SIP/2.0\r\nCall-ID: m" + numbers.incrementAndGet()
                + "\r\nCSeq: 1 OPTIONS\r\n\r\n";
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        capture.message(bytes, 0, bytes.length, CALLER, GATEWAY, Transport.UDP, Capture.nowMicros());
        return text;
    }

    private static String payload(byte[] hep) {
        try {
            return HepCollector.decode(hep).payload();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads HEP packets off a TCP connection (each framed by its length) into {@code payloads}. */
    private static Thread read(Socket connection, List<String> payloads) {
        Thread reader = new Thread(() -> {
            try (DataInputStream in = new DataInputStream(connection.getInputStream())) {
                while (true) {
                    byte[] header = new byte[6];
                    in.readFully(header);
                    byte[] hep = Arrays.copyOf(header, ((header[4] & 0xff) << 8) | (header[5] & 0xff));
                    in.readFully(hep, 6, hep.length - 6);
                    payloads.add(payload(hep));
                }
            } catch (IOException e) {
                // the connection closed
            }
        }, "test-collector");
        reader.setDaemon(true);
        reader.start();
        return reader;
    }
}

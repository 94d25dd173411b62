package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.overload.SocketMeter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The probes taken out of a socket's datagrams, with two meters of one port and a manual clock. */
class SocketProbeReaderTest {

    private static final InetSocketAddress SOCKET = new InetSocketAddress("127.0.0.1", 5060);

    private final AtomicLong nanos = new AtomicLong();
    private final OverloadController overload = new OverloadController(
            () -> OverloadSettings.of(Duration.ofMillis(50), 100, 0), nanos::get);
    private final List<List<byte[]>> sent = List.of(new ArrayList<>(), new ArrayList<>());
    private final List<SocketMeter> meters = List.of(
            overload.socketMeter(probe -> sent.get(0).add(probe)),
            overload.socketMeter(probe -> sent.get(1).add(probe)));
    private final List<String> arrivals = new ArrayList<>();
    private final EmbeddedChannel socket0 = new EmbeddedChannel(new SocketProbeReader(0, meters,
            SocketMeter.PROBE_LENGTH, (socket, port) -> arrivals.add(socket + " from " + port)));

    private DatagramPacket datagram(byte[] content, int sourcePort) {
        return new DatagramPacket(Unpooled.wrappedBuffer(content), SOCKET, new InetSocketAddress("127.0.0.1",
                sourcePort));
    }

    @Test
    void aProbeIsAccountedForByItsMeterAndNeverDelivered() {
        overload.probeSockets();
        nanos.addAndGet(Duration.ofMillis(30).toNanos());
        assertEquals(0, meters.get(0).socketWaitNanos(), "no probe has come back yet: the wait is not trusted");
        DatagramPacket probe = datagram(sent.get(0).get(0), 40000);
        socket0.writeInbound(probe);

        assertNull(socket0.readInbound());
        assertEquals(0, probe.refCnt());
        assertEquals(List.of("0 from 40000"), arrivals);

        overload.probeSockets();
        nanos.addAndGet(Duration.ofMillis(80).toNanos());
        assertEquals(Duration.ofMillis(80).toNanos(), meters.get(0).socketWaitNanos(),
                "the second probe waits unread: so has everything behind it");
    }

    @Test
    void anotherSocketsProbeArrivingHereIsAccountedForByThatSocketsMeter() {
        overload.probeSockets();
        socket0.writeInbound(datagram(sent.get(1).get(0), 40001));
        assertNull(socket0.readInbound());
        assertEquals(List.of("0 from 40001"), arrivals, "socket 0 is where port 40001 lands");
        // every probe read at once: a relaxed socket is probed once an interval
        nanos.addAndGet(Duration.ofMillis(100).toNanos());
        overload.probeSockets();
        nanos.addAndGet(Duration.ofMillis(10).toNanos());
        assertEquals(Duration.ofMillis(10).toNanos(), meters.get(1).socketWaitNanos());
    }

    @Test
    void aDatagramOfAProbesLengthThatIsNoProbeIsDelivered() {
        overload.probeSockets();
        byte[] forged = sent.get(0).get(0).clone();
        forged[10] ^= 1;
        socket0.writeInbound(datagram(forged, 40002));
        ByteBuf delivered = ((DatagramPacket) socket0.readInbound()).content();
        assertNotNull(delivered);
        delivered.release();
        assertEquals(List.of(), arrivals);
    }
}

package io.trunkgate.capture.internal;

import io.trunkgate.config.CaptureSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Links to a collector over UDP (a datagram per packet, from a socket of its own) or TCP (packets one after another;
 * HEP's length field frames them). The collector's host name is looked up at each opening.
 */
public final class CollectorLinks {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** A TCP collector that takes no data for this long is given up on, and connected to again. */
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(5);

    private CollectorLinks() {
    }

    /** Opens links to the collector {@code settings} names, over its transport. */
    public static CollectorLink.Connector connector(CaptureSettings settings) {
        return settings.transport() == CaptureSettings.Transport.TCP
                ? () -> new TcpLink(resolve(settings)) : () -> new UdpLink(resolve(settings));
    }

    private static InetSocketAddress resolve(CaptureSettings settings) throws UnknownHostException {
        InetSocketAddress address = new InetSocketAddress(settings.host(), settings.port());
        if (address.isUnresolved()) {
            throw new UnknownHostException("cannot resolve " + settings.host());
        }
        return address;
    }

    private static final class UdpLink implements CollectorLink {
        private final DatagramChannel channel;
        private final InetSocketAddress collector;

        UdpLink(InetSocketAddress collector) throws IOException {
            this.collector = collector;
            this.channel = DatagramChannel.open();
        }

        @Override
        public void send(ByteBuffer packet) throws IOException {
            channel.send(packet, collector);
        }

        @Override
        public void close() {
            closeQuietly(channel);
        }
    }

    private static final class TcpLink implements CollectorLink {
        private final SocketChannel channel;
        private final Selector writable;
        private final ByteBuffer discard = ByteBuffer.allocate(512);

        TcpLink(InetSocketAddress collector) throws IOException {
            channel = SocketChannel.open();
            try {
                channel.socket().connect(collector, (int) CONNECT_TIMEOUT.toMillis());
                channel.configureBlocking(false);
                writable = Selector.open();
                channel.register(writable, SelectionKey.OP_WRITE);
            } catch (IOException e) {
                closeQuietly(channel);
                throw e;
            }
        }

        @Override
        public void send(ByteBuffer packet) throws IOException {
            // A collector sends nothing back: end of stream is its close, seen before a packet is written into it.
            if (closedByCollector()) {
                throw new IOException("the collector closed the connection");
            }
            while (packet.hasRemaining()) {
                if (channel.write(packet) == 0) {
                    if (writable.select(WRITE_TIMEOUT.toMillis()) == 0) {
                        throw new IOException("the collector took no data for " + WRITE_TIMEOUT.toSeconds() + " s");
                    }
                    writable.selectedKeys().clear();
                }
            }
        }

        private boolean closedByCollector() throws IOException {
            int read;
            do {
                read = channel.read(discard.clear());
            } while (read > 0);
            return read < 0;
        }

        @Override
        public void close() {
            closeQuietly(writable);
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // closing: nothing is left to do with it
        }
    }
}

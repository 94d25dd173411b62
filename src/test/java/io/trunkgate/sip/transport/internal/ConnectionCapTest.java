package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectionCapTest {

    private final ConnectionCap cap = new ConnectionCap(
            new TcpLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 3, 2), Transport.TCP);
    /** Connections the handlers after the cap saw open. */
    private final AtomicInteger admitted = new AtomicInteger();

    private EmbeddedChannel connection(String source, int port) {
        return Messages.from(new InetSocketAddress(source, port), cap, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                admitted.incrementAndGet();
            }
        });
    }

    @Test
    void aSourceOverItsCapIsClosedAsItOpensAndAClosedConnectionGivesBackItsPlace() {
        EmbeddedChannel first = connection("10.0.0.1", 1001);
        EmbeddedChannel second = connection("10.0.0.1", 1002);
        EmbeddedChannel third = connection("10.0.0.1", 1003);
        assertTrue(first.isOpen() && second.isOpen());
        assertFalse(third.isOpen(), "a third connection from one source");
        assertEquals(2, admitted.get(), "the refused connection never reached the handlers after the cap");
        assertEquals(2, cap.open());

        first.close();
        assertTrue(connection("10.0.0.1", 1004).isOpen(), "room again once one closed");
    }

    @Test
    void connectionsOverTheTotalCapAreClosedWhateverTheirSource() {
        assertTrue(connection("10.0.0.1", 1).isOpen());
        assertTrue(connection("10.0.0.2", 1).isOpen());
        assertTrue(connection("10.0.0.3", 1).isOpen());
        assertFalse(connection("10.0.0.4", 1).isOpen(), "a fourth connection in all");
        assertEquals(3, cap.open());
    }
}

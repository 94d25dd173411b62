package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cap on the listening channel's pipeline, fed the connections it accepts as the listener's loop does. */
class ConnectionCapTest {

    private final ConnectionCap cap = new ConnectionCap(
            new TcpLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 3, 2), Transport.TCP);
    /** Connections the cap handed on to be registered on a loop, in order. */
    private final List<Channel> handedOn = new ArrayList<>();
    private final EmbeddedChannel listener = new EmbeddedChannel(cap, new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            handedOn.add((Channel) msg);
        }
    });

    private EmbeddedChannel accepted(String source, int port) {
        EmbeddedChannel connection = Messages.from(new InetSocketAddress(source, port));
        listener.writeInbound(connection);
        return connection;
    }

    @Test
    void aSourceOverItsCapIsClosedAsItIsAcceptedAndAClosedConnectionGivesBackItsPlace() {
        EmbeddedChannel first = accepted("10.0.0.1", 1001);
        EmbeddedChannel second = accepted("10.0.0.1", 1002);
        EmbeddedChannel third = accepted("10.0.0.1", 1003);
        assertTrue(first.isOpen() && second.isOpen());
        assertFalse(third.isOpen(), "a third connection from one source");
        assertEquals(List.of(first, second), handedOn, "the refused connection was never handed on");
        assertEquals(2, cap.open());

        first.close();
        assertEquals(1, cap.open());
        assertTrue(accepted("10.0.0.1", 1004).isOpen(), "room again once one closed");
    }

    @Test
    void connectionsOverTheTotalCapAreClosedWhateverTheirSource() {
        assertTrue(accepted("10.0.0.1", 1).isOpen());
        assertTrue(accepted("10.0.0.2", 1).isOpen());
        assertTrue(accepted("10.0.0.3", 1).isOpen());
        assertFalse(accepted("10.0.0.4", 1).isOpen(), "a fourth connection in all");
        assertEquals(3, cap.open());
    }

    @Test
    void connectionsCountInTheOrderTheyWereAcceptedNotTheOrderTheirLoopsTakeThemUp() {
        // accepted, and not yet active on the loops that will read them: the count does not wait for that
        List<EmbeddedChannel> first = List.of(accepted("10.0.0.1", 1), accepted("10.0.0.2", 1),
                accepted("10.0.0.3", 1));
        EmbeddedChannel fourth = accepted("10.0.0.4", 1);
        assertFalse(fourth.isOpen(), "the connection accepted last is the one refused");
        first.forEach(connection -> assertTrue(connection.isOpen()));
        assertEquals(first, handedOn);
    }
}

package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.testing.LogCapture;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ReadFailuresTest {

    @Test
    void aConnectionWhoseReadFailedIsClosed() {
        EmbeddedChannel connection = new EmbeddedChannel(new ReadFailures(false));
        connection.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        assertFalse(connection.isOpen());
    }

    @Test
    void whatReachesTheEndUnreadIsReleased() {
        EmbeddedChannel connection = new EmbeddedChannel(new ReadFailures(false));
        ByteBuf stray = Messages.buffer("x");
        connection.writeInbound(stray);
        assertEquals(0, stray.refCnt());
    }

    @Test
    void aUdpSocketGoesOnReadingAfterAFailureAndSaysSoOnce() throws Exception {
        EmbeddedChannel socket = new EmbeddedChannel(new ReadFailures(true));
        try (LogCapture log = LogCapture.of("io.trunkgate.sip.transport")) {
            socket.pipeline().fireExceptionCaught(new IOException("ICMP port unreachable"));
            assertTrue(socket.isOpen());
            assertEquals(1, log.events().size());
            assertTrue(log.events().get(0).getFormattedMessage().contains("ICMP port unreachable"));
        }
    }
}

package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import io.trunkgate.sip.transport.TestTls;
import io.trunkgate.testing.LogCapture;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS handlers over real handshakes between two embedded channels, a caller's or the gateway's client end and
 * the gateway's or a carrier's server end, whose records the test carries across.
 */
class TlsHandlersTest {

    private static final InetSocketAddress CARRIER = new InetSocketAddress("127.0.0.7", 5061);

    @TempDir
    Path dir;
    private TestTls tls;

    @BeforeEach
    void material() throws Exception {
        tls = new TestTls(dir);
    }

    /** The gateway's end of a connection a caller opened. */
    private EmbeddedChannel gatewayServer() {
        EmbeddedChannel channel = Messages.from(Messages.CALLER);
        channel.pipeline().addLast(new RenegotiationRefusal(), new SslHandler(tls.accepted(Messages.GATEWAY)),
                new TlsHandshakeWatch(true, tls::callerCertificate));
        return channel;
    }

    private static EmbeddedChannel client(SSLEngine engine, boolean gateway) {
        EmbeddedChannel channel = Messages.from(CARRIER);
        channel.pipeline().addLast(new SslHandler(engine));
        if (gateway) {
            channel.pipeline().addLast(new TlsHandshakeWatch(false, session -> {
                throw new AssertionError("a carrier's session is not asked for a caller certificate");
            }));
        }
        return channel;
    }

    /** Carries the records each side wrote to the other until neither has any left. */
    private static void exchange(EmbeddedChannel a, EmbeddedChannel b) {
        boolean moved = true;
        while (moved) {
            moved = carry(a, b) | carry(b, a);
        }
    }

    private static boolean carry(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        for (ByteBuf records = from.readOutbound(); records != null; records = from.readOutbound()) {
            moved = true;
            if (to.isOpen()) {
                try {
                    to.writeInbound(records);
                } catch (RuntimeException failed) {
                    // a TLS failure of that end, which it closes on: what the test asserts
                }
            } else {
                records.release();
            }
        }
        return moved;
    }

    @Test
    void theCallersClientCertificateIsKeptOnItsConnection() throws Exception {
        EmbeddedChannel gateway = gatewayServer();
        EmbeddedChannel caller = client(tls.callerEngine(), false);
        exchange(caller, gateway);

        assertTrue(gateway.pipeline().get(SslHandler.class).handshakeFuture().isSuccess());
        var certificate = TlsHandshakeWatch.callerCertificate(gateway).orElseThrow();
        assertEquals(tls.callerSha256(), certificate.sha256());
        assertTrue(certificate.verifiedByClientCa());
    }

    @Test
    void aCarrierWhoseCertificateIsRefusedFailsTheWritesWaitingAndSaysSoInOneWarning() throws Exception {
        tls.expectCarrierNamed("other.example");
        EmbeddedChannel gateway = client(tls.connecting(CARRIER), true);
        EmbeddedChannel carrier = Messages.from(Messages.GATEWAY, new SslHandler(tls.carrierEngine()));
        try (LogCapture log = LogCapture.of("io.trunkgate.sip.transport")) {
            ChannelFuture invite = gateway.writeAndFlush(Messages.buffer(Messages.invite("call-tls")));
            exchange(gateway, carrier);

            assertFalse(invite.isSuccess());
            assertTrue(invite.cause() instanceof SSLHandshakeException, String.valueOf(invite.cause()));
            assertFalse(gateway.isOpen());
            List<ILoggingEvent> lines = log.events();
            assertEquals(1, lines.size(), lines.toString());
            assertEquals("WARN", lines.get(0).getLevel().toString());
            assertTrue(lines.get(0).getFormattedMessage().contains("TLS connection to " + CARRIER
                    + " failed: certificate for other.example: name mismatch"), lines.get(0).getFormattedMessage());
        }
    }

    @Test
    void aCarrierThatAcceptsUsGetsTheWritesThatWaitedForTheHandshake() throws Exception {
        EmbeddedChannel gateway = client(tls.connecting(CARRIER), true);
        EmbeddedChannel carrier = Messages.from(Messages.GATEWAY, new SslHandler(tls.carrierEngine()));
        ChannelFuture invite = gateway.writeAndFlush(Messages.buffer(Messages.invite("call-ok")));
        exchange(gateway, carrier);

        assertTrue(invite.isSuccess());
        StringBuilder received = new StringBuilder();
        for (ByteBuf plaintext = carrier.readInbound(); plaintext != null; plaintext = carrier.readInbound()) {
            received.append(Messages.text(plaintext));
        }
        assertEquals(Messages.invite("call-ok"), received.toString());
    }

    @Test
    void aRenegotiationIsRefusedWithAnAlertAndTheConnectionClosed() throws Exception {
        EmbeddedChannel gateway = gatewayServer();
        SSLEngine engine = tls.callerEngine();
        engine.setEnabledProtocols(new String[] {"TLSv1.2"});
        EmbeddedChannel caller = client(engine, false);
        exchange(caller, gateway);
        assertEquals("TLSv1.2", engine.getSession().getProtocol());

        try (LogCapture log = LogCapture.of("io.trunkgate.sip.transport")) {
            var renegotiation = caller.pipeline().get(SslHandler.class).renegotiate();
            exchange(caller, gateway);

            assertFalse(gateway.isOpen(), "the gateway closed the connection");
            assertTrue(engine.isInboundDone(), "the caller got the gateway's close_notify");
            assertFalse(renegotiation.isSuccess());
            assertTrue(log.events().stream().anyMatch(e -> e.getFormattedMessage().contains("renegotiation refused")));
        }
    }

    @Test
    void aTls13ConnectionPassesItsPostHandshakeRecordsAndData() throws Exception {
        EmbeddedChannel gateway = gatewayServer();
        SSLEngine engine = tls.callerEngine();
        EmbeddedChannel caller = client(engine, false);
        exchange(caller, gateway);
        assertEquals("TLSv1.3", engine.getSession().getProtocol());

        caller.writeAndFlush(Messages.buffer(Messages.bye("call-13", 2)));
        exchange(caller, gateway);
        assertTrue(gateway.isOpen());
        assertEquals(Messages.bye("call-13", 2), Messages.text((ByteBuf) gateway.readInbound()));
    }

    @Test
    void aCallerThatNeverFinishesItsHandshakeIsClosedAtTheTimeout() {
        EmbeddedChannel gateway = new EmbeddedChannel(false, false) {
            @Override
            protected java.net.SocketAddress remoteAddress0() {
                return Messages.CALLER;
            }
        };
        gateway.freezeTime();
        SslHandler ssl = new SslHandler(tls.accepted(Messages.GATEWAY));
        ssl.setHandshakeTimeoutMillis(5000);
        gateway.pipeline().addLast(ssl, new TlsHandshakeWatch(true, tls::callerCertificate));
        try (LogCapture log = LogCapture.of("io.trunkgate.sip.transport")) {
            gateway.register();
            gateway.advanceTimeBy(4999, TimeUnit.MILLISECONDS);
            gateway.runScheduledPendingTasks();
            assertTrue(gateway.isOpen());
            gateway.advanceTimeBy(1, TimeUnit.MILLISECONDS);
            gateway.runScheduledPendingTasks();
            assertFalse(gateway.isOpen());
            assertTrue(log.events().stream().anyMatch(e -> e.getFormattedMessage()
                    .contains("closed: no handshake within the handshake timeout")), log.events().toString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}

package io.trunkgate.sip.transport;

import io.trunkgate.capture.Capture;
import io.trunkgate.config.SipLimits;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipSettings;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.TlsSettings;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.sip.transport.internal.Sockets;
import io.trunkgate.tls.TlsEngines;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** Transports on loopback for the tests of this package, and what they deliver. */
final class Loopback implements Inbound, AutoCloseable {

    /** A message delivered, with the thread it was delivered on. */
    record Delivered(InboundMessage message, Thread thread) {
        String text() {
            return new String(message.bytes(), StandardCharsets.ISO_8859_1);
        }
    }

    final SipTransports transports;
    final LinkedBlockingQueue<Delivered> delivered = new LinkedBlockingQueue<>();

    Loopback(SipTransports transports) {
        this.transports = transports;
    }

    static SipSettings settings(List<SipListener> listeners, TcpLimits tcp, Duration handshakeTimeout) {
        return new SipSettings(listeners, 1000, 0, Duration.ofMillis(50),
                SipLimits.DEFAULTS, tcp, Duration.ofSeconds(1), WarmUpSettings.OFF, new TlsSettings(handshakeTimeout));
    }

    static OverloadController overload(LongSupplier nanoClock) {
        return new OverloadController(() -> OverloadSettings.of(Duration.ofMillis(50), 1000, 0), nanoClock);
    }

    /** Transports listening on {@code listeners} with {@code sockets} and {@code threads} loops. */
    static Loopback listening(Sockets sockets, int threads, TcpLimits tcp, Optional<TlsEngines> tls,
                              OverloadController overload, SipListener... listeners) throws Exception {
        SipTransports transports = SipTransports.create(settings(List.of(listeners), tcp, Duration.ofSeconds(2)),
                overload, tls, Capture.NONE, sockets, threads, System::nanoTime);
        Loopback loopback = new Loopback(transports);
        try {
            transports.listen(loopback);
        } catch (Exception e) {
            transports.close();
            throw e;
        }
        return loopback;
    }

    static Loopback listening(SipListener... listeners) throws Exception {
        return listening(Sockets.best(), 2, TcpLimits.DEFAULTS, Optional.empty(), overload(System::nanoTime),
                listeners);
    }

    InetSocketAddress address(SipListener listener) {
        return transports.localAddress(listener).orElseThrow();
    }

    @Override
    public void received(InboundMessage message) {
        delivered.add(new Delivered(message, Thread.currentThread()));
    }

    Delivered next() throws InterruptedException {
        Delivered next = delivered.poll(10, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("nothing delivered within 10 s");
        }
        return next;
    }

    @Override
    public void close() {
        transports.close();
    }
}

package io.trunkgate.sip.transport.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.AttributeKey;
import io.trunkgate.config.PresentedCertificate;
import java.security.cert.CertificateException;
import java.util.Optional;
import java.util.function.Function;
import javax.net.ssl.SSLSession;
import org.slf4j.event.Level;

/**
 * What a TLS handshake ends in. On a connection a caller opened, the client certificate it presented is kept on
 * the connection, for its messages ({@link #callerCertificate}); a failed handshake is one INFO line. On a
 * connection to a carrier, a failed handshake (a certificate refused, a carrier that refuses ours, no handshake in
 * time) is one WARN line: the sends waiting for it fail with it, so their calls fail over at once. The
 * {@link SslHandler} closes the connection either way.
 */
public final class TlsHandshakeWatch extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<Optional<PresentedCertificate>> CALLER_CERTIFICATE =
            AttributeKey.valueOf(TlsHandshakeWatch.class, "callerCertificate");

    private final boolean inbound;
    private final Function<SSLSession, Optional<PresentedCertificate>> certificates;

    /**
     * @param inbound      whether a caller opened the connection (else the gateway, to a carrier)
     * @param certificates what a caller's session shows of its client certificate
     */
    public TlsHandshakeWatch(boolean inbound, Function<SSLSession, Optional<PresentedCertificate>> certificates) {
        this.inbound = inbound;
        this.certificates = certificates;
    }

    /** The client certificate the caller presented on {@code channel}, once its handshake is done. */
    public static Optional<PresentedCertificate> callerCertificate(Channel channel) {
        Optional<PresentedCertificate> certificate = channel.attr(CALLER_CERTIFICATE).get();
        return certificate == null ? Optional.empty() : certificate;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent completion) {
            if (completion.isSuccess()) {
                if (inbound) {
                    SSLSession session = ctx.pipeline().get(SslHandler.class).engine().getSession();
                    ctx.channel().attr(CALLER_CERTIFICATE).set(certificates.apply(session));
                }
            } else if (inbound) {
                TransportLog.LOG.log(Level.INFO, "TLS connection from " + peer(ctx) + " closed: "
                        + reason(completion.cause()));
            } else {
                TransportLog.LOG.log(Level.WARN, "TLS connection to " + peer(ctx) + " failed: "
                        + reason(completion.cause()));
            }
        }
        ctx.fireUserEventTriggered(event);
    }

    /**
     * The peer as "/address:port": the epoll channel's remote address carries the host string it was connected to
     * as a name, which would print the address twice.
     */
    private static String peer(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress remote && remote.getAddress() != null
                ? "/" + remote.getAddress().getHostAddress() + ":" + remote.getPort()
                : String.valueOf(ctx.channel().remoteAddress());
    }

    /** A refused certificate says why in its own words; the TLS exceptions around it only say that it failed. */
    static String reason(Throwable failure) {
        if (failure instanceof SslHandshakeTimeoutException) {
            return "no handshake within the handshake timeout (" + failure.getMessage() + ")";
        }
        String reason = failure.getMessage();
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            reason = cause.getMessage() != null ? cause.getMessage() : reason;
            if (cause instanceof CertificateException) {
                break;
            }
        }
        return reason;
    }
}

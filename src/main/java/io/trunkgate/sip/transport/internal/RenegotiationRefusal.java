package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import org.slf4j.event.Level;

/**
 * Refuses a TLS 1.2 renegotiation: a handshake record arriving once the handshake is done never reaches the
 * engine; the connection gets a close_notify alert and is closed. Renegotiating gains a peer nothing the first
 * handshake did not give, and costs the gateway a handshake each time it is asked (a well-known flood). TLS 1.3 has
 * no renegotiation (its post-handshake messages travel in records of application data). Sits before the
 * {@link SslHandler}, following the record boundaries of the raw bytes.
 */
public final class RenegotiationRefusal extends ChannelInboundHandlerAdapter {

    private static final int RECORD_HEADER_BYTES = 5;
    private static final int HANDSHAKE_RECORD = 22;

    private final byte[] header = new byte[RECORD_HEADER_BYTES];
    private int headerRead;
    private int bodyLeft;
    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf records)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (refused) {
            records.release();
            return;
        }
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        boolean done = tls.handshakeFuture().isSuccess() && !"TLSv1.3".equals(tls.engine().getSession().getProtocol());
        if (startsHandshakeRecord(records) && done) {
            refused = true;
            records.release();
            TransportLog.LOG.log(Level.INFO, "TLS connection with " + ctx.channel().remoteAddress()
                    + " closed: TLS renegotiation refused");
            tls.closeOutbound().addListener((ChannelFutureListener) closed -> ctx.close());
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** Follows the record boundaries through {@code records}: whether a handshake record starts in them. */
    private boolean startsHandshakeRecord(ByteBuf records) {
        boolean handshake = false;
        int at = records.readerIndex();
        int end = records.writerIndex();
        while (at < end) {
            if (bodyLeft > 0) {
                int skipped = Math.min(bodyLeft, end - at);
                bodyLeft -= skipped;
                at += skipped;
                continue;
            }
            header[headerRead++] = records.getByte(at++);
            if (headerRead == RECORD_HEADER_BYTES) {
                headerRead = 0;
                bodyLeft = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
                handshake |= header[0] == HANDSHAKE_RECORD;
            }
        }
        return handshake;
    }
}

package io.trunkgate.sip.transport.internal;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import javax.net.ssl.SSLException;
import org.slf4j.event.Level;

/**
 * The end of every SIP pipeline: what failed on the way is logged, throttled, in one line. A UDP socket goes on
 * reading (one bad datagram must not stop it); a connection whose read failed is closed, since its stream can no
 * longer be trusted. A TLS failure is said by {@link TlsHandshakeWatch} already, so it only closes here. Anything
 * that reaches this end unread is released.
 */
@ChannelHandler.Sharable
public final class ReadFailures extends ChannelInboundHandlerAdapter {

    private final boolean datagrams;

    /** @param datagrams whether this is the end of UDP sockets' pipelines (else of connections') */
    public ReadFailures(boolean datagrams) {
        this.datagrams = datagrams;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (datagrams) {
            TransportLog.LOG.log(Level.WARN, "UDP listener " + ctx.channel().localAddress()
                    + " failed to read a datagram: " + cause);
            return;
        }
        if (!isTls(cause)) {
            TransportLog.LOG.log(Level.DEBUG, "connection with " + ctx.channel().remoteAddress() + " closed: "
                    + cause);
        }
        ctx.close();
    }

    private static boolean isTls(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }
}

package io.trunkgate.admin;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers 400 to a request the HTTP decoder could not read (a bad request line, a header line without a colon,
 * headers over the size limit, a bad chunk) and closes the connection. Netty hands such a request on with the
 * method, path and headers it read before the error, so without this a {@code DELETE} with a broken header
 * would still be executed.
 */
@ChannelHandler.Sharable
final class MalformedRequestFilter extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(MalformedRequestFilter.class);

    MalformedRequestFilter() {
        super(false);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isSuccess()) {
            ctx.fireChannelRead(request);
            return;
        }
        log.debug("malformed admin request from {}: {}", ctx.channel().remoteAddress(),
                request.decoderResult().cause().toString());
        request.release();
        ctx.writeAndFlush(Reply.error(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request (a bad request line or"
                + " header line, or a request line or headers over the size limit)"))
                .addListener(ChannelFutureListener.CLOSE);
    }
}

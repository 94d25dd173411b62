package io.trunkgate.admin;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Asks every request that needs it ({@link AdminRoutes#tokenRequired}: PUT, POST, DELETE, and reads of what quotes
 * configured values) for {@code Authorization: Bearer <admin.token>}: 401 without it or with a wrong one, 403 when
 * no token is configured at all; lets the other reads through. The token is read per request, so a reload can
 * rotate it.
 */
@ChannelHandler.Sharable
final class BearerAuth extends SimpleChannelInboundHandler<FullHttpRequest> {

    static final String NO_TOKEN = "changes through the admin API are disabled because no admin token is "
            + "configured: set admin.token in gateway.conf or the TRUNKGATE_ADMIN_TOKEN environment variable";

    private final Supplier<Optional<String>> token;

    BearerAuth(Supplier<Optional<String>> token) {
        super(false);
        this.token = token;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        HttpMethod method = request.method();
        if (request.headers().getAll(HttpHeaderNames.AUTHORIZATION).size() > 1) {
            // Which one would count is a guess two parsers (a proxy's and this one) need not make alike.
            request.release();
            ctx.writeAndFlush(Reply.error(HttpResponseStatus.BAD_REQUEST, "more than one Authorization header"))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if (!AdminRoutes.tokenRequired(method, new QueryStringDecoder(request.uri()).path())) {
            ctx.fireChannelRead(request);
            return;
        }
        Optional<String> expected = token.get();
        Reply refusal;
        if (expected.isEmpty()) {
            refusal = Reply.error(HttpResponseStatus.FORBIDDEN, NO_TOKEN);
        } else if (matches(request.headers().get(HttpHeaderNames.AUTHORIZATION), expected.get())) {
            ctx.fireChannelRead(request);
            return;
        } else {
            refusal = Reply.error(HttpResponseStatus.UNAUTHORIZED, "a valid 'Authorization: Bearer <token>' header"
                    + " is required for " + method).withHeader("WWW-Authenticate", "Bearer realm=\"trunkgate\"");
        }
        request.release();
        ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
    }

    private static boolean matches(String header, String expected) {
        String prefix = "Bearer ";
        if (header == null || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
            return false;
        }
        byte[] given = header.substring(prefix.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, expected.getBytes(StandardCharsets.UTF_8));
    }
}

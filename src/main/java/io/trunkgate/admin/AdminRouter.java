package io.trunkgate.admin;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.redisson.client.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each request to the endpoint for its method and path and writes what it answers: 404 for a path no
 * endpoint has, 405 (with Allow) for a method the path does not take, and an endpoint's {@link ApiException}
 * as its status with a JSON message. Any other failure is logged and answered 503 (Redis failed) or 500 with a
 * message that tells nothing of the internals: no address, key, command or exception text reaches the client.
 */
@ChannelHandler.Sharable
final class AdminRouter extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(AdminRouter.class);
    private static final String UNAVAILABLE = "the shared state is not reachable at the moment; try again later"
            + " (the gateway's log has the details)";
    private static final String INTERNAL_ERROR = "internal error (the gateway's log has the details)";

    /** One request as an endpoint sees it: the path's variable part, the query and the body. */
    record Request(String pathParameter, Map<String, List<String>> query, String body) {
        String queryValue(String name) {
            List<String> values = query.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    private record Route(HttpMethod method, Pattern path, Function<Request, CompletionStage<Reply>> endpoint) {
    }

    private final List<Route> routes = new ArrayList<>();

    AdminRouter route(HttpMethod method, String path, Function<Request, CompletionStage<Reply>> endpoint) {
        routes.add(new Route(method, Pattern.compile(path), endpoint));
        return this;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        List<Route> forPath = new ArrayList<>();
        for (Route route : routes) {
            Matcher matcher = route.path().matcher(uri.path());
            if (!matcher.matches()) {
                continue;
            }
            forPath.add(route);
            if (route.method().equals(request.method())) {
                String parameter = matcher.groupCount() > 0 ? matcher.group(1) : null;
                Request call = new Request(parameter, uri.parameters(), request.content().toString(StandardCharsets.UTF_8));
                answer(ctx, request.method() + " " + uri.path(), call, route.endpoint());
                return;
            }
        }
        if (forPath.isEmpty()) {
            write(ctx, Reply.error(HttpResponseStatus.NOT_FOUND, "no such path: " + uri.path()));
        } else {
            String allowed = forPath.stream().map(r -> r.method().name()).collect(Collectors.joining(", "));
            write(ctx, Reply.error(HttpResponseStatus.METHOD_NOT_ALLOWED, request.method() + " is not allowed on "
                    + uri.path() + "; allowed: " + allowed).withHeader("Allow", allowed));
        }
    }

    private void answer(ChannelHandlerContext ctx, String what, Request call,
                        Function<Request, CompletionStage<Reply>> endpoint) {
        CompletionStage<Reply> reply;
        try {
            reply = endpoint.apply(call);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((result, error) -> write(ctx, error == null ? result : failure(what, error)));
    }

    private static Reply failure(String what, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof ApiException api) {
            return Reply.error(api.status(), api.getMessage());
        }
        log.warn("admin request {} failed", what, cause);
        return cause instanceof RedisException
                ? Reply.error(HttpResponseStatus.SERVICE_UNAVAILABLE, UNAVAILABLE)
                : Reply.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR);
    }

    private static void write(ChannelHandlerContext ctx, Reply reply) {
        ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("admin connection error: {}", cause.toString());
        ctx.close();
    }
}

package io.trunkgate.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Turns a {@link Reply} into an HTTP response: JSON bodies through Jackson (records by their component names,
 * nulls left out), text as it is. Every response closes its connection.
 */
@ChannelHandler.Sharable
final class JsonReplyEncoder extends MessageToMessageEncoder<Reply> {

    static final ObjectMapper MAPPER = new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

    @Override
    protected void encode(ChannelHandlerContext ctx, Reply reply, List<Object> out) throws JsonProcessingException {
        byte[] body = reply.isJson() ? MAPPER.writeValueAsBytes(reply.body())
                : reply.body().toString().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        reply.headers().forEach(response.headers()::set);
        out.add(response);
    }
}

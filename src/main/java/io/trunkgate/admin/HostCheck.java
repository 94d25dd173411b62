package io.trunkgate.admin;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Answers only requests addressed to the admin server by one of its own names: {@code localhost}, a loopback
 * address, {@code admin.host} as configured, or, when that is a wildcard (0.0.0.0, ::), any IP address. A page
 * that rebinds its own DNS name to the gateway's address (DNS rebinding) sends that name as {@code Host} and gets
 * 421, so it cannot read the API from a browser behind the firewall. An HTTP/1.1 request without {@code Host}, or
 * with two, is 400 (RFC 9112 §3.2).
 */
@ChannelHandler.Sharable
final class HostCheck extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final String adminHost;
    private final boolean wildcard;

    /** {@code adminHost}: {@code admin.host}, a name or an address. */
    HostCheck(String adminHost) {
        super(false);
        this.adminHost = unbracketed(adminHost.toLowerCase(Locale.ROOT));
        this.wildcard = this.adminHost.equals("0.0.0.0") || this.adminHost.equals("::")
                || this.adminHost.equals("0:0:0:0:0:0:0:0");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        List<String> hosts = request.headers().getAll(HttpHeaderNames.HOST);
        Reply refusal;
        if (hosts.size() > 1 || hosts.isEmpty() && request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            refusal = Reply.error(HttpResponseStatus.BAD_REQUEST, "an HTTP/1.1 request needs exactly one Host header");
        } else if (hosts.isEmpty() || allowed(hosts.get(0))) {
            ctx.fireChannelRead(request);
            return;
        } else {
            refusal = Reply.error(HttpResponseStatus.MISDIRECTED_REQUEST, "this is the admin server of a trunkgate"
                    + " gateway: address it as localhost, a loopback address or its admin.host");
        }
        request.release();
        ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
    }

    /** Whether {@code host} (a Host header: a name or address, a port perhaps) names this server. */
    private boolean allowed(String host) {
        String name = unbracketed(withoutPort(host.trim().toLowerCase(Locale.ROOT)));
        if (name.equals("localhost") || name.equals(adminHost)) {
            return true;
        }
        byte[] address = NetUtil.createByteArrayFromIpAddressString(name);
        if (address == null) {
            return false; // a name other than the server's own: what a rebound DNS name looks like
        }
        try {
            return wildcard || InetAddress.getByAddress(address).isLoopbackAddress()
                    || Arrays.equals(address, NetUtil.createByteArrayFromIpAddressString(adminHost));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String withoutPort(String host) {
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon >= 0 && host.indexOf(':', colon + 1) < 0 ? host.substring(0, colon) : host;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}

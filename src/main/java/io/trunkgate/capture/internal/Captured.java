package io.trunkgate.capture.internal;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;

/** One SIP message waiting to be sent to the collector. */
public record Captured(byte[] bytes, int offset, int length, InetSocketAddress source, InetSocketAddress destination,
                       Transport transport, long epochMicros) {
}

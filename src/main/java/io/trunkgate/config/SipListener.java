package io.trunkgate.config;

/** One SIP listening point of the gateway. */
public record SipListener(Transport transport, String host, int port) {
}

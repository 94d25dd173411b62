package io.trunkgate.sip.transport.internal;

/** Host names as listeners write them. */
final class Hosts {

    private Hosts() {
    }

    /** "[::1]" as "::1"; anything else as it is. */
    static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}

package io.trunkgate.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parts of a carrier's SIP URI the gateway needs to reach it: "sip:host[:port][;transport=udp|tcp]". */
public record SipUri(String text, String host, int port, Transport transport) {

    private static final Pattern URI = Pattern.compile(
            "(?i)sip:(?:[^@;]+@)?(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+)(?::(\\d{1,5}))?((?:;[^;=]+(?:=[^;]*)?)*)");

    public static SipUri parse(String text) {
        Matcher m = URI.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a SIP URI (sip:host[:port][;transport=udp|tcp]): \"" + text + "\"");
        }
        int port = 5060;
        if (m.group(2) != null) {
            port = Integer.parseInt(m.group(2));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in \"" + text + "\"");
            }
        }
        Transport transport = Transport.UDP;
        for (String param : m.group(3).split(";")) {
            if (param.toLowerCase(Locale.ROOT).startsWith("transport=")) {
                transport = Transport.parse(param.substring("transport=".length()));
            }
        }
        return new SipUri(text.trim(), m.group(1), port, transport);
    }
}

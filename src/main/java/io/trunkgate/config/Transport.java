package io.trunkgate.config;

import java.util.Locale;

public enum Transport {
    UDP, TCP;

    public static Transport parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("transport must be udp or tcp, not \"" + text + "\"");
        }
    }

    public String sipName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

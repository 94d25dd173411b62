package io.trunkgate.config;

import java.util.Optional;

/** The {@code admin} block of gateway.conf: where the admin HTTP server listens and the token for changes. */
public record AdminSettings(String host, int port, Optional<String> token) {
}

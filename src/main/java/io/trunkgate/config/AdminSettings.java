package io.trunkgate.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code admin} block of gateway.conf: where the admin HTTP server listens, the token for changes, and the
 * limits on its connections: how long a client has to send its whole request, and how many connections may be
 * open at once in total and from one source address.
 *
 * @param tokenFile where the gateway writes a token it makes at start when {@code token} is unset (admin.token-file,
 *                  resolved against state-dir), for the CLI to read; empty: none is made, changes are refused
 */
public record AdminSettings(String host, int port, Optional<String> token, Duration requestTimeout,
                            int maxConnections, int maxConnectionsPerAddress, Optional<Path> tokenFile) {

    public AdminSettings(String host, int port, Optional<String> token, Duration requestTimeout, int maxConnections,
                         int maxConnectionsPerAddress) {
        this(host, port, token, requestTimeout, maxConnections, maxConnectionsPerAddress, Optional.empty());
    }

    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 32;
}

package io.trunkgate.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Where reroute hooks come from besides the class path.
 *
 * @param pluginsDir    a directory whose jars are loaded at start (hooks found by ServiceLoader or named in
 *                      {@code routing.reroute-hook})
 * @param url           an HTTP hook: receives the reroute context as JSON, answers the carriers to try
 * @param timeout       the longest a call waits for the HTTP hook before the configured chain is used
 * @param maxConcurrent HTTP hook requests in flight at once; a call beyond it uses the configured chain
 */
public record RerouteSettings(Optional<Path> pluginsDir, Optional<URI> url, Duration timeout, int maxConcurrent) {

    public static final RerouteSettings NONE = new RerouteSettings(Optional.empty(), Optional.empty(),
            Duration.ofMillis(50), 32);
}

package io.trunkgate.cli;

import io.trunkgate.config.AdminSettings;
import io.trunkgate.config.AdminTokenFile;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.ConfigLoader;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the admin commands find the gateway and the token they send: {@code --admin URL}, else the admin
 * server of {@code --config}'s gateway.conf, else {@value #DEFAULT_ADMIN}; the token from {@code --token-file},
 * else the environment variable {@value #TOKEN_VARIABLE} (the one the gateway itself reads), else the file a gateway
 * without a token wrote (admin.token-file: {@code --config}'s, else {@value #TOKEN_FILE} in the working directory).
 */
final class AdminOptions {

    static final String TOKEN_VARIABLE = "TRUNKGATE_ADMIN_TOKEN";
    /** The admin server of a gateway.conf that names none (admin.host and admin.port by default). */
    static final String DEFAULT_ADMIN = "http://127.0.0.1:8080";
    /** The token file of the sample gateway.conf (admin.token-file), in the working directory, its state-dir. */
    static final String TOKEN_FILE = "admin.token";

    @Option(names = "--admin", paramLabel = "URL",
            description = "the gateway's admin API (default: from --config, else " + DEFAULT_ADMIN + ")")
    URI admin;

    @Option(names = "--config", paramLabel = "FILE", description = "gateway.conf, to find the admin API's address")
    Path config;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "a file holding the admin token (default: the " + TOKEN_VARIABLE + " environment variable)")
    Path tokenFile;

    @Option(names = "--json", description = "print the admin API's JSON answer as it came")
    boolean json;

    /** The environment the token variable is read from (a test gives its own). */
    Map<String, String> environment = System.getenv();

    AdminCall call() {
        return new AdminCall(base(), token());
    }

    URI base() {
        if (admin != null) {
            String text = admin.toString();
            if (admin.getScheme() == null || admin.getHost() == null) {
                throw new CliFailure(CliFailure.USAGE, "--admin " + text + ": not a URL like http://127.0.0.1:8080");
            }
            return URI.create(text.endsWith("/") ? text : text + "/");
        }
        if (config == null) {
            return URI.create(DEFAULT_ADMIN + "/");
        }
        AdminSettings settings = settings();
        String host = settings.host();
        // a server on every address is reached on loopback
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isBlank()) {
            host = "127.0.0.1";
        } else if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + settings.port() + "/");
    }

    private AdminSettings settings() {
        try {
            return ConfigLoader.load(config).admin();
        } catch (ConfigException e) {
            throw new CliFailure(CliFailure.USAGE, config + ": " + e.errors().size()
                    + " error(s); see trunkgate check-config --config " + config);
        }
    }

    Optional<String> token() {
        if (tokenFile != null) {
            try {
                String token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
                if (token.isEmpty()) {
                    throw new CliFailure(CliFailure.USAGE, "--token-file " + tokenFile + " is empty");
                }
                return Optional.of(token);
            } catch (IOException e) {
                throw new CliFailure(CliFailure.USAGE, "--token-file " + tokenFile + ": cannot read it (" + e + ")");
            }
        }
        Optional<String> variable = Optional.ofNullable(environment.get(TOKEN_VARIABLE)).map(String::strip)
                .filter(t -> !t.isEmpty());
        if (variable.isPresent()) {
            return variable;
        }
        Optional<Path> made = config == null ? Optional.of(Path.of(TOKEN_FILE)) : settings().tokenFile();
        try {
            return made.isEmpty() ? Optional.empty() : AdminTokenFile.read(made.get());
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, made.get() + ": cannot read the admin token (" + e + ")");
        }
    }
}

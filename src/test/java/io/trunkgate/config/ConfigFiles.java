package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A configuration directory written file by file in a test's temporary directory. */
final class ConfigFiles {

    private final Path dir;

    ConfigFiles(Path dir) {
        this.dir = dir;
        write("gateway.conf", "fleet-size = 1\n");
    }

    ConfigFiles write(String name, String content) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path path(String name) {
        return dir.resolve(name);
    }

    GatewayConfig load() throws ConfigException {
        return ConfigLoader.load(path("gateway.conf"));
    }

    List<ConfigError> errors() {
        return assertThrows(ConfigException.class, this::load).errors();
    }

    /** Loads with the TLS files read through {@code tlsFiles}, as the gateway and check-config do. */
    GatewayConfig load(TlsFileCheck tlsFiles) throws ConfigException {
        return ConfigLoader.load(path("gateway.conf"), tlsFiles);
    }

    List<ConfigError> errors(TlsFileCheck tlsFiles) {
        return assertThrows(ConfigException.class, () -> load(tlsFiles)).errors();
    }

    /** Asserts an error at exactly this file, line and key whose message contains {@code message}. */
    static ConfigError assertError(List<ConfigError> errors, Path file, int line, String key, String message) {
        return errors.stream()
                .filter(e -> e.file().equals(file) && e.line() == line && e.key().equals(key)
                        && e.message().contains(message))
                .findFirst()
                .orElseGet(() -> fail("no error " + file + ":" + line + ": " + key + ": ..." + message + "... among:\n"
                        + errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n"))));
    }
}

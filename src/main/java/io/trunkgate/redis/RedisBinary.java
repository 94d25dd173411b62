package io.trunkgate.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a redis-server to run: the one on PATH, else the Linux (amd64 or arm64) binary shipped in the embedded-redis
 * artifact; the jar carries no other platform's (pom.xml, shade filters), so elsewhere redis-server must be on PATH.
 */
public final class RedisBinary {

    private RedisBinary() {
    }

    /** The redis-server on PATH, else the bundled one extracted into {@code dir} (removed with it). */
    public static Path locate(Path dir) {
        return onPath().orElseGet(() -> extractBundled(dir));
    }

    static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Path extractBundled(Path dir) {
        String resource = bundledResourceName();
        try (InputStream in = RedisBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server on PATH and none bundled for this platform ("
                        + resource + "); install redis-server or use redis.mode = standalone");
            }
            Path target = dir.resolve("redis-server");
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("cannot make " + target + " executable");
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the bundled redis-server", e);
        }
    }

    private static String bundledResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            return arch.contains("aarch64") || arch.contains("arm64")
                    ? "/redis-server-6.2.7-linux-arm64" : "/redis-server-6.2.6-v5-linux-amd64";
        }
        return "/unsupported-platform-" + os + "-" + arch;
    }
}

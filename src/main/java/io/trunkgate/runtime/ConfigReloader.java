package io.trunkgate.runtime;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.tls.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live reload: polls the configuration files for changes (gateway.conf, the peer, group and carrier files,
 * routes.conf: a file added or removed, or a size or modification time changed; contents are read only to reload)
 * and on a change loads and validates everything again. A valid configuration is handed to the gateway, which
 * swaps it in atomically; one that is invalid, or whose reload fails in any way (an exception, out of memory), is
 * refused, every error logged with file, line and key and kept for /health, and the running configuration stays.
 * Reloads run one at a time on one thread.
 */
public final class ConfigReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    /** The outcome of one reload: applied as {@code generation}, or refused with {@code errors}. */
    public record Attempt(Instant at, String trigger, boolean applied, long generation, List<ConfigError> errors) {
    }

    private final Path source;
    /** Swaps in a validated configuration, or refuses it with the errors that make it unsafe to run. */
    public interface Applier {
        void apply(GatewayConfig config) throws ConfigException;
    }

    private final Applier apply;
    private final LongSupplier generation;
    private final Runnable refused;
    private final ScheduledExecutorService worker;
    private final Optional<ScheduledFuture<?>> polling;
    private String fingerprint;
    /** Where the configuration is read from, as gateway.conf said when it had the stamp {@link #sourcesReadFrom}. */
    private List<Path> sources = List.of();
    private String sourcesReadFrom;
    /** Why the files could not be checked, while they cannot: one refused attempt per reason, not one a poll. */
    private String checkFailure;
    private volatile Optional<Attempt> last = Optional.empty();
    private final Object swap = new Object();

    /**
     * @param source     gateway.conf; when it is not a file (a configuration built in code) nothing is watched
     *                   and a reload is refused
     * @param apply      swaps in a validated configuration
     * @param generation the active generation, for reports
     * @param refused    told of every refused reload (metrics)
     * @param poll       how often the files are checked for changes
     * @param worker     one thread, which polls and reloads; its owner stops it
     */
    public ConfigReloader(Path source, Applier apply, LongSupplier generation, Runnable refused, Duration poll,
                          ScheduledExecutorService worker) {
        this.source = source;
        this.apply = apply;
        this.generation = generation;
        this.refused = refused;
        this.worker = worker;
        if (Files.isRegularFile(source)) {
            fingerprint = fingerprint();
            polling = Optional.of(worker.scheduleWithFixedDelay(this::poll, poll.toMillis(), poll.toMillis(),
                    TimeUnit.MILLISECONDS));
        } else {
            polling = Optional.empty();
        }
    }

    /** Loads the configuration again now, changed or not (POST /api/reload). */
    public CompletionStage<Attempt> reload() {
        return CompletableFuture.supplyAsync(() -> {
            fingerprint = fingerprint();
            return attempt("request");
        }, worker);
    }

    /** The last reload, if any happened since start. */
    public Optional<Attempt> lastAttempt() {
        return last;
    }

    private void poll() {
        try {
            String now = fingerprint();
            boolean recovered = checkFailure != null;
            checkFailure = null;
            if (!now.equals(fingerprint) || recovered) {
                fingerprint = now;
                attempt("file change");
            }
        } catch (Throwable e) {
            // Whatever happens, the next poll must run: a scheduled task that throws is never run again.
            String reason = "the configuration files could not be checked for changes: " + e;
            if (!reason.equals(checkFailure)) {
                checkFailure = reason;
                last = Optional.of(refuse("file change", List.of(new ConfigError(source, 0, "", reason))));
            }
        }
    }

    /**
     * Runs {@code read} while no reload is being swapped in, so that what it reads of the active configuration
     * and of {@link #lastAttempt()} belong together.
     */
    public <T> T consistently(Supplier<T> read) {
        synchronized (swap) {
            return read.get();
        }
    }

    private Attempt attempt(String trigger) {
        Attempt attempt;
        try {
            GatewayConfig config = ConfigLoader.load(source, TlsFiles.CHECK);
            synchronized (swap) {
                apply.apply(config);
                attempt = new Attempt(Instant.now(), trigger, true, generation.getAsLong(), List.of());
                last = Optional.of(attempt);
            }
            log.info("config reloaded ({}): generation {} active", trigger, attempt.generation());
        } catch (ConfigException e) {
            attempt = refuse(trigger, e.errors());
        } catch (RuntimeException e) {
            attempt = refuse(trigger, List.of(new ConfigError(source, 0, "", "cannot apply: " + e.getMessage())));
        } catch (StackOverflowError e) {
            attempt = refuse(trigger, List.of(new ConfigError(source, 0, "", "nested too deeply to read")));
        } catch (Throwable e) {
            // Out of memory included: what the failed reload took is garbage now, and the running config stays.
            log.error("config reload ({}) failed", trigger, e);
            attempt = refuse(trigger, List.of(new ConfigError(source, 0, "", "the reload failed: " + e)));
        }
        last = Optional.of(attempt);
        return attempt;
    }

    private Attempt refuse(String trigger, List<ConfigError> errors) {
        refused.run();
        long running = generation.getAsLong();
        log.error("config reload ({}) refused, generation {} keeps running:{}", trigger, running,
                errors.stream().map(e -> "\n  " + e).collect(Collectors.joining()));
        return new Attempt(Instant.now(), trigger, false, running, errors);
    }

    /**
     * The name, size, modification time and identity (inode) of every configuration file, so any edit, replacement,
     * new or removed file changes it; no contents are read. Where the files are is read from gateway.conf only when
     * its own stamp changed: parsing it every second kept the JIT compiler busy with the config library long after
     * start.
     */
    private String fingerprint() {
        try {
            String gatewayConf = stamp(source);
            if (!gatewayConf.equals(sourcesReadFrom)) {
                sources = ConfigLoader.sources(source);
                sourcesReadFrom = gatewayConf;
            }
            StringBuilder stamps = new StringBuilder();
            for (Path path : sources) {
                for (Path file : files(path)) {
                    stamps.append(stamp(file)).append('\n');
                }
            }
            return stamps.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** "path size mtime inode" of a file; "path -" when it is not there. */
    private static String stamp(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return file + " -";
        }
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return file + " " + attributes.size() + " " + attributes.lastModifiedTime().toInstant() + " "
                + attributes.fileKey();
    }

    /** A file itself, or the *.conf files of a directory in name order; nothing when it does not exist. */
    private static List<Path> files(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(path)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".conf") && Files.isRegularFile(p))
                    .sorted().toList();
        }
    }

    @Override
    /** Stops watching the files; a reload under way finishes. */
    public void close() {
        polling.ifPresent(task -> task.cancel(false));
    }
}

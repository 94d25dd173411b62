package io.trunkgate.route;

import java.io.IOException;
import java.io.UncheckedIOException;
import io.trunkgate.route.internal.HttpRerouteHook;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Finds the reroute hook in use: the class named in config, else the first found by ServiceLoader, else the
 * chain. Both look in the plugin jars as well as on the class path.
 */
public final class RerouteHooks {

    private RerouteHooks() {
    }

    public static RerouteHook load(Optional<String> className) {
        return load(className, RerouteHooks.class.getClassLoader());
    }

    public static RerouteHook load(Optional<String> className, ClassLoader loader) {
        if (className.isPresent()) {
            try {
                Class<?> type = Class.forName(className.get(), true, loader);
                return (RerouteHook) type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
                throw new IllegalArgumentException("cannot load reroute hook " + className.get()
                        + ": it must be a public class implementing io.trunkgate.route.RerouteHook with a public"
                        + " no-argument constructor, on the class path or in a jar of plugins-dir (" + e + ")", e);
            }
        }
        return ServiceLoader.load(RerouteHook.class, loader).findFirst().orElse(RerouteHook.CONFIGURED_CHAIN);
    }

    /**
     * The HTTP hook at {@code url}: at most {@code timeout} per reroute and {@code maxConcurrent} requests in
     * flight, else the configured chain; each request's outcome goes to {@code outcomes}. The HTTP client works on
     * {@code executor}, and the call goes on there after the hook's answer or its timeout (timed on {@code timers}).
     */
    public static RerouteHook http(URI url, Duration timeout, int maxConcurrent, Consumer<String> outcomes,
                                   Executor executor, ScheduledExecutorService timers) {
        return new HttpRerouteHook(url, timeout, maxConcurrent, outcomes, executor, timers);
    }

    /**
     * A class loader over every {@code *.jar} in {@code dir} (in name order), whose parent is trunkgate's own:
     * a plugin sees the hook API and nothing of another plugin's dependencies that trunkgate also has.
     */
    public static ClassLoader plugins(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
            URL[] urls = new URL[jars.size()];
            for (int i = 0; i < urls.length; i++) {
                urls[i] = jars.get(i).toUri().toURL();
            }
            return new URLClassLoader("trunkgate-plugins", urls, RerouteHooks.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("plugins-dir " + dir + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list plugins-dir " + dir, e);
        }
    }
}

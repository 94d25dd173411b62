package io.trunkgate.bench;

import io.trunkgate.runtime.ConfigReloader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The CPU time the config-reload thread spends checking unchanged files for 10 s at the gateway's one poll a
 * second, with a routes.conf of the megabytes given as the argument (50 by default). Prints one line.
 */
public final class ConfigPollCost {

    private ConfigPollCost() {
    }

    public static void main(String[] args) throws Exception {
        int megabytes = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        Path dir = Files.createTempDirectory("config-poll-cost");
        Files.writeString(dir.resolve("gateway.conf"), "instance-id = poll-cost\n");
        Files.write(dir.resolve("routes.conf"), ("# " + "x".repeat(1021) + "\n").repeat(megabytes * 1024)
                .getBytes(StandardCharsets.US_ASCII));
        AtomicReference<Thread> worker = new AtomicReference<>();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "config-reload");
            worker.set(thread);
            return thread;
        });
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (ConfigReloader reloader = new ConfigReloader(dir.resolve("gateway.conf"), config -> { }, () -> 1,
                () -> { }, Duration.ofSeconds(1), executor)) {
            executor.submit(() -> { }).get();
            long before = threads.getThreadCpuTime(worker.get().getId());
            Thread.sleep(10_000);
            long after = threads.getThreadCpuTime(worker.get().getId());
            System.out.printf("routes.conf of %d MB, unchanged: config-reload thread CPU over 10 s: %.3f s%s%n",
                    megabytes, (after - before) / 1e9, reloader.lastAttempt().isPresent() ? " (reloaded!)" : "");
        } finally {
            executor.shutdownNow();
        }
    }
}

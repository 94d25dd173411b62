package io.trunkgate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.GatewayConfig;
import io.trunkgate.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Polling the files: what makes a reload, and that a reload failing in any way is refused, never lost. */
class ConfigReloaderTest {

    /** The reloader's one thread, counting the tasks it ran: each poll is one. */
    private static final class CountingWorker extends ScheduledThreadPoolExecutor {
        final AtomicInteger runs = new AtomicInteger();

        CountingWorker() {
            super(1);
        }

        @Override
        protected void afterExecute(Runnable task, Throwable error) {
            super.afterExecute(task, error);
            runs.incrementAndGet();
        }

        /** Until {@code more} polls ran after this call: at least one of them started after it. */
        void awaitPolls(int more) {
            int target = runs.get() + more;
            Await.until(Duration.ofSeconds(10), runs::get, n -> n >= target);
            assertTrue(runs.get() >= target, "the reloader stopped polling");
        }
    }

    @TempDir
    Path dir;
    private final CountingWorker worker = new CountingWorker();
    private Path gatewayConf;
    private Path peer;

    @BeforeEach
    void files() throws Exception {
        gatewayConf = Files.writeString(dir.resolve("gateway.conf"), "instance-id = reloader-test\n");
        Files.createDirectories(dir.resolve("peers"));
        peer = Files.writeString(dir.resolve("peers/acme.conf"), "id = acme\nmatch.sources = [\"10.0.0.1\"]\n"
                + "limits = [ { window = 1s, max = 5 } ]\n");
    }

    @AfterEach
    void stop() {
        worker.shutdownNow();
    }

    @Test
    void aFileIsReadOnlyWhenItsSizeOrModificationTimeChanged() throws Exception {
        List<GatewayConfig> applied = new ArrayList<>();
        try (ConfigReloader reloader = new ConfigReloader(gatewayConf, applied::add, applied::size, () -> { },
                Duration.ofMillis(5), worker)) {
            FileTime written = Files.getLastModifiedTime(peer);
            // Same size, same time, other (and invalid) contents: a poll that read it would refuse it. Written on the
            // reloader's one thread, so that no poll sees the file between the write and the time set back.
            worker.submit(() -> {
                Files.writeString(peer,
                        "id = acme\nmatch.sources = [\"10.0.0.1\"]\nlimits = [ { window = 1x, max = 5 } ]\n");
                return Files.setLastModifiedTime(peer, written);
            }).get();
            worker.awaitPolls(3);
            assertEquals(Optional.empty(), reloader.lastAttempt(), "nothing read while no size or time changed");

            Files.setLastModifiedTime(peer, FileTime.fromMillis(written.toMillis() + 1000));
            ConfigReloader.Attempt attempt = Await.until(Duration.ofSeconds(10), reloader::lastAttempt,
                    Optional::isPresent).orElseThrow();
            assertFalse(attempt.applied(), "read once its time changed: " + attempt);
            assertEquals("limits[0].window", attempt.errors().get(0).key());
        }
    }

    @Test
    void aReloadThatFailsInAnyWayIsRefusedWithTheReason() throws Exception {
        AtomicInteger refused = new AtomicInteger();
        ConfigReloader.Applier outOfMemory = config -> {
            throw new OutOfMemoryError("Java heap space");
        };
        try (ConfigReloader reloader = new ConfigReloader(gatewayConf, outOfMemory, () -> 1, refused::incrementAndGet,
                Duration.ofMillis(5), worker)) {
            Files.writeString(peer, "id = acme\nmatch.sources = [\"10.0.0.1\"]\nlimits = [ { window = 1s, max = 6 } ]\n");
            ConfigReloader.Attempt polled = Await.until(Duration.ofSeconds(10), reloader::lastAttempt,
                    Optional::isPresent).orElseThrow();
            assertFalse(polled.applied(), polled.toString());
            assertTrue(polled.errors().get(0).message().contains("OutOfMemoryError: Java heap space"), polled.toString());
            assertEquals(1, refused.get(), "counted as a refused reload");
            worker.awaitPolls(2);
            assertEquals(polled, reloader.lastAttempt().orElseThrow(), "the watcher goes on, and reloads no more");

            ConfigReloader.Attempt requested = reloader.reload().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertFalse(requested.applied());
            assertTrue(requested.errors().get(0).message().contains("OutOfMemoryError"), requested.toString());
        }
    }
}

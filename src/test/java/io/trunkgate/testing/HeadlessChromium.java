package io.trunkgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Headless chromium (on PATH; .ci/run installs it) opening a page: a screenshot of it, or its DOM after its scripts
 * ran. Each run gets a profile of its own under {@code profiles}, so runs do not share state.
 */
public final class HeadlessChromium {

    private final String chromium;
    private final Path profiles;

    private HeadlessChromium(String chromium, Path profiles) {
        this.chromium = chromium;
        this.profiles = profiles;
    }

    /** Chromium on PATH, its profiles under {@code profiles}; the test is skipped where it is not installed. */
    public static HeadlessChromium onPathOrSkip(Path profiles) {
        Optional<String> found = onPath("chromium");
        Assumptions.assumeTrue(found.isPresent(), "chromium is not on PATH");
        return new HeadlessChromium(found.get(), profiles);
    }

    /** Writes a screenshot of {@code url} to {@code png}, in a window of {@code width} x {@code height}. */
    public void screenshot(String url, Path png, int width, int height) throws Exception {
        run(command("--window-size=" + width + "," + height, "--screenshot=" + png, url));
        assertTrue(Files.exists(png), "no screenshot written");
    }

    /** The DOM of {@code url} once loaded and its scripts ran (chromium's {@code --dump-dom}). */
    public String dumpDom(String url) throws Exception {
        return run(command("--dump-dom", url));
    }

    /** Asserts {@code png} is a PNG of {@code width} x {@code height} of more than {@code minBytes}: not blank. */
    public static void assertScreenshot(Path png, int width, int height, int minBytes) throws IOException {
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > minBytes, "a page with content, not a blank one: " + bytes.length + " bytes");
        assertEquals("PNG", new String(bytes, 1, 3, StandardCharsets.US_ASCII));
        ByteBuffer header = ByteBuffer.wrap(bytes, 16, 8);
        assertEquals(width, header.getInt());
        assertEquals(height, header.getInt());
    }

    private List<String> command(String... more) {
        List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profiles.resolve(UUID.randomUUID().toString()),
                "--virtual-time-budget=3000"));
        command.addAll(List.of(more));
        return command;
    }

    /** Runs chromium to completion (killed after 120 s) and returns what it printed. */
    private String run(List<String> command) throws Exception {
        Files.createDirectories(profiles);
        Path out = Files.createTempFile(profiles, "chromium", ".out");
        Path log = Files.createTempFile(profiles, "chromium", ".log");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("chromium did not finish within 120 s: " + Files.readString(log));
        }
        assertEquals(0, process.exitValue(), "chromium failed: " + Files.readString(log));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static Optional<String> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File file = new File(dir, name);
            if (file.canExecute()) {
                return Optional.of(file.getAbsolutePath());
            }
        }
        return Optional.empty();
    }
}

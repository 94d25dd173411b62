package io.trunkgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents stay readable: the README and bench/README.md within their length, each key of conf/README.md
 * explained in one short cell (reasoning belongs in docs/), and no document but bench/RESULTS.md, the dated
 * history the bench scripts append to, carries a commit hash or a numbered work-period label.
 */
class DocumentsTest {

    static final int README_LINES = 250;
    static final int BENCH_README_LINES = 300;
    static final int CONF_CELL_CHARS = 400;

    /**
     * A commit hash as git abbreviates or prints it: 7 to 40 lowercase hex digits with both a digit and a letter,
     * standing alone. Hex that is part of something longer is not one: a SHA-256 fingerprint (64 digits), a UUID
     * or a colon-separated fingerprint (joined by '-' or ':'), a decimal number (no letter), a word (no digit).
     */
    static final Pattern COMMIT_HASH = Pattern.compile(
            "(?<![0-9A-Za-z_:\\-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_:\\-])");
    /** A label of a numbered work period: the period's word (session, sprint, iteration) and its number. */
    static final Pattern WORK_PERIOD = Pattern.compile("(?i)\\b(session|sprint|iteration)\\s+\\d+\\b");

    /** The one document that carries dated runs with their commits. */
    static final Path RESULTS = Path.of("bench", "RESULTS.md");
    static final Set<String> SKIPPED_DIRS = Set.of("target", "node_modules", ".git", ".mvn");

    private final Path root = Path.of("").toAbsolutePath();

    @Test
    void readmeFitsItsLength() {
        assertAtMost(root.resolve("README.md"), README_LINES);
    }

    @Test
    void benchReadmeFitsItsLength() {
        assertAtMost(root.resolve("bench/README.md"), BENCH_README_LINES);
    }

    @Test
    void everyConfigurationCellIsShort() {
        List<String> tooLong = longCells(root.resolve("conf/README.md"), CONF_CELL_CHARS);
        assertEquals(List.of(), tooLong, "conf/README.md cells over " + CONF_CELL_CHARS
                + " characters: move the reasoning to docs/ and link it");
    }

    @Test
    void noDocumentCarriesWorkPeriodsAndOnlyTheResultsCarryCommits() {
        List<String> found = new ArrayList<>();
        for (Path doc : documents(root)) {
            found.addAll(labels(root, doc, COMMIT_HASH, WORK_PERIOD));
        }
        found.addAll(labels(root, root.resolve(RESULTS), WORK_PERIOD));
        assertEquals(List.of(), found, "commit hashes belong in " + RESULTS + " only (dated runs appended by"
                + " bench/lib/results.sh), and work-period labels nowhere: a run is named by its date");
    }

    @Test
    void theRulesTellAHashFromOtherHex() {
        assertTrue(COMMIT_HASH.matcher("the build before (6bde107) at 22:22").find());
        assertTrue(COMMIT_HASH.matcher("commit 4b989cb1f0e2a7d3c5b6a8e9f01234567890abcd here").find());
        assertTrue(WORK_PERIOD.matcher("measured in iteration 13").find());
        assertTrue(WORK_PERIOD.matcher("Sprint 4's build").find());
        // SHA-256 fingerprints, UUIDs, colon-separated fingerprints, decimal timestamps, plain words
        assertTrue(!COMMIT_HASH.matcher(
                "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08").find());
        assertTrue(!COMMIT_HASH.matcher("id 550e8400-e29b-41d4-a716-446655440000").find());
        assertTrue(!COMMIT_HASH.matcher("AB:CD:EF:12:34:56:78:9a:bc:de").find());
        assertTrue(!COMMIT_HASH.matcher("1795423415133867 ok, and accepted, deadbeef").find());
        assertTrue(!WORK_PERIOD.matcher("an RFC 4028 session timer of 1800 s").find());
    }

    /** Every Markdown file of the repository but the results file and build output. */
    static List<Path> documents(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(p -> !root.relativize(p).equals(RESULTS))
                    .filter(p -> root.relativize(p).getNameCount() == 1
                            || !SKIPPED_DIRS.contains(root.relativize(p).getName(0).toString()))
                    .filter(p -> !root.relativize(p).toString().contains("/target/"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code file:line: token} for each match of {@code patterns} in the document. */
    static List<String> labels(Path root, Path doc, Pattern... patterns) {
        List<String> found = new ArrayList<>();
        List<String> lines = read(doc);
        for (int i = 0; i < lines.size(); i++) {
            for (Pattern pattern : patterns) {
                Matcher m = pattern.matcher(lines.get(i));
                while (m.find()) {
                    found.add(root.relativize(doc) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        return found;
    }

    /** {@code line: key (N chars)} for each table cell longer than {@code max} characters. */
    static List<String> longCells(Path doc, int max) {
        List<String> found = new ArrayList<>();
        List<String> lines = read(doc);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.startsWith("|")) {
                continue;
            }
            String[] cells = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length())
                    .split("(?<!\\\\)\\|");
            for (String cell : cells) {
                if (cell.strip().length() > max) {
                    found.add((i + 1) + ": " + cells[0].strip() + " (" + cell.strip().length() + " chars)");
                }
            }
        }
        return found;
    }

    private void assertAtMost(Path doc, int maxLines) {
        int lines = read(doc).size();
        assertTrue(lines <= maxLines, root.relativize(doc) + " has " + lines + " lines, at most " + maxLines);
    }

    private static List<String> read(Path doc) {
        try {
            return Files.readAllLines(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

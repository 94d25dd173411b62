package io.trunkgate.throttle;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A logger for lines whose text and number a remote party controls, such as what the SIP stack says about a
 * malformed message. Every line is one line: control and line-separator characters are escaped and the text is
 * cut at {@value #MAX_CHARS} characters, so received text can neither start a log line nor forge one. At INFO and
 * above at most {@code linesPerSecond} lines a second are written (as a burst of as many); the lines held back are
 * counted and reported in one line {@code summaryDelay} after the first of them, so a flood of bad input costs a
 * few lines instead of one per message. DEBUG and TRACE, turned on to diagnose, are escaped but never held back.
 */
public final class ThrottledLog {

    public static final int MAX_CHARS = 1000;

    private final Logger log;
    private final int linesPerSecond;
    private final Duration summaryDelay;
    private final TokenBucket budget = new TokenBucket();
    private final AtomicInteger suppressed = new AtomicInteger();
    private final AtomicInteger highestSuppressedLevel = new AtomicInteger(Level.TRACE.toInt());
    private final AtomicBoolean summaryDue = new AtomicBoolean();

    public ThrottledLog(Logger log, int linesPerSecond, Duration summaryDelay) {
        this.log = log;
        this.linesPerSecond = linesPerSecond;
        this.summaryDelay = summaryDelay;
    }

    public void log(Level level, String message) {
        log(level, message, null);
    }

    /** Logs {@code message}, followed by the type and message of {@code cause} (never its stack trace) if given. */
    public void log(Level level, String message, Throwable cause) {
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        if (level.toInt() >= Level.INFO.toInt()
                && !budget.tryTake(System.nanoTime(), linesPerSecond, linesPerSecond)) {
            suppressed.incrementAndGet();
            highestSuppressedLevel.accumulateAndGet(level.toInt(), Math::max);
            if (summaryDue.compareAndSet(false, true)) {
                CompletableFuture.runAsync(this::reportSuppressed,
                        CompletableFuture.delayedExecutor(summaryDelay.toNanos(), TimeUnit.NANOSECONDS));
            }
            return;
        }
        String text = cause == null ? message : message + ": " + cause;
        log.atLevel(level).log(oneLine(text, MAX_CHARS));
    }

    private void reportSuppressed() {
        summaryDue.set(false);
        int count = suppressed.getAndSet(0);
        Level level = Level.intToLevel(highestSuppressedLevel.getAndSet(Level.TRACE.toInt()));
        if (count > 0) {
            log.atLevel(level).log("{} more log lines suppressed (over {} a second)", count, linesPerSecond);
        }
    }

    /**
     * {@code text} as one line of at most {@code maxChars} characters plus a note of its length: CR, LF, tab and
     * backslash as {@code \r \n \t \\}, other control, format and line-separator characters as {@code \}{@code uXXXX}.
     */
    public static String oneLine(String text, int maxChars) {
        StringBuilder line = new StringBuilder(Math.min(text.length(), maxChars) + 32);
        int i = 0;
        for (; i < text.length() && line.length() < maxChars; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\r' -> line.append("\\r");
                case '\n' -> line.append("\\n");
                case '\t' -> line.append("\\t");
                case '\\' -> line.append("\\\\");
                default -> {
                    int type = Character.getType(c);
                    if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                            || type == Character.PARAGRAPH_SEPARATOR) {
                        line.append(String.format("\\u%04x", (int) c));
                    } else {
                        line.append(c);
                    }
                }
            }
        }
        if (i < text.length()) {
            line.append("... (").append(text.length()).append(" characters)");
        }
        return line.toString();
    }
}

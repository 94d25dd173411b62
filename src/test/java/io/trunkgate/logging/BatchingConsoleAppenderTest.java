package io.trunkgate.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The console log: every line, in order, formatted as the thread that logged it saw it, several lines to a write,
 * and all of them written when logback stops; lines that find the queue full are dropped and said to be.
 */
class BatchingConsoleAppenderTest {

    private final LoggerContext context = new LoggerContext();
    private final Logger logger = context.getLogger("trunkgate.calls");

    /** What was written, one entry per write; the first write waits for {@link #release}. */
    private final List<String> writes = new ArrayList<>();
    private final CountDownLatch writing = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final ByteArrayOutputStream out = new ByteArrayOutputStream() {
        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writing.countDown();
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            writes.add(new String(b, off, len, StandardCharsets.UTF_8));
        }
    };

    @Test
    void linesLoggedWhileOneIsWrittenGoOutTogetherAndAllByTheStop() throws Exception {
        BatchingConsoleAppender appender = appender(8192);
        logger.info("call={} final={}", "a", 200);
        assertTrue(writing.await(30, TimeUnit.SECONDS), "the first line was not written");
        StringBuilder mutable = new StringBuilder("b");
        logger.info("call={} final={}", mutable, 503);
        mutable.append("-changed later");
        logger.info("call={} final={}", "c", 486);
        logger.info("call={} final={}", "d", 200);
        release.countDown();
        context.stop();
        assertEquals(List.of("call=a final=200\n", "call=b final=503\ncall=c final=486\ncall=d final=200\n"), writes);
        assertTrue(!appender.isStarted());
    }

    @Test
    void linesBeyondTheQueueAreDroppedAndCounted() throws Exception {
        appender(2);
        logger.info("first");
        assertTrue(writing.await(30, TimeUnit.SECONDS), "the first line was not written");
        for (int i = 0; i < 5; i++) {
            logger.info("line {}", i);
        }
        release.countDown();
        context.stop();
        assertEquals(List.of("first\n", "line 0\nline 1\n3 log lines dropped: more than 2 were waiting to be"
                + " written\n"), writes);
    }

    private BatchingConsoleAppender appender(int queueSize) {
        context.setMDCAdapter(new LogbackMDCAdapter());
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        BatchingConsoleAppender appender = new BatchingConsoleAppender(out);
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.setQueueSize(queueSize);
        appender.start();
        logger.addAppender(appender);
        return appender;
    }
}

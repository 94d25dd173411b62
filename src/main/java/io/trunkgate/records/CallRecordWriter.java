package io.trunkgate.records;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.FileSize;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.CallRecordSettings;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Writes call records as JSON lines to a size-rotated file (logback's rolling appender does the writing and
 * rotation, asynchronously safe for many threads). A writer without a file writes nothing.
 */
public final class CallRecordWriter implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Logger logger;
    private final RollingFileAppender<ILoggingEvent> appender;
    private final Predicate<CallRecord> keep;

    private CallRecordWriter(Logger logger, RollingFileAppender<ILoggingEvent> appender, Predicate<CallRecord> keep) {
        this.logger = logger;
        this.appender = appender;
        this.keep = keep;
    }

    public static CallRecordWriter none() {
        return new CallRecordWriter(null, null, record -> false);
    }

    /** A writer to {@code settings.file()} under a logger of its own ({@code name} tells instances apart). */
    public static CallRecordWriter open(CallRecordSettings settings, String name) {
        return open(settings, name, record -> true);
    }

    /** As {@link #open(CallRecordSettings, String)}, writing only the records {@code keep} accepts. */
    public static CallRecordWriter open(CallRecordSettings settings, String name, Predicate<CallRecord> keep) {
        if (settings.file().isEmpty()) {
            return none();
        }
        Path file = settings.file().get().toAbsolutePath();
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setContext(context);
        appender.setName("call-records-" + name);
        appender.setFile(file.toString());
        FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
        rolling.setContext(context);
        rolling.setParent(appender);
        rolling.setFileNamePattern(file + ".%i");
        rolling.setMinIndex(1);
        rolling.setMaxIndex(settings.maxFiles());
        rolling.start();
        SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
        trigger.setContext(context);
        trigger.setMaxFileSize(new FileSize((long) settings.maxFileMegabytes() * FileSize.MB_COEFFICIENT));
        trigger.start();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        appender.setRollingPolicy(rolling);
        appender.setTriggeringPolicy(trigger);
        appender.setEncoder(encoder);
        appender.start();
        Logger logger = context.getLogger("trunkgate.records." + name);
        logger.setAdditive(false);
        logger.addAppender(appender);
        return new CallRecordWriter(logger, appender, keep);
    }

    public void write(CallRecord record) {
        if (logger == null || !keep.test(record)) {
            return;
        }
        try {
            logger.info(JSON.writeValueAsString(fields(record)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a call record that Jackson cannot write: " + record, e);
        }
    }

    /** The record's fields in order, times in ISO 8601 (UTC), absent ones as null. */
    private static Map<String, Object> fields(CallRecord record) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("callId", record.callId());
        fields.put("peer", record.peer());
        fields.put("group", record.group());
        fields.put("admission", record.admission());
        fields.put("refusedBy", record.refusedBy());
        fields.put("carriers", record.carriers());
        fields.put("reroutes", record.reroutes());
        fields.put("heldMs", record.heldMs());
        fields.put("invitedAt", iso(record.invitedAt()));
        fields.put("answeredAt", iso(record.answeredAt()));
        fields.put("endedAt", iso(record.endedAt()));
        fields.put("durationMs", record.durationMs());
        fields.put("finalStatus", record.finalStatus());
        fields.put("endedBy", record.endedBy());
        fields.put("gateway", record.gateway());
        return fields;
    }

    private static String iso(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    @Override
    public void close() {
        if (logger != null) {
            logger.detachAppender(appender);
            appender.stop();
        }
    }
}

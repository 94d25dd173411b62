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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.LoggerFactory;

/**
 * Writes call records as JSON lines to a size-rotated file (logback's rolling appender does the writing and
 * rotation, safe for many threads). {@link #reopen()} lets the file be rotated from outside (logrotate moves it,
 * then the gateway gets SIGHUP): the writer closes what it has open and opens the configured path afresh, and no
 * record is lost or written twice meanwhile. A writer without a file writes nothing.
 */
public final class CallRecordWriter implements AutoCloseable {

    private static final Logger log = (Logger) LoggerFactory.getLogger(CallRecordWriter.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Logger logger;
    private final CallRecordSettings settings;
    private final String name;
    private final Predicate<CallRecord> keep;
    /**
     * When this writer opened, as the gateway started: every record of one run of a gateway has the same, so a
     * gateway restarted under its instance-id (killed: its calls in progress then have no record) shows in them.
     */
    private final String startedAt = iso(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    /** Writes share it; a reopen takes it alone, so no record meets the appender while it is swapped. */
    private final ReadWriteLock swap = new ReentrantReadWriteLock();
    private RollingFileAppender<ILoggingEvent> appender;
    private final List<Consumer<CallRecord>> listeners = new CopyOnWriteArrayList<>();

    private CallRecordWriter(Logger logger, CallRecordSettings settings, String name, Predicate<CallRecord> keep) {
        this.logger = logger;
        this.settings = settings;
        this.name = name;
        this.keep = keep;
    }

    /** {@code listener} gets every record given to {@link #write}, kept or not, file or not, before it is written. */
    public void listen(Consumer<CallRecord> listener) {
        listeners.add(listener);
    }

    public static CallRecordWriter none() {
        return new CallRecordWriter(null, null, null, record -> false);
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
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger logger = context.getLogger("trunkgate.records." + name);
        logger.setAdditive(false);
        CallRecordWriter writer = new CallRecordWriter(logger, settings, name, keep);
        writer.appender = writer.newAppender();
        logger.addAppender(writer.appender);
        return writer;
    }

    private RollingFileAppender<ILoggingEvent> newAppender() {
        Path file = settings.file().get().toAbsolutePath();
        LoggerContext context = logger.getLoggerContext();
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
        return appender;
    }

    public void write(CallRecord record) {
        listeners.forEach(listener -> listener.accept(record));
        if (logger == null || !keep.test(record)) {
            return;
        }
        String line;
        try {
            line = JSON.writeValueAsString(fields(record, startedAt));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a call record that Jackson cannot write: " + record, e);
        }
        swap.readLock().lock();
        try {
            logger.info(line);
        } finally {
            swap.readLock().unlock();
        }
    }

    /**
     * Closes the file and opens the configured path again, creating it if it was moved away (log rotation by
     * another tool); records written meanwhile wait for the new file.
     */
    public void reopen() {
        if (logger == null) {
            return;
        }
        swap.writeLock().lock();
        try {
            logger.detachAppender(appender);
            appender.stop();
            appender = newAppender();
            logger.addAppender(appender);
        } finally {
            swap.writeLock().unlock();
        }
        log.info("call records: {} reopened", settings.file().get());
    }

    /**
     * The record's fields in order, times in ISO 8601 (UTC), absent ones as null (see docs/records.md);
     * {@code gatewayStartedAt}: when the gateway run that wrote it started.
     */
    static Map<String, Object> fields(CallRecord record, String gatewayStartedAt) {
        Map<String, Object> fields = new LinkedHashMap<>();
        CallRecord.Caller caller = record.caller();
        fields.put("callId", record.callId());
        fields.put("fromTag", caller.fromTag());
        fields.put("cseq", caller.cseq());
        fields.put("gateway", record.gateway());
        fields.put("gatewayStartedAt", gatewayStartedAt);
        fields.put("sourceAddress", caller.sourceAddress());
        fields.put("transport", caller.transport());
        fields.put("fromUser", caller.fromUser());
        fields.put("toUser", caller.toUser());
        fields.put("requestUser", caller.requestUser());
        fields.put("paiUser", caller.paiUser());
        fields.put("peer", record.peer());
        fields.put("group", record.group());
        fields.put("admission", record.admission());
        fields.put("refusedBy", record.refusedBy());
        fields.put("wouldRefuse", record.wouldRefuse());
        fields.put("carriers", record.carriers());
        fields.put("reroutes", record.reroutes());
        fields.put("attempts", record.attempts().stream().map(CallRecordWriter::fields).toList());
        fields.put("finalCarrier", record.finalCarrier());
        fields.put("heldMs", record.heldMs());
        fields.put("invitedAt", iso(record.invitedAt()));
        fields.put("decidedAt", iso(record.decidedAt()));
        fields.put("pddMs", record.pddMs());
        fields.put("setupMs", record.setupMs());
        fields.put("answeredAt", iso(record.answeredAt()));
        fields.put("endedAt", iso(record.endedAt()));
        fields.put("durationMs", record.durationMs());
        fields.put("finalStatus", record.finalStatus());
        fields.put("reason", record.reason());
        fields.put("endedBy", record.endedBy());
        fields.put("hungUpBy", record.hungUpBy());
        fields.put("hangupReason", record.hangupReason());
        return fields;
    }

    private static Map<String, Object> fields(CallRecord.Attempt attempt) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("carrier", attempt.carrier());
        fields.put("address", attempt.address());
        fields.put("slotWaitMs", attempt.slotWaitMs());
        fields.put("sentAt", iso(attempt.sentAt()));
        fields.put("finalStatus", attempt.finalStatus());
        fields.put("firstProvisionalMs", attempt.firstProvisionalMs());
        fields.put("ringingMs", attempt.ringingMs());
        fields.put("answerMs", attempt.answerMs());
        fields.put("shadowWaitMs", attempt.shadowWaitMs());
        return fields;
    }

    private static String iso(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    @Override
    public void close() {
        if (logger != null) {
            swap.writeLock().lock();
            try {
                logger.detachAppender(appender);
                appender.stop();
            } finally {
                swap.writeLock().unlock();
            }
        }
    }
}

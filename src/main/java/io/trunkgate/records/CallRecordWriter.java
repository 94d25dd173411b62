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
import io.trunkgate.logging.BatchWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Writes call records as JSON lines to a size-rotated file (logback's rolling appender does the writing and
 * rotation). The calls' threads only queue their records: the writer's thread turns them into JSON and writes
 * them a batch at a time, one write per batch, at most {@link #LINGER} after the first ended (this replaced
 * the JSON and a write to the file per record on the thread that ended the call). {@link #reopen()} lets the file
 * be rotated from outside (logrotate moves it, then the gateway gets SIGHUP): the records queued before it go to
 * the file moved away, those after it to a new file at the configured path, none lost or written twice.
 * {@link #close()} writes every record queued. A writer without a file writes nothing.
 */
public final class CallRecordWriter implements AutoCloseable {

    /** How long a batch of records waits after its first for others. */
    static final Duration LINGER = Duration.ofMillis(100);

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
    /** Records on their way to the file; null without a file. */
    private final BatchWriter<CallRecord> batches;
    /** Used on the batches' thread only (and at close, once that is done with it). */
    private RollingFileAppender<ILoggingEvent> appender;
    private final List<Consumer<CallRecord>> listeners = new CopyOnWriteArrayList<>();

    private CallRecordWriter(Logger logger, CallRecordSettings settings, String name, Predicate<CallRecord> keep,
                             ScheduledExecutorService thread) {
        this.logger = logger;
        this.settings = settings;
        this.name = name;
        this.keep = keep;
        this.batches = thread == null ? null : new BatchWriter<>(thread, LINGER, 0, this::writeBatch);
    }

    /** {@code listener} gets every record given to {@link #write}, kept or not, file or not, before it is written. */
    public void listen(Consumer<CallRecord> listener) {
        listeners.add(listener);
    }

    public static CallRecordWriter none() {
        return new CallRecordWriter(null, null, null, record -> false, null);
    }

    /**
     * A writer to {@code settings.file()} under a logger of its own ({@code name} tells instances apart), writing
     * only the records {@code keep} accepts, on {@code thread}.
     */
    public static CallRecordWriter open(CallRecordSettings settings, String name, Predicate<CallRecord> keep,
                                        ScheduledExecutorService thread) {
        if (settings.file().isEmpty()) {
            return none();
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger logger = context.getLogger("trunkgate.records." + name);
        logger.setAdditive(false);
        CallRecordWriter writer = new CallRecordWriter(logger, settings, name, keep, thread);
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

    /** Queues the record of a call that ended; its listeners have it before this returns. */
    public void write(CallRecord record) {
        listeners.forEach(listener -> listener.accept(record));
        if (logger == null || !keep.test(record)) {
            return;
        }
        if (!batches.offer(record)) {
            log.warn("call records: the writer is closed; record not written: {}", record);
        }
    }

    /** The batch's records as JSON lines, in one event of the records' logger: one write to the file. */
    private void writeBatch(List<CallRecord> batch) {
        StringBuilder lines = new StringBuilder(batch.size() * 1024);
        for (CallRecord record : batch) {
            try {
                String line = JSON.writeValueAsString(fields(record, startedAt));
                if (!lines.isEmpty()) {
                    lines.append('\n');
                }
                lines.append(line);
            } catch (JsonProcessingException e) {
                log.error("call records: a record that Jackson cannot write: {}", record, e);
            }
        }
        if (!lines.isEmpty()) {
            logger.info(lines.toString());
        }
    }

    /**
     * Closes the file and opens the configured path again, creating it if it was moved away (log rotation by
     * another tool): every record queued before this call goes to the file it had open, every later one to the new.
     */
    public void reopen() {
        if (logger == null) {
            return;
        }
        batches.flushThen(() -> {
            logger.detachAppender(appender);
            appender.stop();
            appender = newAppender();
            logger.addAppender(appender);
        });
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

    /** Writes every record queued, then closes the file; records written later are not written. */
    @Override
    public void close() {
        if (logger != null) {
            batches.close();
            logger.detachAppender(appender);
            appender.stop();
        }
    }
}

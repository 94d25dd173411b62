package io.trunkgate.records;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.FileSize;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.trunkgate.config.CallRecordSettings;
import io.trunkgate.logging.BatchWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * Writes call records as JSON lines to a size-rotated file (logback's rolling appender does the writing and
 * rotation). The calls' threads only queue their records: the writer's thread turns them into JSON and writes
 * them as soon as it runs, the records queued meanwhile in the same write (this replaced the JSON and a write to
 * the file per record on the thread that ended the call). No record waits to be batched: one that lingered would
 * be lost with a gateway killed outright, and a billing system counts on the records of calls that ended. {@link #reopen()} lets the file
 * be rotated from outside (logrotate moves it, then the gateway gets SIGHUP): the records queued before it go to
 * the file moved away, those after it to a new file at the configured path, none lost or written twice.
 * {@link #close()} writes every record queued. A writer without a file writes nothing.
 */
public final class CallRecordWriter implements AutoCloseable {


    private static final Logger log = (Logger) LoggerFactory.getLogger(CallRecordWriter.class);
    private static final JsonFactory JSON = new JsonFactory().setRootValueSeparator(null);

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
    /** A batch's JSON lines, on the batches' thread. */
    private final StringWriter text = new StringWriter(64 * 1024);
    private final List<Consumer<CallRecord>> listeners = new CopyOnWriteArrayList<>();

    private CallRecordWriter(Logger logger, CallRecordSettings settings, String name, Predicate<CallRecord> keep,
                             ScheduledExecutorService thread) {
        this.logger = logger;
        this.settings = settings;
        this.name = name;
        this.keep = keep;
        this.batches = thread == null ? null : new BatchWriter<>(thread, Duration.ZERO, 0, this::writeBatch);
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
        EncoderBase<ILoggingEvent> encoder = new EncoderBase<>() {
            // the message is a batch of lines, each ended: written as it is (no layout copying it once more)
            @Override
            public byte[] headerBytes() {
                return null;
            }

            @Override
            public byte[] encode(ILoggingEvent event) {
                return event.getMessage().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] footerBytes() {
                return null;
            }
        };
        encoder.setContext(context);
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

    /**
     * The batch's records as JSON lines, in one event of the records' logger: one write to the file. Written field
     * by field into a buffer kept from batch to batch (this replaced a map of each record's fields and a string per
     * record, about 10 KiB allocated per call).
     */
    private void writeBatch(List<CallRecord> batch) {
        text.getBuffer().setLength(0);
        try (JsonGenerator json = JSON.createGenerator(text)) {
            for (CallRecord record : batch) {
                write(json, record, startedAt);
                json.writeRaw('\n');
            }
        } catch (IOException e) {
            // a StringWriter does not fail
            throw new UncheckedIOException(e);
        }
        logger.info(text.toString());
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
     * The record as one JSON object: its fields in order, times in ISO 8601 (UTC), absent ones as null (see
     * docs/records.md); {@code gatewayStartedAt}: when the gateway run that wrote it started.
     */
    static void write(JsonGenerator json, CallRecord record, String gatewayStartedAt) throws IOException {
        CallRecord.Caller caller = record.caller();
        json.writeStartObject();
        json.writeStringField("callId", record.callId());
        json.writeStringField("fromTag", caller.fromTag());
        number(json, "cseq", caller.cseq());
        json.writeStringField("gateway", record.gateway());
        json.writeStringField("gatewayStartedAt", gatewayStartedAt);
        json.writeStringField("sourceAddress", caller.sourceAddress());
        json.writeStringField("transport", caller.transport());
        json.writeStringField("fromUser", caller.fromUser());
        json.writeStringField("toUser", caller.toUser());
        json.writeStringField("requestUser", caller.requestUser());
        json.writeStringField("paiUser", caller.paiUser());
        json.writeStringField("peer", record.peer());
        json.writeStringField("group", record.group());
        json.writeStringField("admission", record.admission());
        json.writeStringField("refusedBy", record.refusedBy());
        strings(json, "wouldRefuse", record.wouldRefuse());
        strings(json, "carriers", record.carriers());
        strings(json, "reroutes", record.reroutes());
        json.writeArrayFieldStart("attempts");
        for (CallRecord.Attempt attempt : record.attempts()) {
            json.writeStartObject();
            json.writeStringField("carrier", attempt.carrier());
            json.writeStringField("address", attempt.address());
            json.writeNumberField("slotWaitMs", attempt.slotWaitMs());
            json.writeStringField("sentAt", iso(attempt.sentAt()));
            json.writeNumberField("finalStatus", attempt.finalStatus());
            number(json, "firstProvisionalMs", attempt.firstProvisionalMs());
            number(json, "ringingMs", attempt.ringingMs());
            number(json, "answerMs", attempt.answerMs());
            number(json, "shadowWaitMs", attempt.shadowWaitMs());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeStringField("finalCarrier", record.finalCarrier());
        json.writeNumberField("heldMs", record.heldMs());
        json.writeStringField("invitedAt", iso(record.invitedAt()));
        json.writeStringField("decidedAt", iso(record.decidedAt()));
        number(json, "pddMs", record.pddMs());
        number(json, "setupMs", record.setupMs());
        json.writeStringField("answeredAt", iso(record.answeredAt()));
        json.writeStringField("endedAt", iso(record.endedAt()));
        json.writeNumberField("durationMs", record.durationMs());
        json.writeNumberField("finalStatus", record.finalStatus());
        json.writeStringField("reason", record.reason());
        json.writeStringField("endedBy", record.endedBy());
        json.writeStringField("hungUpBy", record.hungUpBy());
        json.writeStringField("hangupReason", record.hangupReason());
        json.writeEndObject();
    }

    private static void number(JsonGenerator json, String name, Long value) throws IOException {
        if (value == null) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, value);
        }
    }

    private static void strings(JsonGenerator json, String name, List<String> values) throws IOException {
        json.writeArrayFieldStart(name);
        for (String value : values) {
            json.writeString(value);
        }
        json.writeEndArray();
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

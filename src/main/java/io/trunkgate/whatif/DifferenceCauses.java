package io.trunkgate.whatif;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why a call replayed under the configuration that decided it can get another decision: its peer's windows counted
 * at the time more, or less, than the records show. Found in the records around the call, within the longest window
 * of its peer before it: calls whose answer from Redis did not come in time, from their arrival until the gateway
 * gave up on them (Redis may have counted them though the gateway refused them, or, out of reach, a failover or a
 * restart may have lost what it counted), a run of a gateway whose records stop before the others' (stopped or killed,
 * and maybe started again under its instance-id: its calls in progress then have no record, nor those it admitted
 * between its last record and its stop), the start of the records (calls before them counted). A record without
 * {@code decidedAt} (written before the field) is replayed at its arrival, not when Redis decided it: that alone can
 * move it across a window's edge.
 */
final class DifferenceCauses {

    /** When each call Redis did not answer in time arrived, in order. */
    private final long[] undecidedFromMicros;
    /** At the same index, the latest end (the gateway gave up on it) of that call and those before it. */
    private final long[] undecidedUntilMicros;
    /** By run of a gateway, in the order they began: when its last record ended. */
    private final Map<Run, Long> lastRecordMicros = new LinkedHashMap<>();
    /** By run of a gateway, when the next run of it started, if the records show one. */
    private final Map<Run, Instant> startedAgain = new LinkedHashMap<>();
    private final long firstMicros;
    private final long lastMicros;
    /** The longest a recorded call was up: how long before its last record a stopped gateway's lost calls began. */
    private final long longestUpMicros;

    /** From every call read ({@code calls} in order of decision). */
    DifferenceCauses(List<RecordedCall> calls) {
        // Redis may count such a call at any time from its arrival until the gateway gave up on it (its record's
        // end): a command held up on the way runs late, and stays counted until the gateway revokes its late answer
        List<RecordedCall> undecided = calls.stream().filter(RecordedCall::redisUnanswered)
                .sorted(Comparator.comparingLong(RecordedCall::decidedMicros)).toList();
        undecidedFromMicros = undecided.stream().mapToLong(RecordedCall::decidedMicros).toArray();
        undecidedUntilMicros = new long[undecided.size()];
        long until = Long.MIN_VALUE;
        for (int i = 0; i < undecided.size(); i++) {
            until = Math.max(until, Math.max(undecidedFromMicros[i], RecordedCall.micros(undecided.get(i).endedAt())));
            undecidedUntilMicros[i] = until;
        }
        for (RecordedCall call : calls) {
            if (!call.gateway().isEmpty()) {
                lastRecordMicros.merge(new Run(call.gateway(), call.gatewayStartedAt()),
                        RecordedCall.micros(call.endedAt()), Math::max);
            }
        }
        for (Run run : lastRecordMicros.keySet()) {
            lastRecordMicros.keySet().stream()
                    .filter(r -> r.gateway().equals(run.gateway()) && run.startedAt() != null && r.startedAt() != null
                            && r.startedAt().isAfter(run.startedAt()))
                    .map(Run::startedAt).min(Comparator.naturalOrder())
                    .ifPresent(again -> startedAgain.put(run, again));
        }
        firstMicros = calls.isEmpty() ? 0 : calls.get(0).decidedMicros();
        lastMicros = calls.stream().mapToLong(RecordedCall::decidedMicros).max().orElse(0);
        longestUpMicros = calls.stream().mapToLong(RecordedCall::upMs).max().orElse(0) * 1000;
    }

    /**
     * One run of a gateway: its instance-id and when it started (the records' {@code gatewayStartedAt}, null in
     * records written before the field: then all of the instance's records are one run).
     */
    private record Run(String gateway, Instant startedAt) {
    }

    /** Why {@code call}, whose peer's longest window is {@code window}, may differ; "" when nothing was found. */
    String of(RecordedCall call, Duration window) {
        if (call.decidedAt() == null) {
            return "the record has no decidedAt (written before trunkgate recorded it): replayed at its arrival,"
                    + " not when Redis decided it";
        }
        long at = call.decidedMicros();
        long from = at - window.toNanos() / 1000;
        String span = "within " + ReportText.duration(window) + " before it";
        // of the calls Redis did not answer in time that arrived by then, did one end after from?
        int arrived = arrivedBy(at);
        if (arrived > 0 && undecidedUntilMicros[arrived - 1] >= from) {
            return "Redis did not answer in time " + span + " (out of reach, or its answer came too late): it may"
                    + " have counted calls the records do not show as admitted, or lost calls it counted (a failover or"
                    + " restart)";
        }
        for (Map.Entry<Run, Long> run : lastRecordMicros.entrySet()) {
            long lastRecord = run.getValue();
            Run stopped = run.getKey();
            Optional<Instant> again = Optional.ofNullable(startedAgain.get(stopped));
            // it stopped after its last record and, when the records show it started again, before that: its calls
            // in progress then, admitted at most longestUp before its last record, have no record
            long stoppedBy = Math.max(lastRecord, again.map(RecordedCall::micros).orElse(lastRecord));
            if (lastRecord < lastMicros && at >= lastRecord - longestUpMicros && from <= stoppedBy) {
                return "gateway " + stopped.gateway() + " stopped writing records at "
                        + Instant.EPOCH.plusNanos(lastRecord * 1000)
                        + again.map(start -> " and started again at " + start + " (killed, or stopped)").orElse("")
                        + ", before the others: calls it had in progress then have no record, yet counted in windows";
            }
        }
        if (from < firstMicros) {
            return "the records begin " + span + ": calls before them counted in its windows";
        }
        return "";
    }

    /** How many of the calls Redis did not answer in time arrived at or before {@code micros}. */
    private int arrivedBy(long micros) {
        int low = 0;
        int high = undecidedFromMicros.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (undecidedFromMicros[middle] <= micros) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}

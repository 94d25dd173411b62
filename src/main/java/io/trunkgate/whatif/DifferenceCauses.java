package io.trunkgate.whatif;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why a call replayed under the configuration that decided it can get another decision: its peer's windows counted
 * at the time more, or less, than the records show. Found in the records around the call, within the longest window
 * of its peer before it: calls whose answer from Redis did not come in time (Redis may have counted them though the
 * gateway refused them, or, out of reach, a failover or a restart may have lost what it counted), a run of a gateway
 * whose records stop before the others' (stopped or killed, and maybe started again under its instance-id: its calls
 * in progress then have no record), the start of the records (calls before them counted). A record without
 * {@code decidedAt} (written before the field) is replayed at its arrival, not when Redis decided it: that alone can
 * move it across a window's edge.
 */
final class DifferenceCauses {

    private final long[] undecidedMicros;
    /** By run of a gateway, in the order they began: when its last record ended. */
    private final Map<Run, Long> lastRecordMicros = new LinkedHashMap<>();
    private final long firstMicros;
    private final long lastMicros;
    /** The longest a recorded call was up: how long before its last record a stopped gateway's lost calls began. */
    private final long longestUpMicros;

    /** From every call read ({@code calls} in order of decision). */
    DifferenceCauses(List<RecordedCall> calls) {
        undecidedMicros = calls.stream().filter(RecordedCall::redisUnanswered).mapToLong(RecordedCall::decidedMicros)
                .toArray();
        Arrays.sort(undecidedMicros);
        for (RecordedCall call : calls) {
            if (!call.gateway().isEmpty()) {
                lastRecordMicros.merge(new Run(call.gateway(), call.gatewayStartedAt()),
                        RecordedCall.micros(call.endedAt()), Math::max);
            }
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
        int i = Arrays.binarySearch(undecidedMicros, from);
        int first = i >= 0 ? i : -i - 1;
        if (first < undecidedMicros.length && undecidedMicros[first] <= at) {
            return "Redis did not answer in time " + span + " (out of reach, or its answer came too late): it may"
                    + " have counted calls the records do not show as admitted, or lost calls it counted (a failover or"
                    + " restart)";
        }
        for (Map.Entry<Run, Long> run : lastRecordMicros.entrySet()) {
            long last = run.getValue();
            // its calls in progress when it stopped, admitted at most longestUp before, have no record
            if (last < lastMicros && at >= last - longestUpMicros && from <= last) {
                Run stopped = run.getKey();
                Optional<Instant> again = lastRecordMicros.keySet().stream()
                        .filter(r -> r.gateway().equals(stopped.gateway()) && stopped.startedAt() != null
                                && r.startedAt() != null && r.startedAt().isAfter(stopped.startedAt()))
                        .map(Run::startedAt).min(Comparator.naturalOrder());
                return "gateway " + stopped.gateway() + " stopped writing records at "
                        + Instant.EPOCH.plusNanos(last * 1000)
                        + again.map(start -> " and started again at " + start + " (killed, or stopped)").orElse("")
                        + ", before the others: calls it had in progress then have no record, yet counted in windows";
            }
        }
        if (from < firstMicros) {
            return "the records begin " + span + ": calls before them counted in its windows";
        }
        return "";
    }
}

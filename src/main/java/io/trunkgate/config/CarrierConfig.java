package io.trunkgate.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One downstream carrier (conf/carriers/*.conf).
 *
 * @param cps             pacing rate, calls per second (may be fractional)
 * @param burst           calls allowed back to back before spacing applies (1 = strict spacing)
 * @param maxWait         the longest a call may be held for a slot before it is rerouted
 * @param failoverCodes   final response codes that move the call to the next carrier
 * @param failoverOnTimeout whether silence past {@code answerTimeout} moves the call on
 * @param alternates      carriers tried after this one when the route names no further carrier
 * @param maxHeld         how many calls this gateway holds for the carrier at once; beyond it a call is
 *                        treated as over max-wait
 * @param answerTimeout   how long to wait for any response (a provisional one will do) before failing over:
 *                        silence means the carrier is not handling the call
 * @param ringTimeout     how long a call may ring (from the carrier's first response) without a final answer;
 *                        then it is cancelled and answered 408, with no failover: a callee was already alerted
 * @param maxConcurrent   the most calls sent to the carrier in progress at once, fleet-wide; a call finding it
 *                        full is treated as over max-wait
 * @param probe           OPTIONS probing of the carrier's health, if configured
 * @param tls             how the carrier's certificate is trusted: present exactly when its URI is reached over TLS
 * @param pacingMode      {@code shadow}: calls are sent at once, their slots still reserved as enforced pacing
 *                        would, and the wait (or reroute) they would have had is counted ({@code pacing-mode})
 * @param maxConcurrentMode {@code shadow}: a call finding the carrier full is sent anyway, without a lease, and
 *                        counted ({@code max-concurrent-mode})
 * @param sources         networks that speak for the carrier in its dialogs besides the addresses its URI resolves
 *                        to ({@code match.sources}): where it may send a BYE or re-INVITE from
 * @param callFailures    when failed calls set the carrier, or one of its addresses, down ({@code call-failures})
 */
public record CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait,
                            Set<Integer> failoverCodes, boolean failoverOnTimeout, List<String> alternates,
                            int maxHeld, Duration answerTimeout, Duration ringTimeout, OptionalInt maxConcurrent,
                            Optional<ProbeSettings> probe, Optional<CarrierTls> tls, LimitMode pacingMode,
                            LimitMode maxConcurrentMode, List<Cidr> sources, CallFailures callFailures) {
    public CarrierConfig {
        sources = List.copyOf(sources);
        callFailures = callFailures == null ? CallFailures.OFF : callFailures;
        failoverCodes = Set.copyOf(failoverCodes);
        alternates = List.copyOf(alternates);
        pacingMode = pacingMode == null ? LimitMode.ENFORCE : pacingMode;
        maxConcurrentMode = maxConcurrentMode == null ? LimitMode.ENFORCE : maxConcurrentMode;
        if (tls.isPresent() != (uri.transport() == Transport.TLS)) {
            throw new IllegalArgumentException("carrier " + id + ": TLS settings "
                    + (tls.isPresent() ? "given for a " + uri.transport().sipName() + " URI" : "missing"));
        }
    }

    /** A carrier whose failed calls never set it down. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent, Optional<ProbeSettings> probe,
                         Optional<CarrierTls> tls, LimitMode pacingMode, LimitMode maxConcurrentMode,
                         List<Cidr> sources) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, probe, tls, pacingMode, maxConcurrentMode, sources, CallFailures.OFF);
    }

    /** A carrier that speaks in its dialogs from the addresses its URI resolves to alone. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent, Optional<ProbeSettings> probe,
                         Optional<CarrierTls> tls, LimitMode pacingMode, LimitMode maxConcurrentMode) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, probe, tls, pacingMode, maxConcurrentMode, List.of());
    }

    /** The same carrier, speaking in its dialogs from {@code sources} too. */
    public CarrierConfig withSources(List<Cidr> sources) {
        return new CarrierConfig(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld,
                answerTimeout, ringTimeout, maxConcurrent, probe, tls, pacingMode, maxConcurrentMode, sources,
                callFailures);
    }

    /** The same carrier, set down by its failed calls as {@code failures} says. */
    public CarrierConfig withCallFailures(CallFailures failures) {
        return new CarrierConfig(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld,
                answerTimeout, ringTimeout, maxConcurrent, probe, tls, pacingMode, maxConcurrentMode, sources,
                failures);
    }

    /** A carrier whose pacing and max-concurrent are enforced. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent, Optional<ProbeSettings> probe,
                         Optional<CarrierTls> tls) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, probe, tls, LimitMode.ENFORCE, LimitMode.ENFORCE);
    }

    /** A carrier trusting the system CAs when its URI is reached over TLS. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent, Optional<ProbeSettings> probe,
                         LimitMode pacingMode, LimitMode maxConcurrentMode) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, probe, systemCasIfTls(uri), pacingMode, maxConcurrentMode);
    }

    /** A carrier trusting the system CAs when reached over TLS, its pacing and max-concurrent enforced. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent, Optional<ProbeSettings> probe) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, probe, systemCasIfTls(uri), LimitMode.ENFORCE, LimitMode.ENFORCE);
    }

    /** A carrier without a concurrency cap or probing. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, OptionalInt.empty(), Optional.empty());
    }

    /** A carrier without probing. */
    public CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait, Set<Integer> failoverCodes,
                         boolean failoverOnTimeout, List<String> alternates, int maxHeld, Duration answerTimeout,
                         Duration ringTimeout, OptionalInt maxConcurrent) {
        this(id, uri, cps, burst, maxWait, failoverCodes, failoverOnTimeout, alternates, maxHeld, answerTimeout,
                ringTimeout, maxConcurrent, Optional.empty());
    }

    private static Optional<CarrierTls> systemCasIfTls(SipUri uri) {
        return uri.transport() == Transport.TLS ? Optional.of(CarrierTls.SYSTEM_CAS) : Optional.empty();
    }

    public boolean shadowPacing() {
        return pacingMode == LimitMode.SHADOW;
    }

    public boolean shadowMaxConcurrent() {
        return maxConcurrentMode == LimitMode.SHADOW;
    }

    /**
     * Whether the carrier's final failure response {@code status} moves the call to the next carrier: a code of
     * {@code failover-on}, below 600 (a 6xx says no other location will do, RFC 3261 §21.6).
     */
    public boolean failsOverOn(int status) {
        return status >= 300 && status < 600 && failoverCodes.contains(status);
    }

    /** The spacing of the carrier's calls at {@code cps}, in whole microseconds (see {@link #intervalMicros(int)}). */
    public long intervalMicros() {
        return intervalMicros(1);
    }

    /**
     * The spacing of calls at this instance's share of the rate in a fleet of {@code fleetSize}: rounded up, so a
     * carrier never sees more than its cps, even by a microsecond per call; at least 1 µs.
     */
    public long intervalMicros(int fleetSize) {
        return Math.max(1, (long) Math.ceil(1_000_000.0 * fleetSize / cps));
    }

    /** {@link #intervalMicros()} as a duration. */
    public Duration interval() {
        return Duration.ofNanos(intervalMicros() * 1000);
    }
}

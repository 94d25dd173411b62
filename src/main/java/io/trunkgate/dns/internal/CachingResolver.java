package io.trunkgate.dns.internal;

import io.trunkgate.config.SipUri;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.dns.CarrierTargets;
import io.trunkgate.dns.UnresolvedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers kept per carrier URI for their TTL (at least {@link #MIN_TTL}); one lookup at a time per URI, which
 * every call asking meanwhile waits for. When a lookup fails, the last good answer is used on for
 * {@code keepStale} past its TTL, looked up again every {@link #RETRY} meanwhile; a URI that never resolved
 * fails fast for {@link #RETRY} after each failure. A failure is logged once, when it starts, and so is the
 * recovery.
 */
public final class CachingResolver implements CarrierResolver {

    private static final Logger log = LoggerFactory.getLogger(CachingResolver.class);
    /** A TTL of 0 would mean a lookup per call. */
    static final Duration MIN_TTL = Duration.ofSeconds(1);
    static final Duration RETRY = Duration.ofSeconds(10);

    private final Function<SipUri, CompletionStage<CarrierTargets>> lookup;
    private final Duration keepStale;
    private final Clock clock;
    private final Map<SipUri, Entry> entries = new ConcurrentHashMap<>();

    /** One URI's answer and the lookup under way. Guarded by itself. */
    private static final class Entry {
        CarrierTargets answer;
        /** Until when the answer (or the failure) is used without a lookup. */
        Instant freshUntil = Instant.MIN;
        Instant staleUntil = Instant.MIN;
        UnresolvedException failure;
        /** Since when no answer has been at hand (the failure in force began); null while there is one. */
        Instant unresolvedSince;
        CompletableFuture<CarrierTargets> pending;
        boolean failing;
    }

    public CachingResolver(Rfc3263Lookup lookup, Duration keepStale, Clock clock) {
        this(lookup::lookup, keepStale, clock);
    }

    CachingResolver(Function<SipUri, CompletionStage<CarrierTargets>> lookup, Duration keepStale, Clock clock) {
        this.lookup = lookup;
        this.keepStale = keepStale;
        this.clock = clock;
    }

    @Override
    public CompletionStage<CarrierTargets> resolve(SipUri uri) {
        Optional<CarrierTargets> literal = Rfc3263Lookup.literal(uri);
        if (literal.isPresent()) {
            return CompletableFuture.completedFuture(literal.get());
        }
        Entry entry = entries.computeIfAbsent(uri, u -> new Entry());
        CompletableFuture<CarrierTargets> pending;
        synchronized (entry) {
            if (clock.instant().isBefore(entry.freshUntil)) {
                return entry.answer != null ? CompletableFuture.completedFuture(entry.answer)
                        : CompletableFuture.failedFuture(entry.failure);
            }
            if (entry.pending != null) {
                return entry.pending;
            }
            pending = new CompletableFuture<>();
            entry.pending = pending;
        }
        CompletableFuture.completedFuture(uri).thenCompose(lookup)
                .whenComplete((answer, error) -> settle(uri, entry, answer, error));
        return pending;
    }

    @Override
    public Optional<CarrierTargets> known(SipUri uri) {
        Optional<CarrierTargets> literal = Rfc3263Lookup.literal(uri);
        if (literal.isPresent()) {
            return literal;
        }
        Entry entry = entries.get(uri);
        if (entry == null) {
            return Optional.empty();
        }
        synchronized (entry) {
            return Optional.ofNullable(entry.answer);
        }
    }

    @Override
    public Optional<Instant> unresolvedSince(SipUri uri) {
        Entry entry = entries.get(uri);
        if (entry == null) {
            return Optional.empty();
        }
        synchronized (entry) {
            return Optional.ofNullable(entry.unresolvedSince);
        }
    }

    private void settle(SipUri uri, Entry entry, CarrierTargets answer, Throwable error) {
        CompletableFuture<CarrierTargets> pending;
        CarrierTargets result = null;
        UnresolvedException failure = null;
        synchronized (entry) {
            Instant now = clock.instant();
            pending = entry.pending;
            entry.pending = null;
            if (error == null) {
                if (entry.failing) {
                    log.info("carrier host {} resolves again: {}", uri.host(), answer.addresses());
                } else if (entry.answer == null || !entry.answer.addresses().equals(answer.addresses())) {
                    log.info("carrier host {} resolves to {} (ttl {}s)", uri.host(), answer.addresses(),
                            answer.ttl().toSeconds());
                }
                entry.failing = false;
                entry.answer = answer;
                entry.failure = null;
                entry.unresolvedSince = null;
                entry.freshUntil = now.plus(answer.ttl().compareTo(MIN_TTL) < 0 ? MIN_TTL : answer.ttl());
                entry.staleUntil = entry.freshUntil.plus(keepStale);
                result = answer;
            } else {
                failure = unresolved(uri, error);
                boolean keep = entry.answer != null && now.isBefore(entry.staleUntil);
                if (!entry.failing) {
                    entry.failing = true;
                    log.warn("carrier host {} not resolved: {}; {}", uri.host(), failure.getMessage(), keep
                            ? "the last answer " + entry.answer.addresses() + " is used meanwhile (for up to "
                                    + Duration.between(now, entry.staleUntil).toSeconds() + "s)"
                            : "calls to it fail over until it resolves");
                }
                if (keep) {
                    result = entry.answer;
                    entry.freshUntil = min(now.plus(RETRY), entry.staleUntil);
                } else {
                    if (entry.answer != null) {
                        log.warn("carrier host {}: the last answer is too old to use any longer", uri.host());
                    }
                    entry.answer = null;
                    entry.failure = failure;
                    if (entry.unresolvedSince == null) {
                        entry.unresolvedSince = now;
                    }
                    entry.freshUntil = now.plus(RETRY);
                }
            }
        }
        if (result != null) {
            pending.complete(result);
        } else {
            pending.completeExceptionally(failure);
        }
    }

    private static UnresolvedException unresolved(SipUri uri, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof UnresolvedException unresolved ? unresolved
                : new UnresolvedException("lookup of " + uri.host() + " failed: " + cause);
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}

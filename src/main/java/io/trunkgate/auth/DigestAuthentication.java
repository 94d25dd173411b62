package io.trunkgate.auth;

import io.trunkgate.auth.internal.Digests;
import io.trunkgate.auth.internal.FallbackNonceUses;
import io.trunkgate.auth.internal.FleetSecret;
import io.trunkgate.auth.internal.LocalNonceUses;
import io.trunkgate.auth.internal.NonceUses;
import io.trunkgate.auth.internal.Nonces;
import io.trunkgate.auth.internal.RedisNonceUses;
import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.redis.RedisBreaker;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.redisson.api.RedissonClient;

/**
 * The gateway's side of digest authentication for peers: the challenges it sends ({@link #challenge}), the check of
 * the credentials that answer them ({@link #check}), and each answer's single use across the fleet
 * ({@link #firstUse}). Only {@code qop=auth} is offered and accepted, with MD5 or SHA-256 as each peer's credentials
 * offer them (RFC 8760), without the {@code -sess} variants.
 */
public final class DigestAuthentication implements AutoCloseable {

    /** How often the fleet's nonce key is read again, so a key replaced in Redis reaches every gateway. */
    private static final Duration SECRET_REFRESH = Duration.ofSeconds(30);
    /** Uses kept in memory while Redis is out of reach: 100,000 at about 150 B each. */
    private static final int LOCAL_USES = 100_000;
    /** How long a use is kept past the nonce's lifetime, for gateways whose clocks differ by up to a lifetime. */
    private static final int KEEP_LIFETIMES = 2;
    private static final Pattern NONCE_COUNT = Pattern.compile("[0-9a-fA-F]{8}");
    /** Proxy-Authenticate headers in one 407 at most, so a challenge stays well within a UDP datagram. */
    static final int MAX_CHALLENGES = 8;

    private final FleetSecret secret;
    private final Nonces nonces;
    private final NonceUses uses;
    private final ScheduledFuture<?> refresh;

    private DigestAuthentication(FleetSecret secret, Nonces nonces, NonceUses uses, ScheduledFuture<?> refresh) {
        this.secret = secret;
        this.nonces = nonces;
        this.uses = uses;
        this.refresh = refresh;
    }

    /**
     * Digest authentication on the fleet's Redis ({@code keyPrefix}, calls behind {@code breaker}); nonces are timed
     * by {@code clock}; {@code timers} reads the fleet's nonce key now and every 30 s.
     */
    public static DigestAuthentication open(RedissonClient client, String keyPrefix, RedisBreaker breaker,
                                            Clock clock, ScheduledExecutorService timers) {
        SecureRandom random = new SecureRandom();
        FleetSecret secret = new FleetSecret(client, keyPrefix + ":auth:secret", breaker, random);
        ScheduledFuture<?> refresh = timers.scheduleWithFixedDelay(secret::refresh, SECRET_REFRESH.toMillis(),
                SECRET_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        return new DigestAuthentication(secret, new Nonces(secret, clock, random),
                new FallbackNonceUses(new RedisNonceUses(client, keyPrefix, breaker),
                        new LocalNonceUses(clock, LOCAL_USES)), refresh);
    }

    /**
     * Reads the fleet's nonce key now (the gateway's start waits for it, so its first nonces are good at every
     * gateway); until one read succeeds, this gateway's nonces are good at this gateway only.
     */
    public CompletionStage<Void> shareSecret() {
        return secret.refresh();
    }

    /** Whether nonces are signed with the fleet's key yet. */
    public boolean secretShared() {
        return secret.shared();
    }

    /**
     * The values of the Proxy-Authenticate headers that challenge a request for any of {@code credentials}: one
     * per realm and algorithm, in the order given and each credentials' order of preference (RFC 8760 §2.4), the
     * first {@value #MAX_CHALLENGES} of them, all with one new nonce; {@code stale}: the request's credentials were
     * good but their nonce was not.
     */
    public List<String> challenge(List<PeerCredentials> credentials, boolean stale) {
        String nonce = nonces.issue();
        Set<String> challenges = new LinkedHashSet<>();
        for (PeerCredentials each : credentials) {
            for (DigestAlgorithm algorithm : each.algorithms()) {
                challenges.add("Digest realm=\"" + each.realm() + "\", nonce=\"" + nonce + "\", algorithm="
                        + algorithm.token() + ", qop=\"auth\"" + (stale ? ", stale=true" : ""));
            }
        }
        return challenges.stream().limit(MAX_CHALLENGES).toList();
    }

    /**
     * Checks credentials {@code given} for a request of {@code method} against {@code expected}, the credentials of
     * the peer they name: the response first (so {@code stale} never tells a wrong password it was right), then the
     * nonce, fresh within {@code nonceLifetime}. The {@code uri} is not compared with the request's here.
     */
    public DigestCheck check(DigestResponse given, PeerCredentials expected, String method, Duration nonceLifetime) {
        if (given.nonce().isEmpty() || given.uri().isEmpty() || given.response().isEmpty()) {
            return new DigestCheck.Malformed("nonce, uri and response are required");
        }
        if (!given.qop().map("auth"::equalsIgnoreCase).orElse(false)) {
            return new DigestCheck.Malformed("qop must be auth, as challenged");
        }
        Optional<String> nonceCount = given.nonceCount().filter(nc -> NONCE_COUNT.matcher(nc).matches());
        Optional<String> cnonce = given.cnonce().filter(c -> !c.isEmpty());
        if (nonceCount.isEmpty() || cnonce.isEmpty()) {
            return new DigestCheck.Malformed("qop=auth needs nc (8 hex digits) and cnonce");
        }
        Optional<DigestAlgorithm> algorithm = given.algorithm().map(DigestAlgorithm::of)
                .orElse(Optional.of(DigestAlgorithm.MD5)).filter(expected.algorithms()::contains);
        if (algorithm.isEmpty()) {
            return new DigestCheck.Malformed("algorithm " + given.algorithm().orElse("MD5") + " is not offered for "
                    + expected.user() + " (offered: " + expected.algorithms().stream().map(DigestAlgorithm::token)
                    .toList() + ")");
        }
        String right = Digests.response(algorithm.get(), expected.ha1().get(algorithm.get()), given.nonce().get(),
                nonceCount.get(), cnonce.get(), given.qop().get(), method, given.uri().get());
        if (!Digests.same(right, given.response().get())) {
            return new DigestCheck.WrongPassword();
        }
        if (!nonces.fresh(given.nonce().get(), nonceLifetime)) {
            return new DigestCheck.Stale();
        }
        return new DigestCheck.Accepted(given.nonce().get(), nonceCount.get().toLowerCase(Locale.ROOT));
    }

    /**
     * Records the use of {@code accepted}'s nonce and nonce-count: true the first time it is used anywhere in the
     * fleet, false for a replay. While Redis is out of reach, this gateway's uses are recorded in its memory.
     */
    public CompletionStage<Boolean> firstUse(DigestCheck.Accepted accepted, Duration nonceLifetime) {
        return uses.firstUse(accepted.nonce(), accepted.nonceCount(), nonceLifetime.multipliedBy(KEEP_LIFETIMES));
    }

    @Override
    public void close() {
        refresh.cancel(false);
    }
}

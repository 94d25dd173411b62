package io.trunkgate.limit.internal;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.ReplayAdmission;
import io.trunkgate.limit.Scope;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * admit.lua at a given time: the clock key of the call's hash tag is set first, then the script runs (one after the
 * other, so a call's decision always sees its own time). Without leases: caps are not checked.
 */
public final class ClockedAdmission implements ReplayAdmission {

    private final RedissonClient redis;
    private final KeyLayout layout;
    private final RedisAdmissionLimiter limiter;

    public ClockedAdmission(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
        this.limiter = new RedisAdmissionLimiter(redis, keyPrefix);
    }

    @Override
    public CompletionStage<AdmissionDecision> admitAt(AdmissionRequest request, long micros) {
        String tag = layout.tag(request.peer().id(), request.group().map(Scope::id));
        return redis.getBucket(layout.prefix() + ":{" + tag + "}:test-clock", StringCodec.INSTANCE)
                .setAsync(Long.toString(micros))
                .thenCompose(set -> limiter.admit(request));
    }
}

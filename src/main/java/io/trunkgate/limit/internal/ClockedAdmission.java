package io.trunkgate.limit.internal;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.ReplayAdmission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;

/**
 * admit.lua at given times: for each call, the clock key of its hash tag is set, then the script runs, all calls of
 * one batch pipelined in order on one connection, so each decision sees its own time and every call before it.
 * Without leases: caps are not checked.
 */
public final class ClockedAdmission implements ReplayAdmission {

    private final RedissonClient redis;
    private final RedisAdmissionLimiter limiter;

    public ClockedAdmission(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.limiter = new RedisAdmissionLimiter(redis, keyPrefix);
        RedisAdmissionLimiter.ADMIT.load(redis);
    }

    @Override
    public List<AdmissionDecision> admitAt(List<AdmissionRequest> requests, List<Long> micros) {
        RBatch batch = redis.createBatch(BatchOptions.defaults().executionMode(BatchOptions.ExecutionMode.IN_MEMORY));
        List<AdmissionPlan> plans = new ArrayList<>(requests.size());
        List<CompletionStage<List<Object>>> replies = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            AdmissionRequest request = requests.get(i);
            AdmissionPlan plan = limiter.plan(request);
            plans.add(plan);
            replies.add(RedisAdmissionLimiter.ADMIT.runAtIn(batch, micros.get(i), plan.keys(),
                    plan.args(CallMember.of(request.callKey()), request.weight())));
        }
        batch.execute();
        List<AdmissionDecision> decisions = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            decisions.add(RedisAdmissionLimiter.decode(plans.get(i), replies.get(i).toCompletableFuture().join(),
                    requests.get(i)));
        }
        return decisions;
    }
}

package io.trunkgate.limit.internal;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.ReplayAdmission;
import io.trunkgate.redis.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;

/**
 * admit.lua and take-lease.lua at given times: for each call, the clock key of its hash tag is set, then the script
 * runs, all calls of one batch pipelined in order on one connection, so each decision sees its own time and every
 * call before it. A lease is taken for as long as its call holds it, so it lapses when the call ends.
 */
public final class ClockedAdmission implements ReplayAdmission {

    private static final LuaScript TAKE = LuaScript.fromResource("take-lease.lua");
    private static final LuaScript RELEASE = LuaScript.fromResource("release-leases.lua");

    private final RedissonClient redis;
    private final RedisAdmissionLimiter limiter;
    private final KeyLayout layout;

    public ClockedAdmission(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.limiter = new RedisAdmissionLimiter(redis, keyPrefix);
        this.layout = new KeyLayout(keyPrefix);
        RedisAdmissionLimiter.ADMIT.load(redis);
        TAKE.load(redis);
        RELEASE.load(redis);
    }

    @Override
    public List<AdmissionDecision> admitAt(List<AdmissionRequest> requests, List<Long> micros, List<Long> leaseMs) {
        RBatch batch = batch();
        List<AdmissionPlan> plans = new ArrayList<>(requests.size());
        List<CompletionStage<List<Object>>> replies = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            AdmissionRequest request = requests.get(i);
            AdmissionPlan plan = limiter.plan(request);
            plans.add(plan);
            String member = CallMember.of(request.callKey());
            replies.add(RedisAdmissionLimiter.ADMIT.runAtIn(batch, micros.get(i), plan.admitKeys(),
                    plan.admitArgs(member, request.weight(), member, Math.max(1, leaseMs.get(i)))));
        }
        batch.execute();
        List<AdmissionDecision> decisions = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            decisions.add(RedisAdmissionLimiter.decode(plans.get(i), replies.get(i).toCompletableFuture().join(),
                    requests.get(i)));
        }
        return decisions;
    }

    @Override
    public List<Boolean> takeCarrierAt(List<CarrierLease> leases) {
        RBatch batch = batch();
        List<CompletionStage<List<Object>>> replies = new ArrayList<>(leases.size());
        for (CarrierLease lease : leases) {
            replies.add(TAKE.runAtIn(batch, lease.micros(), List.of(layout.carrierLeaseKey(lease.carrierId())),
                    CallMember.of(lease.callKey()), Long.toString(Math.max(1, lease.leaseMs())),
                    Integer.toString(lease.max())));
        }
        batch.execute();
        return replies.stream().map(reply -> (Long) reply.toCompletableFuture().join().get(0) == 1L).toList();
    }

    @Override
    public void releaseCarrier(List<CarrierLease> leases) {
        if (leases.isEmpty()) {
            return;
        }
        RBatch batch = batch();
        for (CarrierLease lease : leases) {
            RELEASE.runIn(batch, List.of(layout.carrierLeaseKey(lease.carrierId())), CallMember.of(lease.callKey()));
        }
        batch.execute();
    }

    private RBatch batch() {
        return redis.createBatch(BatchOptions.defaults().executionMode(BatchOptions.ExecutionMode.IN_MEMORY));
    }
}

package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.throttle.LogFields;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The carrier pacer as one call sees it: before a capped carrier's slot is reserved, the call takes a lease
 * there (dropping the lease at the carrier it tried before); a full carrier answers {@code AT_CAPACITY}, and a
 * call that is not sent after all gives its lease back. Without Redis the call goes on without a lease, and so
 * does a call finding a carrier full whose max-concurrent is in shadow (marked {@code overCap}: enforced, it would
 * have taken no lease there).
 */
final class LeasedCarrierPacer implements CarrierPacer {

    private static final Logger log = LoggerFactory.getLogger(LeasedCarrierPacer.class);

    private final CarrierPacer pacer;
    private final CallLeases leases;
    private final String callId;

    LeasedCarrierPacer(CarrierPacer pacer, CallLeases leases, String callId) {
        this.pacer = pacer;
        this.leases = leases;
        this.callId = callId;
    }

    @Override
    public HeldCall hold(CarrierConfig carrier) {
        if (carrier.maxConcurrent().isEmpty()) {
            leases.releaseCarrier(callId);
            return pacer.hold(carrier);
        }
        return new LeasedHold(carrier);
    }

    /** A capped carrier's lease comes before its slot: a slot reserved without one is given back, then paced. */
    @Override
    public HeldCall hold(CarrierConfig carrier, Reservation reserved) {
        if (carrier.maxConcurrent().isEmpty()) {
            leases.releaseCarrier(callId);
            return pacer.hold(carrier, reserved);
        }
        pacer.hold(carrier, reserved).cancel();
        return new LeasedHold(carrier);
    }

    @Override
    public int heldCount(String carrierId) {
        return pacer.heldCount(carrierId);
    }

    /** The shared pacer belongs to the gateway, which closes it. */
    @Override
    public void close() {
    }

    private final class LeasedHold implements HeldCall {

        private final CompletableFuture<PacingResult> result = new CompletableFuture<>();
        private HeldCall paced;
        private boolean cancelled;

        LeasedHold(CarrierConfig carrier) {
            leases.takeCarrier(callId, carrier.id(), carrier.maxConcurrent().getAsInt()).handle((taken, error) -> {
                if (error != null) {
                    log.debug("call={} carrier {} lease not taken, sent without: {}",
                            LogFields.value(callId), carrier.id(),
                            error.getMessage());
                }
                boolean full = error == null && !taken;
                if (full && !carrier.shadowMaxConcurrent()) {
                    result.complete(new PacingResult(PacingResult.Status.AT_CAPACITY, Duration.ZERO));
                    return null;
                }
                pace(carrier, full);
                return null;
            });
        }

        /** {@code overCap}: the carrier was full and its max-concurrent is in shadow: sent without a lease. */
        private void pace(CarrierConfig carrier, boolean overCap) {
            HeldCall held;
            synchronized (this) {
                if (cancelled) {
                    leases.releaseCarrier(callId);
                    result.complete(new PacingResult(PacingResult.Status.CANCELLED, Duration.ZERO));
                    return;
                }
                held = pacer.hold(carrier);
                paced = held;
            }
            held.result().whenComplete((outcome, error) -> {
                if (error != null || !outcome.released()) {
                    leases.releaseCarrier(callId);
                }
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (overCap) {
                    result.complete(new PacingResult(outcome.status(), outcome.delay(), outcome.shadow().withOverCap()));
                } else {
                    result.complete(outcome);
                }
            });
        }

        @Override
        public CompletionStage<PacingResult> result() {
            return result;
        }

        @Override
        public synchronized boolean cancel() {
            if (paced != null) {
                return paced.cancel();
            }
            if (result.isDone()) {
                return false;
            }
            cancelled = true;
            return true;
        }
    }
}

package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.records.CallRecord;
import io.trunkgate.route.RerouteHook;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What an {@link InviteCall} works with besides its SIP legs: admission and the call's leases, what routing
 * needs, the messages it builds, the calls and dialogs in progress, where its record goes, metrics and time.
 *
 * @param records where the record of a call that was not answered goes (an answered call's goes with its dialog)
 */
record CallServices(Admit admission, CallLeases leases, Routing routing, SipMessages messages, CallRegistry calls,
                    DialogTable dialogs, Consumer<CallRecord> records, GatewayMetrics metrics, CallTime time) {

    /** The admission decision on one call ({@link io.trunkgate.limit.Admission#admit}). */
    @FunctionalInterface
    interface Admit {
        CompletionStage<AdmissionVerdict> admit(AdmissionRequest request, RedisDownPolicy policy);
    }

    /**
     * What routing a call needs: the carrier pacer, the first carrier's slot to ask for with the admission (where
     * Redis can reserve it in the admission's own script call), the reroute hook, carrier health and addresses.
     */
    record Routing(CarrierPacer pacer, Function<CarrierConfig, Optional<SlotRequest>> firstSlots,
                   Supplier<RerouteHook> rerouteHook, CarrierHealth health, CarrierResolver resolver) {
    }

    /** These services on {@code time}: a call's own loop's. */
    CallServices on(CallTime time) {
        return new CallServices(admission, leases, routing, messages, calls, dialogs, records, metrics, time);
    }

    /** A call's share of the proxy's services, its timers on {@code services.timers()} until {@link #on} a loop. */
    static CallServices of(ProxyServices services) {
        return new CallServices(services.admission()::admit, services.admission().leases(),
                new Routing(services.pacer(), services.firstSlots(), services.rerouteHook(), services.health(),
                        services.resolver()),
                services.messages(), services.calls(), services.dialogs(), services.records()::write,
                services.metrics(), CallTime.system(services.timers()));
    }
}

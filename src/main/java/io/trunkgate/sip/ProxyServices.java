package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.limit.Admission;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.records.CallRecordWriter;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.sip.transport.SipTransports;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the proxy works with: config, admission, pacing, rerouting, timers, the SIP transports, the calls and
 * dialogs in progress, metrics, carrier health and the carriers' addresses. {@code firstSlots} gives, where Redis
 * can reserve a carrier's slot in the admission's own script call (not in a cluster), the slot to ask for.
 */
public record ProxyServices(Supplier<ActiveConfig> config, Admission admission, CarrierPacer pacer,
                            Function<CarrierConfig, Optional<SlotRequest>> firstSlots,
                            Supplier<RerouteHook> rerouteHook, ScheduledExecutorService timers,
                            SipMessages messages, SipTransports transports, CallRegistry calls,
                            DialogTable dialogs, CallRecordWriter records, GatewayMetrics metrics,
                            CarrierHealth health, CarrierResolver resolver) {
}

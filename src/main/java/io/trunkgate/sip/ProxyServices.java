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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sip.SipProvider;

/**
 * What the proxy's handlers share: config, admission, pacing, rerouting, timers, the SIP providers, the calls and
 * dialogs in progress, metrics, carrier health and the carriers' addresses. {@code firstSlots} gives, where Redis
 * can reserve a carrier's slot in the admission's own script call (not in a cluster), the slot to ask for.
 */
public record ProxyServices(Supplier<ActiveConfig> config, Admission admission, CarrierPacer pacer,
                            Function<CarrierConfig, Optional<SlotRequest>> firstSlots,
                            Supplier<RerouteHook> rerouteHook, ScheduledExecutorService timers,
                            SipMessages messages, List<SipProvider> providers, CallRegistry calls,
                            DialogTable dialogs, CallRecordWriter records, GatewayMetrics metrics,
                            CarrierHealth health, CarrierResolver resolver) {

    /**
     * The provider that can send over {@code transport} ("UDP" or "TCP") to {@code host}: one listening on the
     * host's address family (IPv6 for an IPv6 literal), else any with the transport.
     */
    public SipProvider providerFor(String transport, String host) {
        boolean ipv6 = host != null && host.indexOf(':') >= 0;
        SipProvider any = null;
        for (SipProvider provider : providers) {
            javax.sip.ListeningPoint point = provider.getListeningPoint(transport);
            if (point != null) {
                if ((point.getIPAddress().indexOf(':') >= 0) == ipv6) {
                    return provider;
                }
                any = any == null ? provider : any;
            }
        }
        if (any == null) {
            throw new IllegalStateException("no " + transport + " listener configured in sip.listeners");
        }
        return any;
    }
}

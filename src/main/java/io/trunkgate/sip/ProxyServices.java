package io.trunkgate.sip;

import io.trunkgate.gateway.ActiveConfig;
import io.trunkgate.gateway.CallAdmission;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.route.RerouteHook;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import javax.sip.SipProvider;

/** What the proxy's handlers share: config, admission, pacing, rerouting, timers, the SIP providers, the calls and dialogs in progress, and metrics. */
public record ProxyServices(Supplier<ActiveConfig> config, CallAdmission admission, CarrierPacer pacer,
                            Supplier<RerouteHook> rerouteHook, ScheduledExecutorService timers,
                            SipMessages messages, List<SipProvider> providers, CallRegistry calls,
                            DialogTable dialogs, GatewayMetrics metrics) {

    /** The provider that can send over {@code transport} ("UDP" or "TCP"). */
    public SipProvider providerFor(String transport) {
        for (SipProvider provider : providers) {
            if (provider.getListeningPoint(transport) != null) {
                return provider;
            }
        }
        throw new IllegalStateException("no " + transport + " listener configured in sip.listeners");
    }
}

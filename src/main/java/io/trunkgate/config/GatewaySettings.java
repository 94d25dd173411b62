package io.trunkgate.config;

import java.util.List;
import java.util.Optional;

/** What gateway.conf holds besides the file layout: the parts of {@link GatewayConfig} it provides. */
record GatewaySettings(String instanceId, int fleetSize, List<SipListener> listeners, RedisSettings redis,
                       AdmissionSettings admission, AdminSettings admin, int sipWorkerThreads, int maxCallsInProgress,
                       Optional<String> rerouteHook) {
}

package io.trunkgate.config;

import java.util.Optional;

/** What gateway.conf holds besides the file layout: the parts of {@link GatewayConfig} it provides. */
record GatewaySettings(String instanceId, int fleetSize, SipSettings sip, RedisSettings redis,
                       AdmissionSettings admission, AdminSettings admin, Optional<String> rerouteHook,
                       CallRecordSettings records, RerouteSettings reroute, DnsSettings dns,
                       Optional<CaptureSettings> capture) {
}

/**
 * The carrier address port: {@link io.trunkgate.dns.CarrierResolver#open} turns a carrier's URI into the
 * addresses to send to, per RFC 3263 (NAPTR, SRV, A/AAAA), kept for their TTL; {@link
 * io.trunkgate.dns.CarrierTargets#order} orders them for one call by SRV priority and weight.
 */
package io.trunkgate.dns;

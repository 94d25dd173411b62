/**
 * The running configuration and what is derived from it, shared by the SIP proxy and the admin server:
 * {@link io.trunkgate.runtime.ActiveConfig} (one generation with its peer and route lookups) and
 * {@link io.trunkgate.runtime.ConfigReloader} (live reload).
 */
package io.trunkgate.runtime;

/**
 * The TLS port's implementation: PEM files read with BouncyCastle ({@link io.trunkgate.tls.internal.PemFiles},
 * {@link io.trunkgate.tls.internal.KeyMaterial}), the key manager that re-reads renewed files
 * ({@link io.trunkgate.tls.internal.ReloadingKeyManager}), the trust managers for clients
 * ({@link io.trunkgate.tls.internal.ClientCertificateTrust}) and carriers
 * ({@link io.trunkgate.tls.internal.CarrierTrustManager}, with RFC 5922's names in
 * {@link io.trunkgate.tls.internal.SipDomainNames}), and the default cipher suites.
 */
package io.trunkgate.tls.internal;

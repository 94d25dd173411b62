/**
 * SIP over TLS, all but the wire: a TLS listener's certificate and key ({@link io.trunkgate.tls.ServerTls}, re-read
 * when their files change), the trust in carriers' certificates with RFC 5922's name checks
 * ({@link io.trunkgate.tls.CarrierTrust}), and what a client certificate shows for matching peers
 * ({@link io.trunkgate.tls.PeerCertificate}). PEM files are read with BouncyCastle; the SSLContexts are the JDK's.
 * {@link io.trunkgate.tls.SipTls} makes the engines of the SIP transports ({@link io.trunkgate.tls.TlsEngines}) from them.
 */
package io.trunkgate.tls;

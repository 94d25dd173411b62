package io.trunkgate.tls;

import io.trunkgate.tls.internal.CarrierTrustManager;
import io.trunkgate.tls.internal.TrustStores;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The TLS client side towards carriers. Engines are made with {@code context.createSSLEngine(domain, port)}, the
 * domain being the host of the carrier's URI: it is the name the certificate is checked against (RFC 5922) and the
 * SNI sent.
 */
public final class CarrierTrust {

    private CarrierTrust() {
    }

    /**
     * A client context that verifies a carrier's chain (PKIX) against the system CAs or the CAs of {@code caFile},
     * and the carrier's name against the engine's peer host as RFC 5922 §7 says; a refused certificate fails the
     * handshake with a CertificateException saying why (expired, not trusted, name mismatch).
     *
     * @param caFile            a PEM bundle of the CAs to trust; empty = the system CAs
     * @param clientCertificate a listener whose certificate is presented when a carrier asks for a client
     *                          certificate; empty = none is sent
     * @throws TlsMaterialException the CA file is unreadable or not PEM, or holds no certificate
     */
    public static SSLContext clientContext(Optional<Path> caFile, Optional<ServerTls> clientCertificate)
            throws TlsMaterialException {
        return clientContext(caFile, clientCertificate, Clock.systemUTC());
    }

    /** As {@link #clientContext(Optional, Optional)}, with validity dates checked on {@code clock}. */
    public static SSLContext clientContext(Optional<Path> caFile, Optional<ServerTls> clientCertificate, Clock clock)
            throws TlsMaterialException {
        String trusted = caFile.map(Path::toString).orElse("the system CAs");
        CarrierTrustManager trust = new CarrierTrustManager(TrustStores.pkix(caFile), trusted, clock);
        KeyManager keys = clientCertificate.map(tls -> (KeyManager) tls.keyManager()).orElse(null);
        return ServerTls.context(keys, trust);
    }

    /** TLS 1.3 and 1.2 only, the JDK's default suites (a carrier's choice is its own). */
    public static SSLParameters clientParameters() {
        SSLParameters parameters = new SSLParameters();
        parameters.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        return parameters;
    }
}

package io.trunkgate.tls;

import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.tls.internal.CipherSuites;
import io.trunkgate.tls.internal.ClientCertificateTrust;
import io.trunkgate.tls.internal.KeyMaterial;
import io.trunkgate.tls.internal.ReloadingKeyManager;
import io.trunkgate.tls.internal.TrustStores;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Arrays;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TLS listener's material: its certificate and key (re-read when their files change), its protocols and cipher
 * suites, and its judgement of client certificates (taken at the handshake, verified against {@code client-ca} when
 * one is configured, the result kept in the session for {@link #peerCertificate}).
 */
public final class ServerTls {

    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final TlsListenerSettings settings;
    private final Clock clock;
    private final ReloadingKeyManager keys;
    private final ClientCertificateTrust clientTrust;
    private final SSLContext context;
    private final String[] cipherSuites;

    private ServerTls(TlsListenerSettings settings, Clock clock, ReloadingKeyManager keys,
                      ClientCertificateTrust clientTrust, SSLContext context, String[] cipherSuites) {
        this.settings = settings;
        this.clock = clock;
        this.keys = keys;
        this.clientTrust = clientTrust;
        this.context = context;
        this.cipherSuites = cipherSuites;
    }

    /**
     * Reads the listener's certificate chain, key and client CA file. An expired certificate is loaded (and logged
     * as a warning): refusing to start would not make it less expired, and a renewal is picked up without a restart.
     *
     * @throws TlsMaterialException a file is unreadable or not PEM, holds no certificate or key, the key does not
     *                              match the certificate, or the key's password is wrong or missing
     */
    public static ServerTls load(TlsListenerSettings settings, Clock clock) throws TlsMaterialException {
        KeyMaterial material = KeyMaterial.load(settings.certificate(), settings.privateKey(),
                settings.privateKeyPassword());
        if (clock.instant().isAfter(material.notAfter())) {
            LOG.warn("TLS certificate {} ({}) expired on {}: peers and carriers checking it will refuse it",
                    settings.certificate(), material.leaf().getSubjectX500Principal().getName(), material.notAfter());
        }
        Optional<X509ExtendedTrustManager> clientCa = settings.clientCa().isPresent()
                ? Optional.of(TrustStores.pkix(settings.clientCa().get())) : Optional.empty();
        ReloadingKeyManager keys = new ReloadingKeyManager(settings, clock, material);
        ClientCertificateTrust clientTrust = new ClientCertificateTrust(clientCa);
        SSLContext context = context(keys, clientTrust);
        String[] suites = (settings.ciphers().isEmpty() ? CipherSuites.defaults() : settings.ciphers())
                .toArray(new String[0]);
        return new ServerTls(settings, clock, keys, clientTrust, context, suites);
    }

    /** A TLS context of {@code keys} (null: no certificate to present) and {@code trust}. */
    static SSLContext context(KeyManager keys, TrustManager trust) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : new KeyManager[] {keys}, new TrustManager[] {trust}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot make a TLS context", e);
        }
    }

    /** TLS with this listener's reloading key manager and client-certificate trust. */
    public SSLContext context() {
        return context;
    }

    /** TLS 1.3 and 1.2 only. */
    public String[] protocols() {
        return PROTOCOLS.clone();
    }

    /** The configured cipher suites, else the default set (TLS 1.3, and TLS 1.2's ECDHE with AES-GCM or ChaCha20). */
    public String[] cipherSuites() {
        return cipherSuites.clone();
    }

    /**
     * Parameters for an SSLEngine of this listener: its protocols and suites, and a client certificate asked for but
     * not required (peers matched by source address alone need none).
     */
    public SSLParameters serverParameters() {
        SSLParameters parameters = new SSLParameters(cipherSuites(), protocols());
        parameters.setWantClientAuth(true);
        return parameters;
    }

    /**
     * The client certificate of a finished handshake on this listener, with whether its chain verified against the
     * listener's client CA and whether it is within its validity dates now; empty when the client sent none.
     */
    public Optional<PeerCertificate> peerCertificate(SSLSession session) {
        X509Certificate[] chain;
        try {
            Certificate[] certificates = session.getPeerCertificates();
            chain = Arrays.stream(certificates).map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
        if (chain.length == 0) {
            return Optional.empty();
        }
        Object recorded = session.getValue(ClientCertificateTrust.VERIFIED);
        boolean verified;
        if (recorded instanceof Boolean value) {
            verified = value;
        } else {
            // a resumed session may not carry the value recorded at its first handshake
            verified = clientTrust.verifies(chain, chain[0].getPublicKey().getAlgorithm());
            session.putValue(ClientCertificateTrust.VERIFIED, verified);
        }
        return Optional.of(PeerCertificate.of(chain, verified, clock.instant()));
    }

    /** The certificate presented now, and why the last reload failed if it did. */
    public CertificateStatus status() {
        KeyMaterial material = keys.material();
        return new CertificateStatus(settings.certificate(),
                material.leaf().getSubjectX500Principal().getName(), material.notAfter(), keys.lastReloadError());
    }

    /** The key manager, to present this listener's certificate as a client certificate to carriers asking one. */
    ReloadingKeyManager keyManager() {
        return keys;
    }

    public TlsListenerSettings settings() {
        return settings;
    }
}

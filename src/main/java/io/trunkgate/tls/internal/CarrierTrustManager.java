package io.trunkgate.tls.internal;

import java.net.Socket;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Date;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Judges a carrier's certificate: its chain must verify (PKIX) against the configured CAs, and it must be for the
 * domain the gateway meant to reach (the SSLEngine's peer host) as RFC 5922 §7 says. Each refusal's message says
 * which of the two failed and why, for the carrier's one log line.
 */
public final class CarrierTrustManager extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager pkix;
    private final String trusted;
    private final Clock clock;

    /**
     * @param pkix    the CAs' trust manager
     * @param trusted which CAs those are, for messages ("the system CAs", "carrier-ca.pem")
     */
    public CarrierTrustManager(X509ExtendedTrustManager pkix, String trusted, Clock clock) {
        this.pkix = pkix;
        this.trusted = trusted;
        this.clock = clock;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        String host = peerHost(engine.getHandshakeSession(), engine.getPeerHost());
        checkDates(chain, host);
        try {
            pkix.checkServerTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw untrusted(chain, host, e);
        }
        checkName(chain[0], host);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        SSLSession session = socket instanceof SSLSocket ssl ? ssl.getHandshakeSession() : null;
        String host = peerHost(session, null);
        checkDates(chain, host);
        try {
            pkix.checkServerTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw untrusted(chain, host, e);
        }
        checkName(chain[0], host);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a carrier's certificate is checked against the host name the connection"
                + " was made for, and this connection has none");
    }

    private static String peerHost(SSLSession session, String fallback) throws CertificateException {
        String host = session != null && session.getPeerHost() != null ? session.getPeerHost() : fallback;
        if (host == null || host.isEmpty()) {
            throw new CertificateException("no carrier host name to check the certificate against (the TLS"
                    + " connection was opened without one)");
        }
        return host;
    }

    private void checkDates(X509Certificate[] chain, String host) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("certificate for " + host + ": the carrier sent none");
        }
        Date now = Date.from(clock.instant());
        try {
            chain[0].checkValidity(now);
        } catch (CertificateExpiredException e) {
            throw new CertificateException("certificate for " + host + ": expired on "
                    + chain[0].getNotAfter().toInstant(), e);
        } catch (CertificateNotYetValidException e) {
            throw new CertificateException("certificate for " + host + ": not valid before "
                    + chain[0].getNotBefore().toInstant(), e);
        }
    }

    private CertificateException untrusted(X509Certificate[] chain, String host, CertificateException cause) {
        X509Certificate leaf = chain[0];
        boolean selfSigned = leaf.getSubjectX500Principal().equals(leaf.getIssuerX500Principal());
        String reason = selfSigned ? "self-signed (" + leaf.getSubjectX500Principal().getName() + "), not trusted"
                : "issued by " + chain[chain.length - 1].getIssuerX500Principal().getName() + ", which is not among "
                + trusted;
        Throwable inner = cause.getCause();
        if (inner instanceof CertPathValidatorException path && path.getReason() != null
                && path.getReason() != CertPathValidatorException.BasicReason.UNSPECIFIED) {
            reason = "its chain does not verify against " + trusted + " (" + path.getReason() + ": "
                    + path.getMessage() + ")";
        }
        return new CertificateException("certificate for " + host + ": " + reason, cause);
    }

    private static void checkName(X509Certificate leaf, String host) throws CertificateException {
        if (!SipDomainNames.matches(leaf, host)) {
            throw new CertificateException("certificate for " + host + ": name mismatch, certificate names "
                    + SipDomainNames.identities(leaf, host) + " (RFC 5922: sip URIs, else DNS names, no wildcards)");
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("a carrier connection's trust manager judges servers only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("a carrier connection's trust manager judges servers only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a carrier connection's trust manager judges servers only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}

package io.trunkgate.tls.internal;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A TLS listener's judge of client certificates. It takes every client chain at the handshake, so that a peer pinned
 * by the SHA-256 of a self-signed certificate gets in, and records in the session whether the chain verified against
 * the listener's client CA: peers matched by san or subject need that. Which peer a certificate belongs to, and
 * whether an unknown one is refused, is decided later, by the peer lookup.
 */
public final class ClientCertificateTrust extends X509ExtendedTrustManager {

    /** The session value holding whether the client's chain verified against the client CA (a Boolean). */
    public static final String VERIFIED = "io.trunkgate.tls.client-ca-verified";

    private final Optional<X509ExtendedTrustManager> clientCa;

    /** @param clientCa PKIX trust in the listener's client CA; empty = no client certificate verifies */
    public ClientCertificateTrust(Optional<X509ExtendedTrustManager> clientCa) {
        this.clientCa = clientCa;
    }

    /** Whether {@code chain} verifies against the client CA (without a session to record it in). */
    public boolean verifies(X509Certificate[] chain, String authType) {
        return verifiesWith(trust -> trust.checkClientTrusted(chain, authType));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        requireChain(chain);
        record(engine.getHandshakeSession(),
                verifiesWith(trust -> trust.checkClientTrusted(chain, authType, engine)));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        requireChain(chain);
        SSLSession session = socket instanceof SSLSocket ssl ? ssl.getHandshakeSession() : null;
        record(session, verifiesWith(trust -> trust.checkClientTrusted(chain, authType, socket)));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        requireChain(chain);
    }

    private interface Check {
        void run(X509ExtendedTrustManager trust) throws CertificateException;
    }

    /** Whether the client CA's PKIX check passes; a refusal here refuses nothing, it is only recorded. */
    private boolean verifiesWith(Check check) {
        if (clientCa.isEmpty()) {
            return false;
        }
        try {
            check.run(clientCa.get());
            return true;
        } catch (CertificateException | RuntimeException e) {
            return false;
        }
    }

    private static void record(SSLSession session, boolean verified) {
        if (session != null) {
            session.putValue(VERIFIED, verified);
        }
    }

    private static void requireChain(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the client sent an empty certificate chain");
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("a listener's trust manager judges clients only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("a listener's trust manager judges clients only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a listener's trust manager judges clients only");
    }

    /**
     * None: a client choosing its certificate by the CAs the server names would keep back a self-signed one that a
     * peer is pinned by; with none named, clients send the certificate they have.
     */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}

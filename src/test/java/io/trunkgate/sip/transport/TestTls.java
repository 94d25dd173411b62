package io.trunkgate.sip.transport;

import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import io.trunkgate.tls.CarrierTrust;
import io.trunkgate.tls.ServerTls;
import io.trunkgate.tls.TlsEngines;
import io.trunkgate.tls.TlsMaterialException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * Real TLS material for the transports' tests, made by {@link TestCertificates} under one CA, and the gateway's
 * engines over it as {@code tls.SipTls} makes them (the listener's certificate asking for a client certificate
 * verified against the CA; carriers checked by name, RFC 5922, with SNI), plus the other ends: a caller presenting
 * a client certificate and a carrier's server.
 */
public final class TestTls implements TlsEngines {

    public static final String GATEWAY_NAME = "gw.example";
    public static final String CARRIER_NAME = "carrier.example";

    private final TestCertificates certificates;
    private final Issued ca;
    private final Issued caller;
    private final ServerTls gateway;
    private final ServerTls carrier;
    private final ServerTls callerTls;
    private volatile String carrierName = CARRIER_NAME;

    public TestTls(Path dir) throws TlsMaterialException {
        this(dir, Clock.systemUTC());
    }

    /** @param clock what the gateway's listener checks its files for a renewal by (at most once a second) */
    public TestTls(Path dir, Clock clock) throws TlsMaterialException {
        certificates = new TestCertificates(dir);
        ca = certificates.certificate("Test CA").ca().write("ca");
        Issued gatewayCertificate = certificates.certificate("gw").dns(GATEWAY_NAME).issuedBy(ca).write("gw");
        Issued carrierCertificate = certificates.certificate("carrier").dns(CARRIER_NAME).issuedBy(ca)
                .write("carrier");
        caller = certificates.certificate("caller").dns("caller.example").issuedBy(ca).write("caller");
        gateway = listener(gatewayCertificate, Optional.of(ca.certificateFile()), clock);
        carrier = listener(carrierCertificate, Optional.of(ca.certificateFile()), Clock.systemUTC());
        callerTls = listener(caller, Optional.empty(), Clock.systemUTC());
    }

    private static ServerTls listener(Issued certificate, Optional<Path> clientCa, Clock clock)
            throws TlsMaterialException {
        return ServerTls.load(new TlsListenerSettings(certificate.certificateFile(), certificate.keyFile(),
                Optional.empty(), List.of(), clientCa), clock);
    }

    /** Writes a renewed certificate of the gateway's listener over its files; returns it. */
    public X509Certificate renewGatewayCertificate() {
        return certificates.certificate("gw renewed").dns(GATEWAY_NAME).issuedBy(ca).write("gw").certificate();
    }

    /** The SHA-256 of the caller's certificate, as a peer is matched by it. */
    public String callerSha256() {
        return caller.sha256();
    }

    /** From now on the gateway expects the carrier it connects to to be named {@code name}. */
    public void expectCarrierNamed(String name) {
        this.carrierName = name;
    }

    @Override
    public SSLEngine accepted(InetSocketAddress listener) {
        SSLEngine engine = gateway.context().createSSLEngine();
        engine.setUseClientMode(false);
        engine.setSSLParameters(gateway.serverParameters());
        return engine;
    }

    @Override
    public SSLEngine connecting(InetSocketAddress target) throws IOException {
        SSLEngine engine;
        try {
            engine = clientContext(Optional.of(gateway)).createSSLEngine(carrierName, target.getPort());
        } catch (TlsMaterialException e) {
            throw new IOException(e.getMessage(), e);
        }
        engine.setUseClientMode(true);
        SSLParameters parameters = CarrierTrust.clientParameters();
        parameters.setServerNames(List.of(new SNIHostName(carrierName)));
        engine.setSSLParameters(parameters);
        return engine;
    }

    @Override
    public Optional<PresentedCertificate> callerCertificate(SSLSession session) {
        return gateway.peerCertificate(session).map(PresentedCertificate.class::cast);
    }

    @Override
    public Duration handshakeTimeout() {
        return Duration.ofSeconds(5);
    }

    /** What a caller connects with: trusting the CA, expecting the gateway's name, presenting its certificate. */
    public SSLContext callerContext() throws TlsMaterialException {
        return clientContext(Optional.of(callerTls));
    }

    /** A caller's engine to the gateway, presenting its certificate. */
    public SSLEngine callerEngine() throws TlsMaterialException {
        SSLEngine engine = callerContext().createSSLEngine(GATEWAY_NAME, 5061);
        engine.setUseClientMode(true);
        engine.setSSLParameters(CarrierTrust.clientParameters());
        return engine;
    }

    /** A carrier's server engine, with the carrier's certificate. */
    public SSLEngine carrierEngine() {
        SSLEngine engine = carrier.context().createSSLEngine();
        engine.setUseClientMode(false);
        engine.setSSLParameters(carrier.serverParameters());
        return engine;
    }

    /** A carrier's server context. */
    public SSLContext carrierContext() {
        return carrier.context();
    }

    private SSLContext clientContext(Optional<ServerTls> presenting) throws TlsMaterialException {
        return CarrierTrust.clientContext(Optional.of(ca.certificateFile()), presenting);
    }
}

package io.trunkgate.tls;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.CarrierTls;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * The gateway's TLS: each TLS listener's certificate ({@link ServerTls}, re-read when its files change) and the
 * trust put in carriers. A connection to a carrier is checked against the name of the carrier whose addresses it
 * goes to (its URI's host, RFC 5922), with the carrier's {@code tls.ca-file} or the system CAs; a connection to an
 * address no carrier resolved to (a Contact or Record-Route of a carrier's) is checked against the address itself
 * and the system CAs. When a carrier asks for a client certificate, the first TLS listener's is presented.
 */
public final class SipTls implements TlsEngines {

    private final List<Listening> listeners;
    private final Duration handshakeTimeout;
    private final Supplier<GatewayConfig> config;
    private final CarrierResolver resolver;
    private final Clock clock;
    private final Map<Optional<Path>, SSLContext> carrierContexts = new ConcurrentHashMap<>();

    /** @param bound the listener's address, resolved once ("::1" and "0:0:0:0:0:0:0:1" are one address) */
    private record Listening(SipListener listener, InetAddress bound, ServerTls tls) {
        boolean at(InetSocketAddress address) {
            return listener.port() == address.getPort()
                    && (address.getAddress().isAnyLocalAddress() || bound.equals(address.getAddress()));
        }
    }

    private SipTls(List<Listening> listeners, Duration handshakeTimeout, Supplier<GatewayConfig> config,
                       CarrierResolver resolver, Clock clock) {
        this.listeners = List.copyOf(listeners);
        this.handshakeTimeout = handshakeTimeout;
        this.config = config;
        this.resolver = resolver;
        this.clock = clock;
    }

    /**
     * The TLS of {@code started}'s listeners; later carriers are read from {@code config} as it is reloaded.
     *
     * @throws TlsMaterialException a listener's certificate, key or client CA file does not load
     */
    public static SipTls load(GatewayConfig started, Supplier<GatewayConfig> config, CarrierResolver resolver,
                                  Clock clock) throws TlsMaterialException {
        List<Listening> listeners = new ArrayList<>();
        for (SipListener listener : started.sip().listeners()) {
            if (listener.tls().isPresent()) {
                InetAddress bound;
                try {
                    bound = InetAddress.getByName(stripBrackets(listener.host()));
                } catch (UnknownHostException e) {
                    throw new TlsMaterialException(listener.tls().get().certificate(),
                            "listener host " + listener.host() + " does not resolve");
                }
                listeners.add(new Listening(listener, bound, ServerTls.load(listener.tls().get(), clock)));
            }
        }
        return new SipTls(listeners, started.sip().tls().handshakeTimeout(), config, resolver, clock);
    }

    /** Whether any listener takes TLS. */
    public boolean listening() {
        return !listeners.isEmpty();
    }

    /** The certificate {@code listener} presents now, its expiry and its last renewal that failed; empty if not TLS. */
    public Optional<CertificateStatus> certificate(SipListener listener) {
        return listeners.stream().filter(l -> l.listener().equals(listener)).findFirst().map(l -> l.tls().status());
    }

    /** Each TLS listener's certificate as it is when asked, by listener ("tls 10.0.0.5:5061"). */
    public Map<String, Supplier<CertificateStatus>> statuses() {
        Map<String, Supplier<CertificateStatus>> statuses = new LinkedHashMap<>();
        listeners.forEach(l -> statuses.put(l.listener().describe(), () -> l.tls().status()));
        return statuses;
    }

    /** Carriers' CA files are read again at the next connection: called when the configuration is reloaded. */
    public void carriersReloaded() {
        carrierContexts.clear();
    }

    @Override
    public SSLEngine accepted(InetSocketAddress listener) {
        ServerTls tls = listeners.stream().filter(l -> l.at(listener)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no TLS listener at " + listener)).tls();
        SSLEngine engine = tls.context().createSSLEngine();
        engine.setUseClientMode(false);
        engine.setSSLParameters(tls.serverParameters());
        return engine;
    }

    @Override
    public SSLEngine connecting(InetSocketAddress target) throws IOException {
        Optional<CarrierConfig> carrier = carrierAt(target);
        String name = carrier.map(c -> stripBrackets(c.uri().host())).orElse(target.getAddress().getHostAddress());
        Optional<Path> caFile = carrier.flatMap(CarrierConfig::tls).flatMap(CarrierTls::caFile);
        SSLEngine engine = carrierContext(caFile).createSSLEngine(name, target.getPort());
        engine.setUseClientMode(true);
        SSLParameters parameters = CarrierTrust.clientParameters();
        if (carrier.isPresent() && !carrier.get().uri().hostIsAddress()) {
            parameters.setServerNames(List.of(new SNIHostName(name)));
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    @Override
    public Optional<PresentedCertificate> callerCertificate(SSLSession session) {
        for (Listening listening : listeners) {
            if (listening.tls().context().getServerSessionContext() == session.getSessionContext()) {
                return listening.tls().peerCertificate(session).map(PresentedCertificate.class::cast);
            }
        }
        return Optional.empty();
    }

    @Override
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /** The TLS carrier one of whose resolved addresses is {@code target}, else one at its IP address. */
    private Optional<CarrierConfig> carrierAt(InetSocketAddress target) {
        String ip = target.getAddress().getHostAddress();
        CarrierConfig sameIp = null;
        for (CarrierConfig carrier : config.get().carriers().values()) {
            if (carrier.uri().transport() != Transport.TLS) {
                continue;
            }
            for (CarrierAddress address : resolver.known(carrier.uri()).map(t -> t.addresses()).orElse(List.of())) {
                if (address.ip().equals(ip) && address.port() == target.getPort()) {
                    return Optional.of(carrier);
                }
                if (address.ip().equals(ip) && sameIp == null) {
                    sameIp = carrier;
                }
            }
        }
        return Optional.ofNullable(sameIp);
    }

    private SSLContext carrierContext(Optional<Path> caFile) throws IOException {
        SSLContext context = carrierContexts.get(caFile);
        if (context == null) {
            try {
                context = CarrierTrust.clientContext(caFile, listeners.stream().findFirst().map(Listening::tls), clock);
            } catch (TlsMaterialException e) {
                throw new IOException(e.getMessage(), e);
            }
            carrierContexts.put(caFile, context);
        }
        return context;
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}

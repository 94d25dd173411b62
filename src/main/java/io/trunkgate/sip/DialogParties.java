package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.runtime.ActiveConfig;
import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Who may speak for each end of a dialog the gateway admitted, so that a request in it from anyone else is refused.
 * The caller's end: the address its INVITE came from, and whatever the peer is matched by, as its INVITE was
 * ({@code match.sources}, {@code match.certificates}: a peer with several signalling addresses, or a new TLS
 * connection presenting its certificate). The callee's end: every address the gateway sent the call to or heard
 * from, every address the carrier's URI resolves to (A/AAAA, SRV targets: a carrier's cluster behind one name) and
 * the carrier's own {@code match.sources} (addresses it hangs up from that DNS does not list). A carrier commonly
 * ends a call from any of its addresses, and a call that cannot be ended is billed until a timer ends it.
 */
final class DialogParties {

    private final Supplier<ActiveConfig> config;
    private final CarrierResolver resolver;

    DialogParties(Supplier<ActiveConfig> config, CarrierResolver resolver) {
        this.config = config;
        this.resolver = resolver;
    }

    /**
     * Whether a request from {@code source}, on a connection that presented {@code certificate} (if any), may speak
     * for the caller's end of {@code dialog} ({@code fromCaller}) or for the callee's.
     */
    boolean maySpeak(Dialog dialog, boolean fromCaller, InetAddress source,
                     Optional<PresentedCertificate> certificate) {
        if (dialog.isEnd(source, fromCaller)) {
            return true;
        }
        ActiveConfig active = config.get();
        if (fromCaller) {
            return active.peers().find(source, certificate).filter(peer -> peer.id().equals(dialog.peerId()))
                    .isPresent();
        }
        CarrierConfig carrier = dialog.carrierId() == null ? null : active.config().carriers().get(dialog.carrierId());
        if (carrier == null) {
            return false;
        }
        if (carrier.sources().stream().anyMatch(network -> network.contains(source))) {
            return true;
        }
        String ip = source.getHostAddress();
        return resolver.known(carrier.uri()).map(targets -> targets.addresses().stream()
                .map(CarrierAddress::ip).anyMatch(ip::equals)).orElse(false);
    }
}

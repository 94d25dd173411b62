package io.trunkgate.sip;

import io.trunkgate.auth.DigestAuthentication;
import io.trunkgate.auth.DigestCheck;
import io.trunkgate.auth.DigestResponse;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.runtime.PeerDirectory;
import io.trunkgate.throttle.LogFields;
import io.trunkgate.throttle.ThrottledLog;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import javax.sip.header.Header;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Which peer a new INVITE is from, before anything else is done with it. Credentials for one of the realms of the
 * peers' {@code match.credentials} name their peer, and must be right for it (and come from where its
 * {@code match.sources} and {@code match.certificates}, if any, say); else the peer whose certificate or source
 * matches; else, when a peer with credentials may call from there, a 407 challenging for theirs; else nobody.
 *
 * <p>Challenges and refusals of credentials are stateless (an INVITE without credentials costs no transaction, as
 * from an unknown source), each counted. A wrong password, an unknown user or credentials from a place their peer
 * is not at are challenged again (407, as Kamailio's {@code proxy_authorize} failing then
 * {@code proxy_challenge} does, RFC 3261 §22.3): the caller's agent gives up rather than trying the same
 * credentials twice. A nonce expired, not the fleet's, or answered before is challenged with {@code stale=true}
 * (RFC 7616 §3.3). Credentials that cannot be checked (a parameter missing, a qop or algorithm not offered) get
 * 400. The digest-uri is hashed as written, not compared with the Request-URI (nor does Kamailio; SIPp writes the
 * gateway's address there). Credentials accepted are consumed: the carrier never sees them.
 */
final class PeerIdentification {

    /** Why an INVITE was answered 407: trunkgate_auth_challenges_total's {@code reason}. */
    enum Challenge {
        NO_CREDENTIALS, FAILED, STALE_NONCE, REPLAYED_NONCE;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    /** Why credentials were refused: trunkgate_auth_failures_total's {@code reason}. */
    enum Failure {
        WRONG_PASSWORD, UNKNOWN_USER, WRONG_SOURCE, MALFORMED;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    /** What an INVITE turned out to be. */
    sealed interface Identified {
    }

    /**
     * An INVITE of {@code peer}; {@code digest}: the credentials it was accepted on, whose single use is still to be
     * recorded ({@link #firstUse}), or empty for a peer known by its certificate or source.
     */
    record Peer(PeerConfig peer, Optional<DigestCheck.Accepted> digest) implements Identified {
    }

    /**
     * An INVITE answered statelessly at once with {@code response} (a challenge, a refusal of its credentials);
     * {@code budgeted}: to a source no peer lists, so within its budget of stateless answers.
     */
    record Answer(Response response, boolean budgeted) implements Identified {
    }

    /** An INVITE from no peer: answered as from an unknown source. */
    record Stranger() implements Identified {
    }

    private final DigestAuthentication digest;
    private final SipMessages messages;
    private final GatewayMetrics metrics;
    private final ThrottledLog log = new ThrottledLog(LoggerFactory.getLogger(PeerIdentification.class), 10,
            Duration.ofSeconds(1));

    PeerIdentification(DigestAuthentication digest, SipMessages messages, GatewayMetrics metrics) {
        this.digest = digest;
        this.messages = messages;
        this.metrics = metrics;
        metrics.authReasons(Arrays.stream(Challenge.values()).map(c -> c.tag).toList(),
                Arrays.stream(Failure.values()).map(f -> f.tag).toList());
    }

    /** Who sent {@code request}, a new INVITE from {@code source} over a connection with {@code certificate}. */
    Identified identify(Request request, InetAddress source, Optional<PresentedCertificate> certificate,
                        ActiveConfig active) throws Exception {
        PeerDirectory peers = active.peers();
        List<ProxyAuthorizationHeader> ours = ownCredentials(request, peers);
        if (!ours.isEmpty()) {
            return authenticate(request, source, certificate, active, ours);
        }
        Optional<PeerConfig> peer = peers.find(source, certificate);
        if (peer.isPresent()) {
            return new Peer(peer.get(), Optional.empty());
        }
        List<PeerConfig> candidates = peers.challengeable(source, certificate);
        if (candidates.isEmpty()) {
            return new Stranger();
        }
        metrics.authChallenged(Challenge.NO_CREDENTIALS.tag);
        return challenge(request, candidates, false);
    }

    /**
     * Whether the accepted credentials' nonce and nonce-count are used for the first time in the fleet: a replay is
     * refused ({@link #replayed}).
     */
    CompletionStage<Boolean> firstUse(DigestCheck.Accepted accepted, ActiveConfig active) {
        return digest.firstUse(accepted, active.config().admission().nonceLifetime());
    }

    /** The answer to an INVITE of {@code peer} whose credentials were used before: challenged, stale. */
    Response replayed(Request request, PeerConfig peer, InetAddress source) throws Exception {
        metrics.authChallenged(Challenge.REPLAYED_NONCE.tag);
        log.log(Level.INFO, "INVITE from " + source + " answered 407: credentials of peer " + peer.id()
                + " with a nonce and nc used before");
        return challenge(request, List.of(peer), true).response();
    }

    private Identified authenticate(Request request, InetAddress source, Optional<PresentedCertificate> certificate,
                                    ActiveConfig active, List<ProxyAuthorizationHeader> ours) throws Exception {
        PeerDirectory peers = active.peers();
        ProxyAuthorizationHeader header = ours.stream().filter(h -> named(h, peers).isPresent()).findFirst()
                .orElse(ours.get(0));
        Optional<PeerConfig> named = named(header, peers);
        if (named.isEmpty() || !PeerDirectory.accepts(named.get(), source, certificate)) {
            Failure failure = named.isEmpty() ? Failure.UNKNOWN_USER : Failure.WRONG_SOURCE;
            metrics.authFailed(named.map(PeerConfig::id).orElse(""), failure.tag);
            log.log(Level.INFO, "INVITE from " + source + ": credentials of user "
                    + LogFields.value(header.getUsername()) + " in realm " + LogFields.value(header.getRealm())
                    + " refused (" + failure.tag + ")");
            List<PeerConfig> candidates = peers.challengeable(source, certificate);
            if (candidates.isEmpty()) {
                return new Stranger();
            }
            metrics.authChallenged(Challenge.FAILED.tag);
            return challenge(request, candidates, false);
        }
        PeerConfig peer = named.get();
        DigestResponse given = response(header);
        DigestCheck check = digest.check(given, peer.credentials().get(), request.getMethod(),
                active.config().admission().nonceLifetime());
        if (check instanceof DigestCheck.Accepted accepted) {
            consume(request, peers);
            return new Peer(peer, Optional.of(accepted));
        }
        if (check instanceof DigestCheck.Stale) {
            metrics.authChallenged(Challenge.STALE_NONCE.tag);
            return challenge(request, List.of(peer), true);
        }
        if (check instanceof DigestCheck.Malformed malformed) {
            metrics.authFailed(peer.id(), Failure.MALFORMED.tag);
            log.log(Level.INFO, "INVITE from " + source + " answered 400: credentials of peer " + peer.id() + ": "
                    + malformed.why());
            return new Answer(messages.refusal(Response.BAD_REQUEST, request, "bad digest credentials: "
                    + malformed.why(), 0), peer.sources().isEmpty());
        }
        metrics.authFailed(peer.id(), Failure.WRONG_PASSWORD.tag);
        metrics.authChallenged(Challenge.FAILED.tag);
        log.log(Level.INFO, "INVITE from " + source + " answered 407: wrong password for peer " + peer.id());
        return challenge(request, List.of(peer), false);
    }

    /**
     * A 407 with a Proxy-Authenticate for each realm and algorithm of the credentials of {@code peers}; within the
     * source's budget unless a peer lists the source among its own.
     */
    private Answer challenge(Request request, List<PeerConfig> peers, boolean stale) throws Exception {
        List<PeerCredentials> credentials = peers.stream().map(peer -> peer.credentials().get()).toList();
        Response response = messages.response(Response.PROXY_AUTHENTICATION_REQUIRED, request);
        for (String value : digest.challenge(credentials, stale)) {
            response.addHeader(messages.headers().createHeader("Proxy-Authenticate", value));
        }
        return new Answer(response, peers.stream().allMatch(peer -> peer.sources().isEmpty()));
    }

    /**
     * The request's Digest credentials for a realm of the configured peers, in order: those for other realms are
     * another proxy's (RFC 3261 §22.3) and go on with the request.
     */
    private static List<ProxyAuthorizationHeader> ownCredentials(Request request, PeerDirectory peers) {
        List<ProxyAuthorizationHeader> ours = new ArrayList<>(1);
        for (ListIterator<?> it = request.getHeaders(ProxyAuthorizationHeader.NAME); it.hasNext(); ) {
            if (it.next() instanceof ProxyAuthorizationHeader header && "Digest".equalsIgnoreCase(header.getScheme())
                    && header.getRealm() != null && peers.isRealm(header.getRealm())) {
                ours.add(header);
            }
        }
        return ours;
    }

    /** Removes the credentials for the gateway's realms: they were for it, not for the carrier. */
    private static void consume(Request request, PeerDirectory peers) {
        List<ProxyAuthorizationHeader> ours = ownCredentials(request, peers);
        List<Header> others = new ArrayList<>();
        for (ListIterator<?> it = request.getHeaders(ProxyAuthorizationHeader.NAME); it.hasNext(); ) {
            Header header = (Header) it.next();
            if (!ours.contains(header)) {
                others.add(header);
            }
        }
        request.removeHeader(ProxyAuthorizationHeader.NAME);
        others.forEach(request::addHeader);
    }

    /** The peer whose credentials {@code header} names, if any. */
    private static Optional<PeerConfig> named(ProxyAuthorizationHeader header, PeerDirectory peers) {
        return Optional.ofNullable(header.getUsername()).flatMap(user -> peers.byCredentials(user, header.getRealm()));
    }

    private static DigestResponse response(ProxyAuthorizationHeader header) {
        return new DigestResponse(header.getUsername(), header.getRealm(), parameter(header, "nonce"),
                parameter(header, "uri"), parameter(header, "response"), parameter(header, "algorithm"),
                parameter(header, "cnonce"), parameter(header, "nc"), parameter(header, "qop"));
    }

    private static Optional<String> parameter(ProxyAuthorizationHeader header, String name) {
        return Optional.ofNullable(header.getParameter(name));
    }
}

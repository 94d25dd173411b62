package io.trunkgate.sip;

import io.trunkgate.records.CallRecord;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Optional;
import java.util.Set;
import javax.sip.address.Address;
import javax.sip.address.URI;
import javax.sip.header.ContactHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * A dialog this gateway admitted and forwarded: who its two ends are, and where each end's requests may be
 * relayed to. It is the only thing that lets a request carrying a To tag through the gateway: a request of
 * an unknown dialog, from a third address, or aimed anywhere but the dialog's other end is refused.
 *
 * <p>The caller's end is learned from its INVITE (source address, Contact, the Record-Routes it arrived
 * with); the carrier's end from where the gateway sent each attempt and from the carrier's responses
 * (their source, To tag, Contact, Record-Routes). Both sides' data come from parties the gateway already
 * trusts for this call: a peer it admitted and a carrier it chose.
 */
final class Dialog {

    private final String callId;
    private final String callerTag;
    /** The call's identity ({@link CallIdentity#key}): its leases are released by it when the dialog ends. */
    private final String callKey;
    private final String peerId;
    private final String inviteBranch;
    private final InetAddress callerSource;
    private final Flow callerFlow;
    private final Set<Hop> towardsCaller = new HashSet<>();
    private final URI callerTarget;
    private final List<Address> callerRoutes;
    private final Set<InetAddress> carrierSources = new HashSet<>();
    /** The carrier of the latest attempt: whoever speaks for it may speak for the callee's end ({@link DialogParties}). */
    private String carrierId;
    private final Set<Hop> towardsCallee = new HashSet<>();
    private final Set<String> calleeTags = new HashSet<>();
    /** The To tags of carrier legs the gateway hung up itself (a late answer): their 2xx is never relayed. */
    private final Set<String> closedTags = new HashSet<>();
    private URI calleeTarget;
    private List<Address> calleeRoutes = List.of();
    private int ownRecordRoutes;
    private boolean confirmed;
    private CallRecord answeredCall;
    private boolean ended;
    /** The INVITE's From and To (no tag): the gateway's own requests in the dialog are built from them. */
    private final FromHeader from;
    private final ToHeader to;
    /** The To tag of the 2xx the caller got: the callee's end of the established dialog. */
    private String answerTag;
    /** The highest CSeq number each end sent in the dialog: a request of the gateway's own goes one above. */
    private long callerCSeq;
    private long calleeCSeq;
    private final long openedAtNanos;
    private volatile long expiresAtNanos;
    private volatile boolean sessionTimer;
    /** Whether an ACK was relayed in the dialog (the caller's ACK to the INVITE's 2xx, or a later one). */
    private volatile boolean acknowledged;
    /** What a refresh or the answer last gave the dialog to live, applied again by the ACK (DialogTable). */
    private volatile long lifeNanos;

    /** A dialog opened at {@code openedAtNanos}; its owner sets when it expires. */
    Dialog(Request invite, CallIdentity identity, InetAddress source, int sourcePort, String peerId,
           long openedAtNanos) {
        this.callId = identity.callId();
        this.callerTag = identity.fromTag();
        this.callKey = identity.key();
        this.peerId = peerId;
        this.inviteBranch = SipMessages.topBranch(invite);
        this.callerSource = source;
        String transport = ((ViaHeader) invite.getHeader(ViaHeader.NAME)).getTransport();
        this.callerFlow = "TCP".equalsIgnoreCase(transport) || "TLS".equalsIgnoreCase(transport)
                ? new Flow(new InetSocketAddress(source, sourcePort), transport.toUpperCase(Locale.ROOT)) : null;
        this.from = (FromHeader) invite.getHeader(FromHeader.NAME).clone();
        this.to = (ToHeader) invite.getHeader(ToHeader.NAME).clone();
        this.callerCSeq = identity.cseq();
        this.openedAtNanos = openedAtNanos;
        this.expiresAtNanos = openedAtNanos;
        towardsCaller.add(Hop.of(source, sourcePort));
        ContactHeader contact = (ContactHeader) invite.getHeader(ContactHeader.NAME);
        this.callerTarget = contact == null ? null : contact.getAddress().getURI();
        addHop(towardsCaller, callerTarget);
        // The INVITE's Record-Routes, top first, are the caller side's route set as the callee will use it.
        this.callerRoutes = recordRoutes(invite);
        if (!callerRoutes.isEmpty()) {
            addHop(towardsCaller, callerRoutes.get(0).getURI());
        }
    }

    /** The TCP connection the caller's INVITE came on (requests towards the caller go back on it), else null. */
    Flow callerFlow() {
        return callerFlow;
    }

    String callId() {
        return callId;
    }

    /** The call's id for operators ({@link OperatorCalls#id}). */
    String id() {
        return OperatorCalls.id(new CallIdentity(callId, callerTag, 0));
    }

    String callKey() {
        return callKey;
    }

    String callerTag() {
        return callerTag;
    }

    String peerId() {
        return peerId;
    }

    String inviteBranch() {
        return inviteBranch;
    }

    long expiresAtNanos() {
        return expiresAtNanos;
    }

    void expireAt(long nanos) {
        expiresAtNanos = nanos;
    }

    long openedAtNanos() {
        return openedAtNanos;
    }

    /** Whether the parties negotiated a session timer (RFC 4028): then only its refreshes extend the dialog. */
    boolean sessionTimer() {
        return sessionTimer;
    }

    void sessionTimer(boolean on) {
        sessionTimer = on;
    }

    boolean acknowledged() {
        return acknowledged;
    }

    void acknowledge() {
        acknowledged = true;
    }

    long lifeNanos() {
        return lifeNanos;
    }

    void lifeNanos(long nanos) {
        lifeNanos = nanos;
    }

    /**
     * The gateway sends an attempt of this call to carrier {@code carrierId} at {@code carrier} (each failover adds
     * one), with
     * {@code ownRecordRoutes} Record-Route entries of its own.
     */
    synchronized void carrierAttempt(String carrierId, Hop carrier, int ownRecordRoutes) {
        this.carrierId = carrierId;
        this.ownRecordRoutes = ownRecordRoutes;
        towardsCallee.add(carrier);
        InetAddress address = carrier.address();
        if (address != null) {
            carrierSources.add(address);
        }
    }

    /**
     * A response of the carrier to the INVITE: its source is the carrier's end; a To tag, Contact and the
     * Record-Routes above the gateway's own define the callee side of the dialog (an early one for a 1xx).
     */
    synchronized void carrierResponse(Response response, InetAddress source) {
        if (source != null) {
            carrierSources.add(source);
        }
        String tag = ((ToHeader) response.getHeader(ToHeader.NAME)).getTag();
        if (tag == null) {
            return;
        }
        calleeTags.add(tag);
        ContactHeader contact = (ContactHeader) response.getHeader(ContactHeader.NAME);
        if (contact != null) {
            calleeTarget = contact.getAddress().getURI();
            addHop(towardsCallee, calleeTarget);
        }
        // Record-Routes are listed callee side first: those above the caller's and ours were added beyond us.
        List<Address> all = recordRoutes(response);
        int beyond = all.size() - callerRoutes.size() - ownRecordRoutes;
        if (beyond > 0) {
            List<Address> route = new ArrayList<>(all.subList(0, beyond));
            Collections.reverse(route);
            calleeRoutes = List.copyOf(route);
            addHop(towardsCallee, calleeRoutes.get(0).getURI());
        }
    }

    /**
     * The carrier answered 2xx with To tag {@code answerTag}: the dialog is established; {@code call} is its record
     * so far (no end yet).
     */
    synchronized void confirm(CallRecord call, String answerTag) {
        confirmed = true;
        answeredCall = call;
        this.answerTag = answerTag;
    }

    /** A request with CSeq number {@code cseq} was relayed from the caller's end ({@code fromCaller}) or the callee's. */
    synchronized void sent(boolean fromCaller, long cseq) {
        if (fromCaller) {
            callerCSeq = Math.max(callerCSeq, cseq);
        } else {
            calleeCSeq = Math.max(calleeCSeq, cseq);
        }
    }

    /**
     * What a request of the gateway's own towards one end ({@code toCallee}) carries, as if the other end sent
     * it: its From and To (with the dialog's tags) and a CSeq number above any that end sent; empty while the
     * dialog is not established.
     */
    synchronized Optional<OwnRequest> ownRequest(boolean toCallee) {
        if (!confirmed || answerTag == null) {
            return Optional.empty();
        }
        Address caller = from.getAddress();
        Address callee = to.getAddress();
        return Optional.of(toCallee
                ? new OwnRequest(caller, callerTag, callee, answerTag, callerCSeq + 1, calleeTarget, calleeRoutes)
                : new OwnRequest(callee, answerTag, caller, callerTag, calleeCSeq + 1, callerTarget, callerRoutes));
    }

    /** The parts of a request of the gateway's own in the dialog (see {@link #ownRequest}). */
    record OwnRequest(Address from, String fromTag, Address to, String toTag, long cseq, URI target,
                      List<Address> routes) {
    }

    /** The record of the answered call so far, while the dialog is up; empty before its answer and after its end. */
    synchronized Optional<CallRecord> answeredCall() {
        return ended ? Optional.empty() : Optional.ofNullable(answeredCall);
    }

    /** Marks the dialog ended; false if it already was. */
    synchronized boolean end() {
        if (ended) {
            return false;
        }
        ended = true;
        return true;
    }

    synchronized boolean ended() {
        return ended;
    }

    /** The record of the answered call, once: a dialog that lingers after its BYE need not keep it. */
    synchronized Optional<CallRecord> takeAnsweredCall() {
        Optional<CallRecord> call = Optional.ofNullable(answeredCall);
        answeredCall = null;
        return call;
    }

    synchronized boolean confirmed() {
        return confirmed;
    }

    synchronized boolean isCalleeTag(String tag) {
        return tag != null && calleeTags.contains(tag);
    }

    synchronized String carrierId() {
        return carrierId;
    }

    /** A carrier leg that answered with {@code toTag} was hung up by the gateway (ACK and BYE). */
    synchronized void legClosed(String toTag) {
        if (toTag != null) {
            closedTags.add(toTag);
        }
    }

    /** Whether a 2xx with {@code toTag} is of a leg the gateway hung up: a copy of it goes no further. */
    synchronized boolean isClosedLeg(String toTag) {
        return toTag != null && closedTags.contains(toTag);
    }

    /**
     * Whether {@code source} is an address the dialog learned for the caller's side ({@code fromCaller}) or the
     * callee's; {@link DialogParties} adds those that speak for the peer and the carrier.
     */
    synchronized boolean isEnd(InetAddress source, boolean fromCaller) {
        return fromCaller ? callerSource.equals(source) : carrierSources.contains(source);
    }

    /** Whether a request from one end may be relayed to {@code next}: only towards the dialog's other end. */
    synchronized boolean mayRelayTo(Hop next, boolean fromCaller) {
        return next != null && (fromCaller ? towardsCallee : towardsCaller).contains(next);
    }

    /** Remote target of the other end, for a request that names only the gateway (no Route, our R-URI). */
    synchronized URI otherTarget(boolean fromCaller) {
        return fromCaller ? calleeTarget : callerTarget;
    }

    /** The route set beyond the gateway towards the other end, in the order the request must carry it. */
    synchronized List<Address> otherRoutes(boolean fromCaller) {
        return fromCaller ? calleeRoutes : callerRoutes;
    }

    private static void addHop(Set<Hop> hops, URI uri) {
        Hop hop = uri == null ? null : Hop.of(uri);
        if (hop != null) {
            hops.add(hop);
        }
    }

    private static List<Address> recordRoutes(Message message) {
        List<Address> routes = new ArrayList<>();
        for (ListIterator<?> it = message.getHeaders(RecordRouteHeader.NAME); it.hasNext(); ) {
            routes.add(((RecordRouteHeader) it.next()).getAddress());
        }
        return routes;
    }
}

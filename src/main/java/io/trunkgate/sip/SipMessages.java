package io.trunkgate.sip;

import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.dns.CarrierAddress;
import java.net.InetAddress;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import io.trunkgate.config.SipListener;
import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.AuthorizationHeader;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Building the messages a proxy sends: its responses, and requests forwarded with its Via and Record-Route. */
public final class SipMessages {

    private static final Logger log = LoggerFactory.getLogger(SipMessages.class);
    /** The start of the To tag of every final response the gateway makes itself ({@link #response}). */
    static final String OWN_TAG_PREFIX = "tgown";
    public static final int DEFAULT_MAX_FORWARDS = 70;

    private final AddressFactory addresses;
    private final HeaderFactory headers;
    private final MessageFactory messages;

    public SipMessages() {
        try {
            SipFactory factory = JainSip.factory();
            this.addresses = factory.createAddressFactory();
            this.headers = factory.createHeaderFactory();
            this.messages = factory.createMessageFactory();
        } catch (Exception e) {
            throw new IllegalStateException("JAIN-SIP factories unavailable", e);
        }
    }

    public AddressFactory addresses() {
        return addresses;
    }

    public HeaderFactory headers() {
        return headers;
    }

    /**
     * A response of ours to {@code request}; a final one gets a To tag, as RFC 3261 §8.2.6.2 asks, starting
     * {@value #OWN_TAG_PREFIX}: the gateway never answers an INVITE 2xx itself, so an ACK with such a To tag
     * acknowledges one of its own refusals, never a dialog.
     */
    public Response response(int status, Request request) throws ParseException {
        Response response = messages.createResponse(status, request);
        ToHeader to = (ToHeader) response.getHeader(ToHeader.NAME);
        if (status >= 200 && to != null && to.getTag() == null) {
            to.setTag(OWN_TAG_PREFIX + JainSip.newTag());
        }
        return response;
    }

    /** Whether a To tag is one {@link #response} gave. */
    static boolean isOwnTag(String tag) {
        return tag != null && tag.startsWith(OWN_TAG_PREFIX);
    }

    /** A refusal with the SIP Reason header and, when given, a Retry-After in whole seconds. */
    public Response refusal(int status, Request request, String reason, long retryAfterSeconds) throws Exception {
        Response response = response(status, request);
        ReasonHeader header = headers.createReasonHeader("SIP", status, reason);
        response.addHeader(header);
        if (retryAfterSeconds > 0) {
            response.addHeader(headers.createRetryAfterHeader((int) retryAfterSeconds));
        }
        return response;
    }

    /** The Retry-After of a response, if it has one. */
    static Optional<Duration> retryAfter(Response response) {
        return response.getHeader(RetryAfterHeader.NAME) instanceof RetryAfterHeader header
                ? Optional.of(Duration.ofSeconds(header.getRetryAfter())) : Optional.empty();
    }

    /**
     * The session interval a 2xx to an INVITE or UPDATE negotiated (RFC 4028 Session-Expires, full or compact
     * form), or empty when the session has no timer.
     */
    static Optional<Duration> sessionExpires(Response response) {
        int seconds = JainSip.sessionExpiresSeconds(response);
        return seconds > 0 ? Optional.of(Duration.ofSeconds(seconds)) : Optional.empty();
    }

    /**
     * A response received from downstream as it goes upstream: without the gateway's Via. The response itself, not a
     * copy (a copy was the largest share of the allocation per call): each received response is relayed once, and
     * nothing reads its Via after that.
     */
    public static Response relayed(Response response) {
        response.removeFirst(ViaHeader.NAME);
        return response;
    }

    /**
     * The INVITE as it goes to a carrier: to {@code number} at the carrier's URI (a host name stays a name, with
     * only the port and transport it was written with; an IP address gets both), sent to {@code address}, with a
     * Record-Route for each of {@code recordRoutes}. A new call goes where routing says and nowhere else: a Route
     * the caller preloaded is dropped.
     */
    Request toCarrier(Request invite, String number, SipUri carrier, CarrierAddress address, SipListener outbound,
                      List<SipListener> recordRoutes) throws Exception {
        SipURI target = carrierUri(number.isEmpty() ? null : number, carrier, address.transport());
        Request out = forwarded(invite, target, outbound, recordRoutes);
        out.removeHeader(RouteHeader.NAME);
        return out;
    }

    /**
     * {@code user} (null for none) at the carrier's URI as requests to it name it: a host name stays a name, with only
     * the port and transport it was written with; an IP address gets both; a sips URI stays one.
     */
    SipURI carrierUri(String user, SipUri carrier) throws ParseException {
        return carrierUri(user, carrier, carrier.transport());
    }

    /**
     * As {@link #carrierUri(String, SipUri)}, for a request sent over {@code sent}: an IP address without a written
     * transport gets that one (a request too big for UDP goes over TCP, RFC 3261 §18.1.1).
     */
    private SipURI carrierUri(String user, SipUri carrier, Transport sent) throws ParseException {
        SipURI target = addresses.createSipURI(user, carrier.host());
        if (carrier.hostIsAddress() || carrier.portGiven()) {
            target.setPort(carrier.port());
        }
        if (carrier.secure()) {
            // TLS is the scheme's; a written transport=tcp is kept (RFC 5630: transport=tls is deprecated)
            target.setSecure(true);
            if (carrier.transportGiven()) {
                target.setTransportParam("tcp");
            }
        } else if (carrier.transportGiven()) {
            target.setTransportParam(carrier.transport().sipName());
        } else if (carrier.hostIsAddress()) {
            target.setTransportParam(sent.sipName());
        }
        return target;
    }

    /**
     * Where the gateway records its route for a call that came in on {@code inbound} and leaves from
     * {@code outbound}: one listener when the call leaves as it came; two when it changes transport or address
     * family (RFC 5658), so that each side reaches the gateway in its own way.
     */
    static List<SipListener> recordRoutes(SipListener inbound, SipListener outbound) {
        return inbound.transport() == outbound.transport() && inbound.host().equals(outbound.host())
                && inbound.port() == outbound.port() ? List.of(outbound) : List.of(inbound, outbound);
    }

    /**
     * A carrier's final response as it goes upstream: without the gateway's Via. A carrier that answers with
     * only that Via (a 487 copying the CANCEL's) gets an answer of the gateway's own to {@code invite} with the
     * same status.
     */
    Response upstream(Response response, Request invite) {
        Response relayed = relayed(response);
        if (relayed.getHeader(ViaHeader.NAME) != null) {
            return relayed;
        }
        try {
            Response own = response(response.getStatusCode(), invite);
            own.setReasonPhrase(response.getReasonPhrase());
            return own;
        } catch (ParseException | RuntimeException e) {
            log.warn("no answer of the gateway's own for a {} without Via; relayed as it is: {}",
                    response.getStatusCode(), e.toString());
            return relayed;
        }
    }

    /**
     * A copy of {@code request} to forward: Max-Forwards decremented (70 when absent), our Via on top, and
     * a Record-Route for each of {@code recordRoutes}, in order: one for a dialog-creating request, two when
     * the call changes transport (RFC 5658), so each side routes in-dialog requests over its own transport.
     *
     * @param requestUri where to send it, or null to keep the Request-URI
     */
    public Request forwarded(Request request, SipURI requestUri, SipListener from, List<SipListener> recordRoutes)
            throws Exception {
        return forwardedCopy((Request) request.clone(), requestUri, from, recordRoutes);
    }

    /**
     * As {@link #forwarded}, on a copy the caller already made and owns: it is changed and returned, not copied
     * again (a copy of a request is most of what forwarding it allocates).
     */
    Request forwardedCopy(Request copy, SipURI requestUri, SipListener from, List<SipListener> recordRoutes)
            throws Exception {
        if (requestUri != null) {
            copy.setRequestURI(requestUri);
        }
        MaxForwardsHeader maxForwards = (MaxForwardsHeader) copy.getHeader(MaxForwardsHeader.NAME);
        if (maxForwards == null) {
            copy.setHeader(headers.createMaxForwardsHeader(DEFAULT_MAX_FORWARDS - 1));
        } else {
            maxForwards.decrementMaxForwards();
        }
        copy.addFirst(via(from));
        for (SipListener recordRoute : recordRoutes) {
            SipURI own = addresses.createSipURI(null, recordRoute.host());
            own.setPort(recordRoute.port());
            own.setTransportParam(recordRoute.transport().sipName());
            own.setLrParam();
            copy.addFirst(headers.createRecordRouteHeader(addresses.createAddress(own)));
        }
        return copy;
    }

    /**
     * Removes the top Route headers that name this proxy (loose routing, RFC 3261 §16.4; two after RFC 5658,
     * possibly of different listeners).
     */
    public static void popOwnRoutes(Request request, OwnListeners listeners) {
        RouteHeader route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        while (route != null && isOwn(route.getAddress().getURI(), listeners)) {
            request.removeFirst(RouteHeader.NAME);
            route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        }
    }

    /** Whether {@code uri} names one of this proxy's listening points (hosts compared canonically, RFC 5118). */
    static boolean isOwn(javax.sip.address.URI uri, OwnListeners listeners) {
        Hop hop = Hop.of(uri);
        return hop != null && listeners.isOwn(hop);
    }

    /** A Via of the gateway's for a request sent from {@code from}, with a new branch. */
    ViaHeader via(SipListener from) throws ParseException, javax.sip.InvalidArgumentException {
        return headers.createViaHeader(from.host(), from.port(), from.transport().name(), JainSip.newBranch());
    }

    /** Whether the request still has hops left: Max-Forwards absent or above zero. */
    public static boolean hasHopsLeft(Request request) {
        MaxForwardsHeader maxForwards = (MaxForwardsHeader) request.getHeader(MaxForwardsHeader.NAME);
        return maxForwards == null || maxForwards.getMaxForwards() > 0;
    }

    static String callId(Message message) {
        CallIdHeader header = (CallIdHeader) message.getHeader(CallIdHeader.NAME);
        return header == null ? null : header.getCallId();
    }

    static String fromTag(Message message) {
        FromHeader from = (FromHeader) message.getHeader(FromHeader.NAME);
        return from == null ? null : from.getTag();
    }

    /** The branch of the top Via: the sender's transaction. */
    static String topBranch(Message message) {
        ViaHeader via = (ViaHeader) message.getHeader(ViaHeader.NAME);
        return via == null ? null : via.getBranch();
    }

    static String toTag(Message message) {
        ToHeader to = (ToHeader) message.getHeader(ToHeader.NAME);
        return to == null ? null : to.getTag();
    }

    /** The address the message came from: the datagram's or the connection's source. */
    static InetAddress source(Message message) {
        return JainSip.source(message);
    }

    static int sourcePort(Message message) {
        return JainSip.sourcePort(message);
    }

    /** Whether the request carries credentials: an Authorization or Proxy-Authorization header (RFC 3261 §22). */
    static boolean hasCredentials(Request request) {
        return request.getHeader(AuthorizationHeader.NAME) != null
                || request.getHeader(ProxyAuthorizationHeader.NAME) != null;
    }

    /** The request's size on the wire, encoded as the stack sends it over {@code transport}. */
    static int wireSize(Request request, String transport) {
        return JainSip.wireSize(request, transport);
    }

    /** The message's size as received: its header section (as parsed) and its body. */
    static int size(Message message) {
        byte[] body = message.getRawContent();
        return JainSip.headerSize(message) + (body == null ? 0 : body.length);
    }

    /**
     * Whether responses along this Via go to one host: not to a multicast, broadcast (a last IPv4 octet of
     * 255) or unspecified address, whether named by its received, maddr or sent-by.
     */
    static boolean answersToOneHost(ViaHeader via) {
        for (String target : new String[] {via.getParameter("maddr"), via.getReceived(), via.getHost()}) {
            InetAddress address = target == null ? null : Hop.of(target, 0).address();
            if (address != null && (address.isMulticastAddress() || address.isAnyLocalAddress()
                    || (address.getAddress().length == 4 && (address.getAddress()[3] & 0xff) == 0xff))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A request of the gateway itself inside the dialog a 2xx to {@code invite} (as the gateway forwarded it)
     * created: the ACK for that 2xx (same CSeq number) or a BYE (the next one), to the 2xx's Contact along
     * {@code routes}. Used to close a leg nobody else will: a carrier's answer that came too late.
     */
    Request inAnsweredDialog(String method, Request invite, Response answer, List<javax.sip.address.Address> routes,
                             SipListener from) throws Exception {
        javax.sip.header.ContactHeader contact = (javax.sip.header.ContactHeader) answer.getHeader(
                javax.sip.header.ContactHeader.NAME);
        javax.sip.address.URI target = contact != null ? contact.getAddress().getURI() : invite.getRequestURI();
        long seq = ((javax.sip.header.CSeqHeader) invite.getHeader(javax.sip.header.CSeqHeader.NAME)).getSeqNumber();
        return ownInDialog(method, (CallIdHeader) invite.getHeader(CallIdHeader.NAME),
                (FromHeader) invite.getHeader(FromHeader.NAME), (ToHeader) answer.getHeader(ToHeader.NAME),
                Request.ACK.equals(method) ? seq : seq + 1, target, routes, from);
    }

    /**
     * A BYE of the gateway's own to one end of {@code dialog} ({@code toCallee}), as if the other end sent it
     * (an operator's hangup); empty while the dialog is not established.
     */
    Optional<Request> byeInDialog(Dialog dialog, boolean toCallee, SipListener from) throws Exception {
        Optional<Dialog.OwnRequest> own = dialog.ownRequest(toCallee);
        if (own.isEmpty() || own.get().target() == null) {
            return Optional.empty();
        }
        Dialog.OwnRequest parts = own.get();
        return Optional.of(ownInDialog(Request.BYE, headers.createCallIdHeader(dialog.callId()),
                headers.createFromHeader(parts.from(), parts.fromTag()), headers.createToHeader(parts.to(),
                        parts.toTag()), parts.cseq(), parts.target(), parts.routes(), from));
    }

    private Request ownInDialog(String method, CallIdHeader callId, FromHeader from, ToHeader to, long cseq,
                                javax.sip.address.URI target, List<javax.sip.address.Address> routes,
                                SipListener sentFrom) throws Exception {
        Request request = messages.createRequest((javax.sip.address.URI) target.clone(), method, callId,
                headers.createCSeqHeader(cseq, method), from, to, List.of(via(sentFrom)),
                headers.createMaxForwardsHeader(DEFAULT_MAX_FORWARDS));
        for (javax.sip.address.Address route : routes) {
            request.addLast(headers.createRouteHeader(route));
        }
        return request;
    }
}

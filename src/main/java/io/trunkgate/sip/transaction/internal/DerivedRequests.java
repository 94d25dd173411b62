package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.jainsip.JainSip;
import java.util.List;
import java.util.ListIterator;
import javax.sip.SipFactory;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** The requests a client transaction makes from its own: the ACK of a non-2xx final response, and a CANCEL. */
final class DerivedRequests {

    private final HeaderFactory headers;
    private final MessageFactory messages;

    DerivedRequests() {
        try {
            SipFactory factory = JainSip.factory();
            this.headers = factory.createHeaderFactory();
            this.messages = factory.createMessageFactory();
        } catch (Exception e) {
            throw new IllegalStateException("JAIN-SIP factories unavailable", e);
        }
    }

    /**
     * The ACK of a non-2xx final response to {@code invite} (RFC 3261 §17.1.1.3): the INVITE's Request-URI,
     * Call-ID, From, CSeq number, top Via (its only one) and Route headers, and the response's To.
     */
    Request ack(Request invite, Response response) throws Exception {
        return derived(Request.ACK, invite, (ToHeader) response.getHeader(ToHeader.NAME));
    }

    /**
     * The CANCEL of {@code invite} (RFC 3261 §9.1): its Request-URI, Call-ID, To, From, CSeq number, top Via (its
     * only one) and Route headers.
     */
    Request cancel(Request invite) throws Exception {
        return derived(Request.CANCEL, invite, (ToHeader) invite.getHeader(ToHeader.NAME));
    }

    private Request derived(String method, Request invite, ToHeader to) throws Exception {
        long seq = ((CSeqHeader) invite.getHeader(CSeqHeader.NAME)).getSeqNumber();
        MaxForwardsHeader maxForwards = (MaxForwardsHeader) invite.getHeader(MaxForwardsHeader.NAME);
        Request request = messages.createRequest((URI) invite.getRequestURI().clone(), method,
                copy(invite.getHeader(CallIdHeader.NAME)), headers.createCSeqHeader(seq, method),
                copy(invite.getHeader(FromHeader.NAME)), copy(to),
                List.of(copy(invite.getHeader(ViaHeader.NAME))),
                maxForwards != null ? copy(maxForwards) : headers.createMaxForwardsHeader(70));
        ListIterator<?> routes = invite.getHeaders(RouteHeader.NAME);
        while (routes.hasNext()) {
            request.addLast(copy((Header) routes.next()));
        }
        return request;
    }

    @SuppressWarnings("unchecked")
    private static <H extends Header> H copy(Header header) {
        return (H) header.clone();
    }
}

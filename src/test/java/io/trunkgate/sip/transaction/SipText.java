package io.trunkgate.sip.transaction;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import javax.sip.SipFactory;
import javax.sip.header.ToHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** Requests and responses for the transaction tests, written as they travel. */
final class SipText {

    static final String CALL_ID = "call-1@192.0.2.1";
    static final Peer CARRIER_UDP = Peer.of(Transport.UDP, new InetSocketAddress("192.0.2.10", 5060));
    static final Peer CARRIER_TCP = new Peer(Transport.TCP, new InetSocketAddress("192.0.2.10", 5060), "carrier-flow");
    static final Peer CALLER_UDP = Peer.of(Transport.UDP, new InetSocketAddress("192.0.2.1", 5060));
    static final Peer CALLER_TCP = new Peer(Transport.TCP, new InetSocketAddress("192.0.2.1", 40123), "caller-flow");

    private static final MessageFactory MESSAGES;

    static {
        try {
            SipFactory factory = SipFactory.getInstance();
            factory.setPathName("gov.nist");
            MESSAGES = factory.createMessageFactory();
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SipText() {
    }

    /** An INVITE as the gateway sends it to a carrier, with its Via on top, over {@code transport}. */
    static Request invite(String branch, String transport) {
        return request("INVITE", "sip:+15551234@192.0.2.10:5060", "SIP/2.0/" + transport + " 192.0.2.5:5060;branch="
                + branch, 1, null);
    }

    /** A request with one Via, from {@code via}, in the call {@link #CALL_ID}. */
    static Request request(String method, String uri, String via, long cseq, String toTag) {
        return parse(method + " " + uri + " SIP/2.0\r\n"
                + "Via: " + via + "\r\n"
                + "Max-Forwards: 69\r\n"
                + "Route: <sip:192.0.2.20;lr>\r\n"
                + "From: <sip:alice@example.com>;tag=a1\r\n"
                + "To: <sip:+15551234@example.com>" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: " + CALL_ID + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Contact: <sip:alice@192.0.2.1>\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    /** A caller's request with the magic cookie, from 192.0.2.1:5060 over UDP. */
    static Request fromCaller(String method, String branch) {
        return request(method, "sip:+15551234@192.0.2.5", "SIP/2.0/UDP 192.0.2.1:5060;branch=" + branch, 1, null);
    }

    static Request parse(String text) {
        try {
            return MESSAGES.createRequest(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A response to {@code request}; a final one with the To tag {@code toTag}. */
    static Response response(int status, Request request, String toTag) {
        try {
            Response response = MESSAGES.createResponse(status, request);
            if (status >= 200 && toTag != null) {
                ((ToHeader) response.getHeader(ToHeader.NAME)).setTag(toTag);
            }
            return response;
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static Response response(int status, Request request) {
        return response(status, request, "b" + status);
    }
}

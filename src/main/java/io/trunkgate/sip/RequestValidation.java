package io.trunkgate.sip;

import io.trunkgate.config.SipLimits;
import io.trunkgate.sip.jainsip.JainSip;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Optional;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ProxyRequireHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The checks every request passes before the proxy does anything for it (RFC 3261 §16.3, and the gateway's
 * own size limits): what is wrong with it, if anything, and the answer for that.
 */
final class RequestValidation {

    private final SipMessages messages;
    private final SipLimits limits;

    RequestValidation(SipMessages messages, SipLimits limits) {
        this.messages = messages;
        this.limits = limits;
    }

    /**
     * What is wrong with {@code request}, if anything. A request without Max-Forwards gets one of 70 here, as a
     * proxy must add it (RFC 3261 §16.6 step 3); the stack would refuse it a transaction otherwise.
     */
    Optional<RequestRefusal> problem(Request request) throws Exception {
        if (!"SIP/2.0".equalsIgnoreCase(JainSip.sipVersion(request))) {
            return Optional.of(RequestRefusal.VERSION_NOT_SUPPORTED);
        }
        int vias = 0;
        for (ListIterator<?> it = request.getHeaders(ViaHeader.NAME); it.hasNext(); it.next()) {
            vias++;
        }
        if (vias > limits.maxViaHeaders()) {
            return Optional.of(RequestRefusal.TOO_MANY_VIAS);
        }
        if (SipMessages.size(request) > limits.maxMessageSize()) {
            return Optional.of(RequestRefusal.TOO_LARGE);
        }
        if (!SipMessages.answersToOneHost((ViaHeader) request.getHeader(ViaHeader.NAME))) {
            return Optional.of(RequestRefusal.ANSWER_NOT_TO_ONE_HOST);
        }
        String scheme = request.getRequestURI().getScheme();
        if (!"sip".equalsIgnoreCase(scheme) && !"sips".equalsIgnoreCase(scheme)) {
            return Optional.of(RequestRefusal.UNSUPPORTED_URI_SCHEME);
        }
        if (!Request.ACK.equals(request.getMethod()) && !Request.CANCEL.equals(request.getMethod())
                && request.getHeader(ProxyRequireHeader.NAME) != null) {
            return Optional.of(RequestRefusal.BAD_EXTENSION);
        }
        if (request.getHeader(MaxForwardsHeader.NAME) == null) {
            // the stack keeps a header it could not parse (e.g. "Max-Forwards: -5") aside as text
            if (JainSip.hasUnparsed(request, MaxForwardsHeader.NAME)) {
                return Optional.of(RequestRefusal.BAD_MAX_FORWARDS);
            }
            request.setHeader(messages.headers().createMaxForwardsHeader(SipMessages.DEFAULT_MAX_FORWARDS));
        }
        return Optional.empty();
    }

    /** The answer to a request with {@code problem} (whose status is not 0). */
    Response answer(RequestRefusal problem, Request request) throws Exception {
        Response response = messages.response(problem.status, request);
        if (problem == RequestRefusal.BAD_EXTENSION) {
            // The gateway supports no extension a proxy would have to understand: every one is unsupported.
            List<String> tags = new ArrayList<>();
            for (ListIterator<?> it = request.getHeaders(ProxyRequireHeader.NAME); it.hasNext(); ) {
                tags.add(((ProxyRequireHeader) it.next()).getOptionTag());
            }
            for (String tag : tags) {
                response.addHeader(messages.headers().createUnsupportedHeader(tag));
            }
        }
        return response;
    }
}

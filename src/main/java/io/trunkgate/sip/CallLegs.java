package io.trunkgate.sip;

import io.trunkgate.config.SipUri;
import io.trunkgate.dns.CarrierAddress;
import java.time.Duration;
import java.util.List;
import javax.sip.address.Address;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The SIP stack as one proxied INVITE reaches it: the caller's INVITE transaction upstream, and one leg per INVITE
 * sent to a carrier. A leg's responses and its timeout come back to the call ({@link InviteCall#onResponse},
 * {@link InviteCall#onTransactionTimeout}) with the leg they belong to.
 */
interface CallLegs {

    /** One INVITE sent to a carrier, as the call tells its legs apart. */
    interface Leg {
    }

    /**
     * The INVITE as it goes to a carrier, not yet sent.
     *
     * @param recordRoutes how many Record-Route headers of the gateway's own it carries (one, or two when the
     *                     call changes transport or address family on the way)
     */
    record Outgoing(Request request, CarrierAddress to, int recordRoutes) {
    }

    /** A provisional or final response to the caller, on its INVITE's transaction. */
    void answer(Response response) throws Exception;

    /** A further 2xx to the caller after the final response, outside the transaction (a fork's, a retransmission). */
    void answerAgain(Response response) throws Exception;

    /**
     * The caller's INVITE as it goes to {@code number} at the carrier's {@code uri}, sent to {@code to}; over TCP
     * to the same address and port instead of UDP when it is too big for a datagram ({@link UdpSizeRule}), so the
     * answer's {@link Outgoing#to} is where it goes.
     */
    Outgoing toCarrier(Request invite, String number, String carrierId, SipUri uri, CarrierAddress to)
            throws Exception;

    /**
     * Sends the INVITE to its carrier; the leg's responses and timeout go to {@code call}. Its transaction waits
     * at least {@code timerC} for a provisional response (RFC 3261 §16.8).
     */
    Leg send(Outgoing invite, Duration timerC, InviteCall call) throws Exception;

    /** Sends a CANCEL for the leg's INVITE to {@code to}, where the INVITE went (RFC 3261 §9.1). */
    void cancel(Leg leg, CarrierAddress to) throws Exception;

    /**
     * The carrier gets no further copy of the leg's INVITE; the leg still takes the carrier's responses (a late
     * provisional, a 2xx) until it times out.
     */
    void stopRetransmitting(Leg leg);

    /**
     * Ends the leg's INVITE transaction if it is still waiting for a final response, so the stack forgets it; a
     * response that comes later is a stray. Returns whether it was waiting.
     */
    boolean abandon(Leg leg) throws Exception;

    /** ACKs a 2xx on the leg that nobody upstream will take and ends its dialog with a BYE of the gateway's own. */
    void closeAnswered(Leg leg, Response answer, List<Address> routes) throws Exception;
}

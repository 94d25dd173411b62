package io.trunkgate.sip;

import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.sip.transaction.ResponseRoutes;
import io.trunkgate.sip.transaction.Wire;
import java.util.List;
import java.util.ListIterator;
import java.util.Optional;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Responses that no transaction of the gateway knows. The only one a proxy must still relay is a 2xx to an
 * INVITE it forwarded, retransmitted after its client transaction ended (RFC 3261 §16.7 step 5, §17.1.1.2):
 * such a response is relayed only when the gateway's own Via is on top, it comes from the carrier end of a
 * dialog the gateway admitted, the next Via is that call's caller, and it is not of a leg the gateway hung up itself
 * (a carrier's late answer after the call went elsewhere). Everything else is dropped, so the
 * gateway cannot be made to reflect responses at a third address.
 */
final class StrayResponseRelay {

    private static final Logger log = LoggerFactory.getLogger(StrayResponseRelay.class);

    private final OwnListeners listeners;
    private final Wire wire;
    private final DialogTable dialogs;
    private final GatewayMetrics metrics;

    StrayResponseRelay(OwnListeners listeners, Wire wire, DialogTable dialogs, GatewayMetrics metrics) {
        this.listeners = listeners;
        this.wire = wire;
        this.dialogs = dialogs;
        this.metrics = metrics;
    }

    void relay(Response response) {
        Optional<Dialog> dialog = dialogOf(response);
        if (dialog.isEmpty()) {
            return;
        }
        // A fork's further 2xx brings a new callee tag: the caller's ACK and BYE for it must be let through.
        dialog.get().carrierResponse(response, SipMessages.source(response));
        try {
            Response relayed = SipMessages.relayed(response);
            wire.send(relayed, ResponseRoutes.destination((ViaHeader) relayed.getHeader(ViaHeader.NAME)))
                    .whenComplete((sent, error) -> {
                        if (error != null) {
                            log.debug("retransmitted 2xx not relayed: {}", error.toString());
                        }
                    });
        } catch (RuntimeException e) {
            log.debug("retransmitted 2xx not relayed: {}", e.toString());
        }
    }

    /** The dialog the response is relayed in, or empty when it is dropped (and counted, by reason). */
    private Optional<Dialog> dialogOf(Response response) {
        Optional<String> refusal = refusal(response);
        if (refusal.isPresent()) {
            metrics.responseDropped(refusal.get());
            return Optional.empty();
        }
        return dialogs.find(SipMessages.callId(response), SipMessages.fromTag(response));
    }

    /** Every reason {@link #refusal} gives. */
    private static final String NO_TRANSACTION = "no_transaction";
    private static final String NOT_OUR_VIA = "not_our_via";
    private static final String UNKNOWN_DIALOG = "unknown_dialog";
    private static final String NOT_UNICAST = "not_unicast";
    private static final String CLOSED_LEG = "closed_leg";
    static final List<String> DROP_REASONS = List.of(NO_TRANSACTION, NOT_OUR_VIA, UNKNOWN_DIALOG, NOT_UNICAST,
            CLOSED_LEG);

    /** Why the response is dropped (the metric's reason tag), or empty when it is relayed. */
    private Optional<String> refusal(Response response) {
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        if (response.getStatusCode() / 100 != 2 || cseq == null || !Request.INVITE.equals(cseq.getMethod())) {
            return Optional.of(NO_TRANSACTION);
        }
        ListIterator<?> vias = response.getHeaders(ViaHeader.NAME);
        ViaHeader own = vias.hasNext() ? (ViaHeader) vias.next() : null;
        ViaHeader caller = vias.hasNext() ? (ViaHeader) vias.next() : null;
        if (own == null || caller == null || !listeners.isOwn(Hop.sentBy(own))) {
            return Optional.of(NOT_OUR_VIA);
        }
        Optional<Dialog> dialog = dialogs
                .find(SipMessages.callId(response), SipMessages.fromTag(response))
                .filter(d -> d.isEnd(SipMessages.source(response), false))
                .filter(d -> d.inviteBranch() != null && d.inviteBranch().equals(caller.getBranch()));
        if (dialog.isEmpty()) {
            return Optional.of(UNKNOWN_DIALOG);
        }
        if (dialog.get().isClosedLeg(SipMessages.toTag(response))) {
            return Optional.of(CLOSED_LEG); // a copy of a late answer the gateway ACKed and hung up itself
        }
        if (!SipMessages.answersToOneHost(caller)) {
            return Optional.of(NOT_UNICAST);
        }
        return Optional.empty();
    }
}

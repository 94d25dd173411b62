package io.trunkgate.sip;

import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.overload.ShedReason;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.sip.wire.NewCallGate;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiPredicate;
import io.trunkgate.sip.transport.Inbound;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.SipHead;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the SIP transports deliver to while the gateway starts (docs/warm-up.md), in front of the {@link SipProxy}:
 * new INVITEs and OPTIONS from anywhere but the warm-up's own address hear 503 "gateway starting" with
 * Retry-After, the peers' INVITEs before they are parsed (so the load of a busy hour does not slow the warm-up);
 * everything else goes to the proxy. Once {@link #open()}, everything goes to the proxy, which knows nothing of
 * the start.
 */
public final class StartingGate implements Inbound, NewCallGate {

    private static final Logger log = LoggerFactory.getLogger(StartingGate.class);
    private static final String STARTING = "gateway starting";

    private final SipProxy proxy;
    private final SipMessages messages;
    private final BiPredicate<InetAddress, String> warmUpCall;
    private final ActiveConfig starting;
    private volatile boolean open;

    /**
     * @param warmUpCall   whether a new call from an address with a Call-ID is one of the warm-up's, which go on
     * @param starting     the configuration the gateway will take traffic with: its peers' INVITEs are shed as
     *                     "starting" (with a call record each), since the warm-up runs on a configuration of its own
     */
    public StartingGate(SipProxy proxy, SipMessages messages, BiPredicate<InetAddress, String> warmUpCall,
                        ActiveConfig starting) {
        this.proxy = proxy;
        this.messages = messages;
        this.warmUpCall = warmUpCall;
        this.starting = starting;
    }

    /** The gateway is ready: from now on every message goes to the proxy. */
    public void open() {
        open = true;
    }

    /**
     * A peer's every new INVITE hears 503 before parsing, and without the per-source budget of other refusals:
     * an INVITE left unanswered comes back as retransmissions, all at once when the gateway is ready.
     */
    @Override
    public Optional<String> shed(InetAddress source, Optional<PresentedCertificate> certificate, String callId,
                                 String callerTag, long cseq, Duration waitAhead) {
        if (open) {
            return proxy.shed(source, certificate, callId, callerTag, cseq, waitAhead);
        }
        if (warmUpCall.test(source, callId)) {
            return Optional.empty();
        }
        return proxy.shed(source, certificate, callId, callerTag, cseq, starting,
                () -> Optional.of(ShedReason.STARTING));
    }

    @Override
    public void received(InboundMessage message) {
        SipHead head = message.head();
        if (!open && (head.isRequest(Request.OPTIONS) || head.isNewInvite())
                && !warmUpCall.test(message.remote().getAddress(), head.callId())) {
            // a probe (a load balancer's OPTIONS) hears 503 too: not ready for calls yet
            Message parsed = proxy.parse(message);
            if (parsed instanceof Request request && newCallOrProbe(request)) {
                if (proxy.mayAnswer(message.remote().getAddress())) {
                    answerStarting(message, request);
                }
                return;
            }
        }
        proxy.received(message);
    }

    private static boolean newCallOrProbe(Request request) {
        String method = request.getMethod();
        return Request.OPTIONS.equals(method) || Request.INVITE.equals(method) && SipMessages.toTag(request) == null;
    }

    private void answerStarting(InboundMessage message, Request request) {
        try {
            proxy.answerStatelessly(message, messages.refusal(Response.SERVICE_UNAVAILABLE, request, STARTING, 1));
        } catch (Exception e) {
            log.debug("503 starting not sent to {}: {}", SipMessages.source(request), e.toString());
        }
    }
}

package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPMessageValve;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import java.util.function.Consumer;
import javax.sip.SipStack;
import javax.sip.message.Response;

/**
 * Hands a response that no client transaction knows straight to the proxy. JAIN-SIP, before it gives up on such a
 * response, walks every client transaction of the stack asking each whether the response is its own (with a
 * lower-casing per comparison): O(live transactions) per stray response. Transactions linger for their RFC 3261
 * timers, so at a few hundred calls per second thousands are live, and under overload, when carriers retransmit
 * their 200s, the walk takes a large share of the CPU just when it is short and turns a short overload into a
 * collapse. The walk can only find a transaction for a pre-RFC 3261 branch: with the magic cookie, a
 * response belongs to the transaction stored under its branch (and method, for CANCEL), which one lookup finds.
 * Every branch this gateway sends starts with the cookie.
 */
public final class StrayResponseValve implements SIPMessageValve {

    private static final String MAGIC_COOKIE = "z9hg4bk";

    private final SIPTransactionStack stack;
    private volatile Consumer<Response> strays;

    private StrayResponseValve(SIPTransactionStack stack) {
        this.stack = stack;
    }

    /** Puts a valve in front of {@code stack}'s response matching; it lets everything through until {@link #deliverTo}. */
    public static StrayResponseValve install(SipStack stack) {
        SIPTransactionStack transactions = (SIPTransactionStack) stack;
        StrayResponseValve valve = new StrayResponseValve(transactions);
        transactions.sipMessageValves.add(valve);
        return valve;
    }

    /** From now on stray responses with an RFC 3261 branch go to {@code handler}, on the thread that read them. */
    public void deliverTo(Consumer<Response> handler) {
        this.strays = handler;
    }

    @Override
    public boolean processResponse(Response response, MessageChannel channel) {
        Consumer<Response> handler = strays;
        if (handler == null || !(response instanceof SIPResponse sip)) {
            return true;
        }
        String key = sip.getTransactionId();
        if (!key.regionMatches(true, 0, MAGIC_COOKIE, 0, MAGIC_COOKIE.length())
                || stack.findTransaction(key, false) != null) {
            return true;
        }
        handler.accept(response);
        return false;
    }

    @Override
    public boolean processRequest(gov.nist.javax.sip.message.SIPRequest request, MessageChannel channel) {
        return true;
    }

    @Override
    public void init(SipStack stack) {
        // installed by install(), not by the stack's SIP_MESSAGE_VALVE property
    }

    @Override
    public void destroy() {
        // nothing held
    }
}

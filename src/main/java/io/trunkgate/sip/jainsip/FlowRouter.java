package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.ListeningPointImpl;
import gov.nist.javax.sip.message.MessageExt;
import gov.nist.javax.sip.stack.DefaultRouter;
import gov.nist.javax.sip.stack.HopImpl;
import java.util.Iterator;
import java.util.ListIterator;
import javax.sip.SipException;
import javax.sip.SipStack;
import javax.sip.address.Hop;
import javax.sip.address.Router;
import javax.sip.message.Request;

/**
 * The stack's router (javax.sip.ROUTER_PATH): a request that carries a {@link Flow} goes back on that connection
 * while the peer keeps it open (RFC 5923 connection reuse, RFC 5626 flows); a request that carries a {@link Hop}
 * goes there (a carrier's address its URI's host name resolved to, RFC 3263: the Request-URI keeps the name); every
 * other request, and one whose connection has closed, goes where JAIN-SIP's default router sends it (top Route,
 * else the Request-URI).
 */
public final class FlowRouter implements Router {

    private final SipStack stack;
    private final DefaultRouter fallback;

    /** Called by JAIN-SIP with the stack and its outbound proxy (none here). */
    public FlowRouter(SipStack stack, String outboundProxy) {
        this.stack = stack;
        this.fallback = new DefaultRouter(stack, outboundProxy);
    }

    @Override
    public Hop getNextHop(Request request) throws SipException {
        Object data = ((MessageExt) request).getApplicationData();
        if (data instanceof Flow flow && isOpen(stack, flow)) {
            return new HopImpl(flow.remote().getAddress().getHostAddress(), flow.remote().getPort(), flow.transport());
        }
        if (data instanceof Hop aimed) {
            return aimed;
        }
        return fallback.getNextHop(request);
    }

    /** Whether the connection of {@code flow} is still open at one of {@code stack}'s TCP or TLS listeners. */
    public static boolean isOpen(SipStack stack, Flow flow) {
        for (Iterator<?> points = stack.getListeningPoints(); points.hasNext(); ) {
            if (((ListeningPointImpl) points.next()).getMessageProcessor() instanceof CappedTcpListener listener
                    && listener.getTransport().equalsIgnoreCase(flow.transport())
                    && listener.inboundFrom(flow.remote()) != null) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Hop getOutboundProxy() {
        return fallback.getOutboundProxy();
    }

    @Override
    @SuppressWarnings("deprecation")
    public ListIterator<?> getNextHops(Request request) {
        return fallback.getNextHops(request);
    }
}

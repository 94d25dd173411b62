package io.trunkgate.sip;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.stack.DefaultRouter;
import gov.nist.javax.sip.stack.HopImpl;
import io.trunkgate.dns.CarrierAddress;
import java.util.ListIterator;
import javax.sip.SipException;
import javax.sip.SipStack;
import javax.sip.address.Hop;
import javax.sip.address.Router;
import javax.sip.message.Request;

/**
 * JAIN-SIP's router (Route header, else Request-URI), except for a request {@link #aim aimed} at one address: a
 * request to a carrier keeps the carrier's URI, host name and all, as its Request-URI (RFC 3263 §4: the name is
 * resolved, not replaced) and goes to the address its name resolved to. The stack instantiates it by name
 * ({@code javax.sip.ROUTER_PATH}) and asks it for every request it sends.
 */
public final class AddressedRouter implements Router {

    private final DefaultRouter standard;

    public AddressedRouter(SipStack stack, String outboundProxy) {
        this.standard = new DefaultRouter(stack, outboundProxy);
    }

    /** Sends {@code request}, when the stack sends it, to {@code address} whatever its Request-URI says. */
    static void aim(Request request, CarrierAddress address) {
        ((SIPMessage) request).setApplicationData(new HopImpl(address.ip(), address.port(),
                address.transport().sipName()));
    }

    @Override
    public Hop getNextHop(Request request) throws SipException {
        return ((SIPMessage) request).getApplicationData() instanceof Hop aimed ? aimed : standard.getNextHop(request);
    }

    @Override
    public Hop getOutboundProxy() {
        return standard.getOutboundProxy();
    }

    /** Deprecated in JAIN-SIP 1.2 and not called by its stack; answered as the standard router does. */
    @Override
    @SuppressWarnings({"deprecation", "rawtypes"})
    public ListIterator getNextHops(Request request) {
        return standard.getNextHops(request);
    }
}

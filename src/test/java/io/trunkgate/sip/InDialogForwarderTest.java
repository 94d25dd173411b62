package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.metrics.GatewayMetrics;
import java.net.InetAddress;
import java.time.Clock;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;
import javax.sip.SipFactory;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.HeaderFactory;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the in-dialog forwarder relays, and where, without sockets: a dialog of the real {@link DialogTable}
 * opened from real javax.sip messages, and a stack of the test's own that knows the gateway's address.
 */
class InDialogForwarderTest {

    private static final String GATEWAY = "192.0.2.1";
    private static final String CALLER = "198.51.100.7";
    private static final String CARRIER = "192.0.2.10";
    private static final String STRANGER = "203.0.113.5";
    private static final String CALL_ID = "dialog-1";
    private static final String CALLER_TAG = "caller-tag";
    private static final String CALLEE_TAG = "callee-tag";

    private final SipMessages messages = new SipMessages();
    private final AddressFactory addresses = messages.addresses();
    private final HeaderFactory headers = messages.headers();
    private final MessageFactory messageFactory;
    private final DialogTable dialogs = new DialogTable(Duration.ofHours(1), Duration.ZERO, Duration.ofSeconds(32),
            10, () -> 0L, Clock.systemUTC(), (key, record) -> { });
    private final GatewayMetrics metrics = new GatewayMetrics("test-gw");
    private final OwnAddressStack stack = new OwnAddressStack();
    /** Nobody but the dialog's own ends speaks for them: no peer or carrier is configured. */
    private final ActiveConfig noParties =
            new ActiveConfig(new TestConfigs(TestConfigs.sharedRedis("in-dialog"), 5060).build(), 1);
    private final DialogParties parties = new DialogParties(() -> noParties,
            CarrierResolver.uncached(new DnsSettings(Optional.empty(), Duration.ofSeconds(1), Duration.ZERO)));
    private final InDialogForwarder forwarder = new InDialogForwarder(dialogs, messages, metrics, stack, parties);

    InDialogForwarderTest() throws Exception {
        messageFactory = SipFactory.getInstance().createMessageFactory();
    }

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void callersByeGoesToTheCalleesContactWithoutTheGatewaysRoute() throws Exception {
        answeredCall("UDP");
        InDialogForwarder.Relay relay = forwarder.route(
                request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070", own()), ip(CALLER), Optional.empty());
        assertNull(relay.refusal());
        assertEquals("sip:bob@" + CARRIER + ":5070", relay.routed().getRequestURI().toString());
        assertNull(relay.routed().getHeader(RouteHeader.NAME), "the gateway's own Route is taken off");
        assertEquals(CARRIER, relay.host());
        assertEquals("UDP", relay.transport());
    }

    @Test
    void calleesByeGoesToTheCaller() throws Exception {
        answeredCall("UDP");
        InDialogForwarder.Relay relay = forwarder.route(
                request(Request.BYE, CALLEE_TAG, CALLER_TAG, "sip:alice@" + CALLER + ":5060", own()), ip(CARRIER), Optional.empty());
        assertNull(relay.refusal());
        assertEquals(CALLER, relay.host());
        assertNull(relay.flow());
    }

    @Test
    void requestNamingOnlyTheGatewayGoesToTheOtherEndsTarget() throws Exception {
        answeredCall("UDP");
        InDialogForwarder.Relay relay = forwarder.route(
                request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:" + GATEWAY + ":5060"), ip(CALLER), Optional.empty());
        assertNull(relay.refusal());
        assertEquals("sip:bob@" + CARRIER + ":5070", relay.routed().getRequestURI().toString());
    }

    @Test
    void requestOfNoKnownDialogIsRefused481() throws Exception {
        answeredCall("UDP");
        assertRefused(RequestRefusal.UNKNOWN_DIALOG, 481, forwarder.route(
                request(Request.BYE, CALLER_TAG, "another-tag", "sip:bob@" + CARRIER + ":5070"), ip(CALLER), Optional.empty()));
        Request otherCall = request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070");
        otherCall.setHeader(headers.createCallIdHeader("another-call"));
        assertRefused(RequestRefusal.UNKNOWN_DIALOG, 481, forwarder.route(otherCall, ip(CALLER), Optional.empty()));
    }

    @Test
    void requestFromNeitherEndIsRefused() throws Exception {
        answeredCall("UDP");
        assertRefused(RequestRefusal.NOT_A_PARTY, 403, forwarder.route(
                request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070"), ip(STRANGER), Optional.empty()));
    }

    @Test
    void partyAimingAnywhereButTheOtherEndIsRefused403() throws Exception {
        answeredCall("UDP");
        assertRefused(RequestRefusal.ROUTE_NOT_ALLOWED, 403, forwarder.route(
                request(Request.INVITE, CALLER_TAG, CALLEE_TAG, "sip:+4420@" + STRANGER), ip(CALLER), Optional.empty()));
    }

    @Test
    void endedDialogLetsOnlyItsAckThrough() throws Exception {
        Dialog dialog = answeredCall("UDP");
        dialog.end();
        assertRefused(RequestRefusal.UNKNOWN_DIALOG, 481, forwarder.route(
                request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070"), ip(CALLER), Optional.empty()));
        assertNull(forwarder.route(request(Request.ACK, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070"),
                ip(CALLER), Optional.empty()).refusal(), "a 2xx retransmitted after the BYE still wants its ACK");
    }

    @Test
    void requestTowardsATcpCallerTakesItsConnectionWhileItIsOpen() throws Exception {
        answeredCall("TCP");
        Request bye = request(Request.BYE, CALLEE_TAG, CALLER_TAG, "sip:alice@" + CALLER + ":5060");
        InDialogForwarder.Relay open = forwarder.route(bye, ip(CARRIER), Optional.empty());
        assertEquals(new Flow(new java.net.InetSocketAddress(CALLER, 5060), "TCP"), open.flow());
        assertEquals("TCP", open.transport());

        stack.open = false;
        InDialogForwarder.Relay closed = forwarder.route(bye, ip(CARRIER), Optional.empty());
        assertNull(closed.flow(), "a closed connection: to the caller's Contact");
        assertEquals("UDP", closed.transport());

        stack.open = true;
        assertNull(forwarder.route(request(Request.BYE, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER + ":5070"),
                ip(CALLER), Optional.empty()).flow(), "towards the callee the caller's connection is not used");
    }

    @Test
    void ackOfNoKnownDialogIsAbsorbedAndNotSent() throws Exception {
        forwarder.forwardAck(request(Request.ACK, CALLER_TAG, "tgown-refusal", "sip:bob@" + CARRIER));
        forwarder.forwardAck(request(Request.ACK, CALLER_TAG, CALLEE_TAG, "sip:bob@" + CARRIER));
        assertTrue(stack.acks.isEmpty());
    }

    /** A call from the caller, answered by the carrier at {@link #CARRIER} (Contact on port 5070). */
    private Dialog answeredCall(String transport) throws Exception {
        Request invite = request(Request.INVITE, CALLER_TAG, null, "sip:+15551234@" + GATEWAY);
        invite.setHeader(headers.createViaHeader(CALLER, 5060, transport, "z9hG4bK-invite"));
        Dialog dialog = dialogs.open(invite, CallIdentity.of(invite), ip(CALLER), 5060, "peer-a");
        dialog.carrierAttempt("carrier-a", Hop.of(CARRIER, 5060), 1);
        Response ok = messageFactory.createResponse(Response.OK, invite);
        ((ToHeader) ok.getHeader(ToHeader.NAME)).setTag(CALLEE_TAG);
        ok.addHeader(headers.createContactHeader(address("sip:bob@" + CARRIER + ":5070")));
        ok.addHeader(headers.createRecordRouteHeader(address("sip:" + GATEWAY + ":5060;lr")));
        dialog.carrierResponse(ok, ip(CARRIER));
        return dialog;
    }

    private Request request(String method, String fromTag, String toTag, String requestUri, Address... routes)
            throws Exception {
        Request request = messageFactory.createRequest(addresses.createURI(requestUri), method,
                headers.createCallIdHeader(CALL_ID), headers.createCSeqHeader(2L, method),
                headers.createFromHeader(address("sip:from@" + CALLER), fromTag),
                headers.createToHeader(address("sip:to@" + CARRIER), toTag),
                List.of(headers.createViaHeader(CALLER, 5060, "UDP", "z9hG4bK-" + method + fromTag)),
                headers.createMaxForwardsHeader(70));
        request.addHeader(headers.createContactHeader(address("sip:alice@" + CALLER + ":5060")));
        for (Address route : routes) {
            request.addLast(headers.createRouteHeader(route));
        }
        return request;
    }

    private Address own() throws Exception {
        return address("sip:" + GATEWAY + ":5060;lr");
    }

    private Address address(String uri) throws Exception {
        return addresses.createAddress(addresses.createURI(uri));
    }

    private static InetAddress ip(String address) throws Exception {
        return InetAddress.getByName(address);
    }

    private static void assertRefused(RequestRefusal refusal, int status, InDialogForwarder.Relay relay) {
        assertEquals(refusal, relay.refusal());
        assertEquals(status, relay.refusal().status);
    }

    /** The gateway at {@link #GATEWAY}:5060; the caller's connection open while {@link #open}; ACKs recorded. */
    private static final class OwnAddressStack implements InDialogStack {
        boolean open = true;
        final List<InDialogForwarder.Relay> acks = new ArrayList<>();

        @Override
        public void popOwnRoutes(Request request) {
            while (request.getHeader(RouteHeader.NAME) instanceof RouteHeader top && isOwn(top.getAddress().getURI())) {
                request.removeFirst(RouteHeader.NAME);
            }
        }

        @Override
        public boolean isOwn(URI uri) {
            return uri instanceof SipURI sip && sip.getHost().equals(GATEWAY) && sip.getPort() == 5060;
        }

        @Override
        public boolean isOpen(Flow flow) {
            return open;
        }

        @Override
        public void sendAck(InDialogForwarder.Relay relay) {
            acks.add(relay);
        }

        @Override
        public void send(InDialogForwarder.Relay relay, InDialogForwarder.Forwarded forwarded) {
            throw new AssertionError("no request is forwarded in a transaction here");
        }

        @Override
        public boolean sendBye(Dialog dialog, boolean toCallee, Flow flow) {
            throw new AssertionError("no operator hangs up here");
        }
    }
}

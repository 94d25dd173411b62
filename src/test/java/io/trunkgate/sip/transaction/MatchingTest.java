package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which transaction a message belongs to (RFC 3261 §17.1.3, §17.2.3, §9.2), RFC 2543 requests included. */
// the manual loop is the thread that made the test instance: the test runs on it
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SAME_THREAD)
class MatchingTest {

    private final Harness h = new Harness();

    private static Request fromCaller(String method, String via, long cseq, String toTag) {
        return SipText.request(method, "sip:+15551234@192.0.2.5", via, cseq, toTag);
    }

    // ---- server transactions, RFC 3261 clients: branch, sent-by, method ----

    @Test
    void theSameBranchFromAnotherSentByIsAnotherTransaction() {
        h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bK-1", 1, null),
                SipText.CALLER_UDP);
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5062;branch=z9hG4bK-1", 1, null),
                SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0", "new INVITE @0", "new INVITE @0"), h.events);
    }

    @Test
    void theSameBranchAndSentByWithAnotherMethodIsAnotherTransaction() {
        h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("OPTIONS", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null),
                SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0", "new OPTIONS @0"), h.events);
    }

    @Test
    void aCopyMatchesByBranchAndSentByWhateverElseChanged() {
        h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 7, "x"),
                SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0"), h.events);
    }

    @Test
    void anAckWithTheInvitesBranchAcknowledgesItsNonTwoHundredFinalAndAnyOtherAckGoesToTheHandler() {
        Request invite = fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null);
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(486, invite, "own"));

        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-2", 1, "own"),
                SipText.CALLER_UDP);
        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bK-1", 1, "own"),
                SipText.CALLER_UDP);
        assertEquals(TransactionState.COMPLETED, server.state());
        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, "own"),
                SipText.CALLER_UDP);

        assertEquals(TransactionState.CONFIRMED, server.state());
        assertEquals(List.of("new INVITE @0", "ack @0", "ack @0"), h.events);
    }

    @Test
    void aCancelHasATransactionOfItsOwnAndNamesTheInviteWithItsBranchAndSentBy() {
        ServerTransaction invite = h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1,
                null), SipText.CALLER_UDP);
        Request cancel = fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null);

        ServerTransaction server = h.receive(cancel, SipText.CALLER_UDP);

        IncomingRequest incoming = h.incoming.get(1);
        assertEquals(Optional.of(invite), incoming.cancelled());
        assertTrue(server != invite && !server.isInvite());
        server.respond(SipText.response(200, cancel));
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null),
                SipText.CALLER_UDP);
        assertEquals(List.of("new INVITE @0", "new CANCEL @0"), h.events, "the CANCEL's copy is absorbed");
        assertEquals(List.of(0L, 0L), h.wire.timesOf(200));
        assertEquals(TransactionState.PROCEEDING, invite.state());
    }

    @Test
    void aCancelWithAnotherBranchOrSentByOrForAnInviteNobodyTookNamesNone() {
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-untaken", 1, null),
                SipText.CALLER_UDP);
        h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-2", 1, null),
                SipText.CALLER_UDP);
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bK-1", 1, null),
                SipText.CALLER_UDP);
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-untaken", 1, null),
                SipText.CALLER_UDP);

        assertEquals(Optional.empty(), h.incoming.get(2).cancelled());
        assertEquals(Optional.empty(), h.incoming.get(3).cancelled());
        assertEquals(Optional.empty(), h.incoming.get(4).cancelled());
        assertEquals(Optional.empty(), h.incoming.get(1).cancelled(), "only a CANCEL names an INVITE");
    }

    // ---- server transactions, RFC 2543 clients (no magic cookie) ----

    @Test
    void anRfc2543InviteCopyMatchesByRequestUriTagsCallIdCseqAndTopVia() {
        Request invite = fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 1, null);
        h.receive(invite, SipText.CALLER_UDP);

        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 1, null), SipText.CALLER_UDP);
        assertEquals(List.of("new INVITE @0"), h.events);

        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 2, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5062", 1, null), SipText.CALLER_UDP);
        h.layer.received(SipText.request("INVITE", "sip:other@192.0.2.5", "SIP/2.0/UDP 192.0.2.1:5060", 1, null),
                SipText.CALLER_UDP);
        assertEquals(4, h.incoming.size(), "another CSeq, Via or Request-URI is another transaction");
    }

    @Test
    void anRfc2543BranchWithoutTheCookieSaysNothing() {
        h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=1", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060;branch=1", 2, null), SipText.CALLER_UDP);

        assertEquals(2, h.incoming.size());
    }

    @Test
    void anRfc2543AckMatchesItsInviteWhenItCarriesTheFinalResponsesToTag() {
        Request invite = fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 1, null);
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(486, invite, "own"));

        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.1:5060", 1, "other"), SipText.CALLER_UDP);
        assertEquals(TransactionState.COMPLETED, server.state());
        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.1:5060", 1, "own"), SipText.CALLER_UDP);

        assertEquals(TransactionState.CONFIRMED, server.state());
        assertEquals(List.of("new INVITE @0", "ack @0"), h.events);
    }

    @Test
    void anRfc2543AckOfAReinviteMatchesWithTheDialogsToTag() {
        Request reinvite = fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 5, "dialog");
        ServerTransaction server = h.receive(reinvite, SipText.CALLER_UDP);
        server.respond(SipText.response(488, reinvite, "dialog"));

        h.layer.received(fromCaller("ACK", "SIP/2.0/UDP 192.0.2.1:5060", 5, "dialog"), SipText.CALLER_UDP);

        assertEquals(TransactionState.CONFIRMED, server.state());
    }

    @Test
    void anRfc2543CancelNamesTheInviteWithItsRequestUriTagsCallIdCseqNumberAndVia() {
        ServerTransaction invite = h.receive(fromCaller("INVITE", "SIP/2.0/UDP 192.0.2.1:5060", 1, null),
                SipText.CALLER_UDP);
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060", 1, null), SipText.CALLER_UDP);
        h.layer.received(fromCaller("CANCEL", "SIP/2.0/UDP 192.0.2.1:5060", 2, null), SipText.CALLER_UDP);

        assertEquals(Optional.of(invite), h.incoming.get(1).cancelled());
        assertEquals(Optional.empty(), h.incoming.get(2).cancelled());
    }

    // ---- client transactions: branch and CSeq method ----

    @Test
    void aResponseMatchesByItsBranchAndCseqMethodElseItIsAStray() {
        Request invite = SipText.invite("z9hG4bK-leg-1", "UDP");
        h.send(invite, SipText.CARRIER_UDP);

        h.carrierSends(SipText.response(180, SipText.invite("z9hG4bK-leg-2", "UDP")));
        Request byeWithTheInvitesBranch = SipText.request("BYE", "sip:x@192.0.2.10",
                "SIP/2.0/UDP 192.0.2.5:5060;branch=z9hG4bK-leg-1", 1, "t");
        h.carrierSends(SipText.response(200, byeWithTheInvitesBranch));
        h.carrierSends(SipText.response(180, invite));

        assertEquals(List.of("stray 180 @0", "stray 200 @0", "provisional 180 @0"), h.events);
    }

    @Test
    void aStrayResponseGoesToTheStrayHandlerAsItCame() {
        Response stray = SipText.response(200, SipText.invite("z9hG4bK-gone", "UDP"));
        h.carrierSends(stray);

        assertSame(stray, h.strays.get(0));
    }

    @Test
    void eachLoopHasItsOwnTable() {
        ManualLoop other = new ManualLoop();
        Harness two = new Harness(TransactionTimers.RFC, callId -> callId.startsWith("elsewhere") ? other : null);
        Request invite = SipText.invite("z9hG4bK-leg-1", "UDP");
        two.send(invite, SipText.CARRIER_UDP);
        Response sameBranchOtherCall = SipText.response(180, invite);
        try {
            sameBranchOtherCall.setHeader(javax.sip.SipFactory.getInstance().createHeaderFactory()
                    .createCallIdHeader("elsewhere-1"));
        } catch (Exception e) {
            throw new AssertionError(e);
        }

        two.carrierSends(sameBranchOtherCall);
        two.carrierSends(SipText.response(180, invite));

        assertEquals(List.of("stray 180 @0", "provisional 180 @0"), two.events);
    }

    // ---- the top Via as received (§18.2.1, RFC 3581) ----

    @Test
    void aReceivedRequestsViaIsMarkedWithWhereItCameFromAndResponsesGoThere() {
        Request invite = fromCaller("INVITE", "SIP/2.0/UDP 10.0.0.8:5060;rport;branch=z9hG4bK-nat", 1, null);
        Peer natted = Peer.of(io.trunkgate.config.Transport.UDP,
                new java.net.InetSocketAddress("203.0.113.9", 61000));

        ServerTransaction server = h.receive(invite, natted);
        server.respond(SipText.response(100, invite));

        javax.sip.header.ViaHeader via = (javax.sip.header.ViaHeader) invite.getHeader("Via");
        assertEquals("203.0.113.9", via.getReceived());
        assertEquals(61000, via.getRPort());
        assertEquals(natted, h.wire.last().to());
        h.loop.advance(Duration.ofSeconds(1));
    }
}

package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import io.trunkgate.records.CallRecord;
import io.trunkgate.sip.jainsip.JainSip;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;

/** The dialog table's lifetime rules, on a clock the test drives. */
class DialogTableTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final Duration MAX_CALL_LENGTH = Duration.ofHours(2);
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<String> endings = new ArrayList<>();
    private static final Duration LINGER = Duration.ofSeconds(5);
    private final List<String> endedKeys = new ArrayList<>();
    private final DialogTable table = new DialogTable(TIMEOUT, Duration.ZERO, LINGER, 2, now::get, Clock.systemUTC(),
            (key, record) -> endedKeys.add(key));
    private final DialogTable bounded = new DialogTable(TIMEOUT, MAX_CALL_LENGTH, LINGER, 10, now::get, Clock.systemUTC(),
            (key, record) -> endings.add(record.endedBy()));

    private static Request invite(String callId, String tag) throws Exception {
        String text = "INVITE sip:+1555@127.0.0.1:5060 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK" + callId + "\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:a@127.0.0.9>;tag=" + tag + "\r\nTo: <sip:+1555@127.0.0.1>\r\n"
                + "Call-ID: " + callId + "\r\nCSeq: 1 INVITE\r\nContact: <sip:a@127.0.0.9:5070>\r\n"
                + "Content-Length: 0\r\n\r\n";
        return JainSip.factory().createMessageFactory().createRequest(text);
    }

    private Dialog open(String callId, String tag) throws Exception {
        return open(table, callId, tag);
    }

    private static Dialog open(DialogTable into, String callId, String tag) throws Exception {
        Request invite = invite(callId, tag);
        return into.open(invite, CallIdentity.of(invite), InetAddress.getByName("127.0.0.9"), 5070, "peer");
    }

    @Test
    void aDialogIsFoundByCallIdAndCallerTagUntilItExpires() throws Exception {
        open("c1", "t1");
        assertTrue(table.find("c1", "t1").isPresent());
        assertFalse(table.find("c1", "other").isPresent(), "another From tag is another dialog");
        now.addAndGet(TIMEOUT.toNanos() + 1);
        assertFalse(table.find("c1", "t1").isPresent(), "an expired dialog relays nothing");
        assertEquals(1, table.size(), "kept until swept");
        table.sweep();
        assertEquals(0, table.size());
    }

    @Test
    void anAnsweredCallEndsUnderItsOwnIdentityAndOnlyALiveDialogHoldsItsCallIdAndTag() throws Exception {
        Dialog dialog = open("c12", "t12");
        assertTrue(table.live("c12", "t12"), "an INVITE outside it may not take its place");
        assertFalse(table.live("c12", "other"));
        dialog.confirm(record("c12"), "callee-tag");
        table.remove(dialog, "bye");
        assertEquals(List.of("c12\nt12\n1"), endedKeys, "the leases released are the call's: Call-ID, From tag, CSeq");
        assertFalse(table.live("c12", "t12"), "a dialog a BYE ended lingers for a late ACK, but is not live");
        assertTrue(table.find("c12", "t12").isPresent());
    }

    @Test
    void operatorsListAnAnsweredDialogUntilItEndsOrExpires() throws Exception {
        OperatorCalls operators = new OperatorCalls(new CallRegistry(now::get), table, null);
        Dialog ringing = open("c15", "t15");
        assertTrue(operators.list().isEmpty(), "a dialog not answered is listed as its INVITE, not here");
        ringing.confirm(record("c15"), "callee-tag");
        assertEquals(List.of("answered"), operators.list().stream().map(call -> call.phase()).toList());
        assertEquals(ringing.id(), operators.list().get(0).id());
        now.addAndGet(TIMEOUT.toNanos() + 1);
        assertTrue(operators.list().isEmpty(), "an expired dialog is not a call in progress, swept or not");

        Dialog ended = open("c16", "t16");
        ended.confirm(record("c16"), "callee-tag");
        table.remove(ended, "bye");
        assertTrue(operators.list().isEmpty(), "a dialog a BYE ended lingers, but is not listed");
    }

    @Test
    void relayingInADialogKeepsItAlive() throws Exception {
        Dialog dialog = open("c2", "t2");
        now.addAndGet(TIMEOUT.toNanos() - 1);
        table.touch(dialog, false);
        now.addAndGet(TIMEOUT.toNanos() - 1);
        table.sweep();
        assertTrue(table.find("c2", "t2").isPresent());
    }

    /** The carrier's 2xx, parsed from the text a carrier sends, with {@code sessionExpires} as its header line. */
    private static Response ok(String callId, String sessionExpires) throws Exception {
        String text = "SIP/2.0 200 OK\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK" + callId + "\r\n"
                + "From: <sip:a@127.0.0.9>;tag=t\r\nTo: <sip:+1555@127.0.0.1>;tag=callee\r\n"
                + "Call-ID: " + callId + "\r\nCSeq: 1 INVITE\r\nContact: <sip:carrier@127.0.0.20>\r\n"
                + (sessionExpires.isEmpty() ? "" : sessionExpires + "\r\n") + "Content-Length: 0\r\n\r\n";
        return JainSip.factory().createMessageFactory().createResponse(text);
    }

    @Test
    void theSessionIntervalIsReadFromTheFullAndTheCompactHeader() throws Exception {
        assertEquals(Optional.of(Duration.ofSeconds(1800)),
                SipMessages.sessionExpires(ok("s1", "Session-Expires: 1800;refresher=uac")));
        assertEquals(Optional.of(Duration.ofSeconds(90)), SipMessages.sessionExpires(ok("s2", "x: 90")));
        assertEquals(Optional.empty(), SipMessages.sessionExpires(ok("s3", "")), "no timer negotiated");
    }

    @Test
    void aNegotiatedSessionTimerEndsTheDialogWhenItIsNotRefreshed() throws Exception {
        Dialog dialog = open("c6", "t6");
        table.sessionRefreshed(dialog, SipMessages.sessionExpires(ok("c6", "Session-Expires: 90;refresher=uac")));
        table.touch(dialog, true);
        now.addAndGet(Duration.ofSeconds(60).toNanos());
        table.touch(dialog, false);
        now.addAndGet(Duration.ofSeconds(60).toNanos());
        assertTrue(table.find("c6", "t6").isPresent(), "within 90 s and the grace of 30 s (a third of it)");
        now.addAndGet(1);
        assertFalse(table.find("c6", "t6").isPresent(), "an INFO or a BYE attempt does not refresh a session timer");
    }

    @Test
    void eachRefreshRestartsTheSessionIntervalAndARefreshWithoutItTurnsTheTimerOff() throws Exception {
        Dialog dialog = open("c7", "t7");
        table.sessionRefreshed(dialog, Optional.of(Duration.ofSeconds(1800)));
        table.touch(dialog, true);
        for (int refresh = 0; refresh < 10; refresh++) {
            now.addAndGet(Duration.ofSeconds(900).toNanos());
            table.sessionRefreshed(dialog, Optional.of(Duration.ofSeconds(1800)));
        }
        assertTrue(table.find("c7", "t7").isPresent(), "refreshed at half the interval for 2.5 hours");
        table.sessionRefreshed(dialog, Optional.empty());
        now.addAndGet(TIMEOUT.toNanos() - 1);
        table.touch(dialog, false);
        now.addAndGet(TIMEOUT.toNanos() - 1);
        assertTrue(table.find("c7", "t7").isPresent(), "without a timer, relayed requests keep it alive again");
    }

    @Test
    void aDialogEndsAtTheMaximumCallLengthHoweverOftenItIsRefreshed() throws Exception {
        Dialog timed = open(bounded, "c8", "t8");
        timed.confirm(record("c8"), "callee-tag");
        Dialog idle = open(bounded, "c9", "t9");
        idle.confirm(record("c9"), "callee-tag");
        bounded.sessionRefreshed(timed, Optional.of(Duration.ofMinutes(30)));
        bounded.touch(timed, true);
        for (int minute = 0; minute < 119; minute++) {
            now.addAndGet(Duration.ofMinutes(1).toNanos());
            bounded.sessionRefreshed(timed, Optional.of(Duration.ofMinutes(30)));
            bounded.touch(idle, false);
        }
        bounded.sweep();
        assertTrue(bounded.find("c8", "t8").isPresent() && bounded.find("c9", "t9").isPresent(), "119 minutes");
        now.addAndGet(Duration.ofMinutes(1).toNanos() + 1);
        bounded.sweep();
        assertFalse(bounded.find("c8", "t8").isPresent());
        assertFalse(bounded.find("c9", "t9").isPresent());
        assertEquals(List.of("max_call_length", "max_call_length"), endings);
    }

    @Test
    void anExpiredSessionIsRecordedAsSuch() throws Exception {
        Dialog dialog = open(bounded, "c10", "t10");
        dialog.confirm(record("c10"), "callee-tag");
        bounded.sessionRefreshed(dialog, Optional.of(Duration.ofSeconds(90)));
        bounded.touch(dialog, true);
        now.addAndGet(Duration.ofSeconds(121).toNanos());
        bounded.sweep();
        assertEquals(List.of("session_expired"), endings);
    }

    @Test
    void anAnsweredDialogNobodyAcknowledgedEndsAfterTwiceTheCalleesRetransmissionsAndReleasesItsCall()
            throws Exception {
        Dialog unacknowledged = open(bounded, "c13", "t13");
        unacknowledged.confirm(record("c13"), "callee-tag");
        bounded.sessionRefreshed(unacknowledged, Optional.empty());
        Dialog acknowledged = open(bounded, "c14", "t14");
        acknowledged.confirm(record("c14"), "callee-tag");
        bounded.sessionRefreshed(acknowledged, Optional.empty());
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        bounded.touch(acknowledged, true);
        now.addAndGet(Duration.ofSeconds(63).toNanos() - 1);
        bounded.sweep();
        assertTrue(bounded.find("c13", "t13").isPresent(), "the callee's BYE after its 32 s of 2xx still passes");
        now.addAndGet(2);
        bounded.sweep();
        assertFalse(bounded.find("c13", "t13").isPresent());
        assertEquals(List.of("no_ack"), endings, "its leases released, its record written");
        now.addAndGet(TIMEOUT.toNanos() - Duration.ofSeconds(64).toNanos());
        bounded.sweep();
        assertTrue(bounded.find("c14", "t14").isPresent(), "the ACK gave it the whole dialog timeout");
    }

    private static CallRecord record(String callId) {
        Instant at = Instant.parse("2026-11-23T12:00:00Z");
        return new CallRecord(callId, "gw", CallRecord.Caller.at("127.0.0.9:5070", "t", 1L), "peer", null, "admitted",
                null, List.of(),
                List.of(), List.of(), List.of(), 0, at, at, null, 0L, at, null, 0, 200, null, null, null, null);
    }

    @Test
    void aDialogAByeEndedLetsALateAckFindItForTheLingerOnlyAndItsRecordIsWrittenOnce() throws Exception {
        Dialog dialog = open(bounded, "c11", "t11");
        dialog.confirm(record("c11"), "callee-tag");
        bounded.remove(dialog, "bye");
        bounded.remove(dialog, "bye");
        assertEquals(List.of("bye"), endings);
        assertTrue(dialog.takeAnsweredCall().isEmpty(), "the lingering dialog still holds its call record");
        now.addAndGet(LINGER.toNanos() - 1);
        assertTrue(bounded.find("c11", "t11").isPresent(), "an ACK just inside the linger finds no dialog");
        now.addAndGet(2);
        assertTrue(bounded.find("c11", "t11").isEmpty());
        bounded.sweep();
        assertEquals(0, bounded.size());
        assertEquals(List.of("bye"), endings);
    }

    @Test
    void theTableIsFullAtItsMaximumUntilADialogEnds() throws Exception {
        Dialog first = open("c3", "t3");
        assertFalse(table.full());
        open("c4", "t4");
        assertTrue(table.full());
        table.remove(first, "bye");
        assertFalse(table.full());
    }

    @Test
    void hostsCompareCanonically() {
        assertEquals(Hop.of("[::1]", 5060), Hop.of("0:0:0:0:0:0:0:1", 5060), "RFC 5118: one IPv6 address, two spellings");
        assertEquals(Hop.of("Carrier.Example.COM", 5060), Hop.of("carrier.example.com", 5060));
        assertNotEquals(Hop.of("127.0.0.1", 5060), Hop.of("127.0.0.1", 5061));
    }

    @Test
    void onlyTheCallersAddressIsTheCallersEnd() throws Exception {
        Dialog dialog = open("c5", "t5");
        assertTrue(dialog.isEnd(InetAddress.getByName("127.0.0.9"), true));
        assertFalse(dialog.isEnd(InetAddress.getByName("127.0.0.8"), true));
        assertFalse(dialog.isEnd(InetAddress.getByName("127.0.0.9"), false), "the caller is not the carrier's end");
        dialog.carrierAttempt("carrier-a", Hop.of("127.0.0.20", 5060), 1);
        assertTrue(dialog.isEnd(InetAddress.getByName("127.0.0.20"), false));
        assertTrue(dialog.mayRelayTo(Hop.of("127.0.0.20", 5060), true));
        assertFalse(dialog.mayRelayTo(Hop.of("127.0.0.21", 5060), true), "a caller's request goes only to the carrier");
        assertTrue(dialog.mayRelayTo(Hop.of("127.0.0.9", 5070), false), "the callee's goes back to the caller");
    }
}

package io.trunkgate.testing;

import io.trunkgate.testing.UdpInbox.Datagram;
import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * A carrier on a raw UDP socket that answers nothing by itself and records every datagram it gets, in the order it
 * got them: a transaction layer would absorb retransmissions, this shows each copy. The test answers a request
 * by hand ({@link #respond}), as a carrier that comes back late would.
 */
public final class RecordingCarrier implements AutoCloseable {

    private final UdpInbox inbox;

    private RecordingCarrier(UdpInbox inbox) {
        this.inbox = inbox;
    }

    public static RecordingCarrier start(String host) throws IOException {
        return new RecordingCarrier(UdpInbox.open(host, "recording-carrier"));
    }

    /** The carrier's URI for the gateway's configuration. */
    public String uri() {
        return "sip:" + inbox.host() + ":" + inbox.port() + ";transport=udp";
    }

    /** The requests with {@code method} in call {@code callId} received so far, in order. */
    public List<Datagram> requests(String method, String callId) {
        return inbox.received().stream().filter(d -> d.method().equals(method) && callId.equals(d.callId()))
                .toList();
    }

    /** Waits until {@code done} holds for the datagrams received, at most {@code timeoutMs}; says whether it did. */
    public boolean await(Predicate<List<Datagram>> done, long timeoutMs) throws InterruptedException {
        return inbox.await(done, timeoutMs);
    }

    /** Waits until {@code count} requests with {@code method} came in call {@code callId}; says whether they did. */
    public boolean awaitRequests(String method, String callId, int count, long timeoutMs)
            throws InterruptedException {
        return await(all -> all.stream().filter(d -> d.method().equals(method) && callId.equals(d.callId()))
                .count() >= count, timeoutMs);
    }

    /**
     * Answers {@code request} with {@code status}, to where it came from: its Via, From, Call-ID and CSeq copied (and
     * its Record-Route, in a provisional or 2xx), its To with {@code toTag}, and a Contact of this carrier's.
     */
    public void respond(Datagram request, int status, String reason, String toTag) throws IOException {
        StringBuilder response = new StringBuilder("SIP/2.0 ").append(status).append(' ').append(reason)
                .append("\r\n");
        for (String via : request.headers("Via")) {
            response.append("Via: ").append(via).append("\r\n");
        }
        if (status > 100 && status < 300) {
            // a UAS copies the Record-Route of a request that creates a dialog into its answers (RFC 3261 §12.1.1)
            for (String recordRoute : request.headers("Record-Route")) {
                response.append("Record-Route: ").append(recordRoute).append("\r\n");
            }
        }
        String to = request.header("To");
        response.append("From: ").append(request.header("From")).append("\r\n")
                .append("To: ").append(to.contains(";tag=") ? to : to + ";tag=" + toTag).append("\r\n")
                .append("Call-ID: ").append(request.callId()).append("\r\n")
                .append("CSeq: ").append(request.header("CSeq")).append("\r\n")
                .append("Contact: <sip:callee@").append(inbox.host()).append(':').append(inbox.port())
                .append(">\r\n")
                .append("Content-Length: 0\r\n\r\n");
        inbox.send(response.toString(), request.from());
    }

    @Override
    public void close() {
        inbox.close();
    }
}

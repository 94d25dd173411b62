package io.trunkgate.testing;

import io.trunkgate.testing.UdpInbox.Datagram;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A peer that writes its SIP by hand over UDP, as a hostile or an old (RFC 2543) peer would: every header is the
 * test's choice (Call-ID, From tag, CSeq, branch). It records every response it gets; a 2xx can be ACKed and its
 * call ended with a BYE along the Record-Route the gateway put in it.
 */
public final class RawSipPeer implements AutoCloseable {

    /** A response as received: its status and the headers the tests look at. */
    public record Answer(int status, String callId, String fromTag, String toTag, long cseq, String method,
                         List<String> recordRoutes, String contact, String text) {
    }

    private final UdpInbox inbox;
    private final InetSocketAddress gateway;

    public RawSipPeer(String host, String gatewayHost, int gatewayPort) throws IOException {
        this.inbox = UdpInbox.open(host, "raw-sip-peer");
        this.gateway = new InetSocketAddress(gatewayHost, gatewayPort);
    }

    public String host() {
        return inbox.host();
    }

    public int port() {
        return inbox.port();
    }

    /** An INVITE for {@code number} with the given identity; {@code branch} as written in the Via (any form). */
    public void invite(String number, String callId, String fromTag, long cseq, String branch) throws IOException {
        send("INVITE sip:" + number + "@" + gateway.getHostString() + ":" + gateway.getPort() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host() + ":" + port() + (branch == null ? "" : ";branch=" + branch) + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + host() + ">;tag=" + fromTag + "\r\n"
                + "To: <sip:" + number + "@" + gateway.getHostString() + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " INVITE\r\n"
                + "Contact: <sip:caller@" + host() + ":" + port() + ">\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    /** ACKs a 2xx and returns nothing; the ACK follows the answer's Record-Route to its Contact. */
    public void ack(Answer ok, String branch) throws IOException {
        send(inDialog("ACK", ok, ok.cseq(), branch));
    }

    /** A BYE in the dialog {@code ok} set up, with CSeq {@code cseq}. */
    public void bye(Answer ok, long cseq, String branch) throws IOException {
        send(inDialog("BYE", ok, cseq, branch));
    }

    private String inDialog(String method, Answer ok, long cseq, String branch) {
        StringBuilder routes = new StringBuilder();
        // The caller's route set is the Record-Route of the 2xx in order (RFC 3261 §12.1.2).
        for (String route : ok.recordRoutes()) {
            routes.append("Route: ").append(route).append("\r\n");
        }
        return method + " " + ok.contact() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host() + ":" + port() + ";branch=" + branch + "\r\n"
                + routes
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + host() + ">;tag=" + ok.fromTag() + "\r\n"
                + "To: <sip:callee@" + gateway.getHostString() + ">;tag=" + ok.toTag() + "\r\n"
                + "Call-ID: " + ok.callId() + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    public void send(String message) throws IOException {
        inbox.send(message, gateway);
    }

    /** The responses received so far. */
    public List<Answer> answers() {
        return answers(inbox.received());
    }

    private static List<Answer> answers(List<Datagram> received) {
        return received.stream().filter(d -> d.status() > 0).map(RawSipPeer::answer).toList();
    }

    /** Waits until a response matching {@code wanted} has come, at most {@code timeoutMs}. */
    public Optional<Answer> await(Predicate<Answer> wanted, long timeoutMs) throws InterruptedException {
        inbox.await(all -> answers(all).stream().anyMatch(wanted), timeoutMs);
        return answers().stream().filter(wanted).findFirst();
    }

    /** Waits until {@code done} holds for the responses received, at most {@code timeoutMs}; says whether it did. */
    public boolean awaitAll(Predicate<List<Answer>> done, long timeoutMs) throws InterruptedException {
        return inbox.await(all -> done.test(answers(all)), timeoutMs);
    }

    private static Answer answer(Datagram response) {
        String[] cseq = response.header("CSeq").split("\\s+");
        List<String> recordRoutes = new ArrayList<>();
        for (String value : response.headers("Record-Route")) {
            for (String route : value.split(",")) {
                recordRoutes.add(route.trim());
            }
        }
        String contact = response.header("Contact");
        return new Answer(response.status(), response.callId(), tag(response.header("From")),
                tag(response.header("To")), Long.parseLong(cseq[0]), cseq[1], recordRoutes,
                contact == null ? null : contact.replaceAll("^.*<", "").replaceAll(">.*$", ""), response.text());
    }

    private static String tag(String value) {
        int at = value == null ? -1 : value.indexOf(";tag=");
        if (at < 0) {
            return null;
        }
        String rest = value.substring(at + 5);
        int end = rest.indexOf(';');
        return end < 0 ? rest : rest.substring(0, end);
    }

    @Override
    public void close() {
        inbox.close();
    }
}

package io.trunkgate.sip.wire;

import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.throttle.ThrottledLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Sheds new calls before they cost anything: a new INVITE (no To tag) the {@link NewCallGate} refuses is answered
 * 503 from its raw bytes, on the SIP loop that read it, before it waits for its call's loop or JAIN-SIP parses
 * it; the caller's ACK of that 503 is absorbed the same way. Parsing an INVITE and creating its transaction is a
 * large share of a whole call's cost, so shedding after the parse would make a gateway offered several times its
 * capacity spend its cores refusing calls. Everything else, and anything these
 * few header reads cannot make sense of, goes on to the stack unchanged.
 */
public final class NewCallTriage {

    /** The To tag of every 503 sent here, so that its ACK is recognised without any state. */
    static final String SHED_TAG_PREFIX = "tgshed";
    private static final int RETRY_AFTER_SECONDS = 1;
    private static final byte[] CRLF = {'\r', '\n'};
    /** Answers not sent: peers decide how many, so throttled. */
    private static final ThrottledLog LOG = new ThrottledLog(LoggerFactory.getLogger(NewCallTriage.class), 10,
            Duration.ofSeconds(1));

    private volatile NewCallGate gate;
    private final AtomicLong acksAbsorbed = new AtomicLong();

    /** Where answers are sent: back to the source of the datagram, or on the connection the request came on. */
    @FunctionalInterface
    public interface Answerer {
        void send(byte[] answer) throws IOException;
    }

    /** From now on new INVITEs are put to {@code gate}; until then every message goes on to the stack. */
    public void deliverTo(NewCallGate gate) {
        this.gate = gate;
    }

    /** ACKs of those 503s absorbed here so far. */
    public long acksAbsorbed() {
        return acksAbsorbed.get();
    }

    /**
     * Whether the message {@code head} was read from was dealt with here (answered, or an ACK of such an answer
     * absorbed), so the stack must not see it.
     */
    public boolean handled(SipHead head, InetSocketAddress source, Optional<PresentedCertificate> certificate,
                           Supplier<Duration> waitAhead, Answerer answerer) {
        NewCallGate current = gate;
        if (current == null) {
            return false;
        }
        if (head.isRequest("ACK")) {
            String tag = head.toTag();
            if (tag == null || !tag.startsWith(SHED_TAG_PREFIX)) {
                return false;
            }
            acksAbsorbed.incrementAndGet();
            return true;
        }
        if (!head.isNewInvite() || !head.answerable()) {
            return false;
        }
        // answerable: the From header is there, so its tag is "" at worst
        Optional<String> reason = current.shed(source.getAddress(), certificate, head.callId(), head.fromTag(),
                head.cseq(), waitAhead.get());
        if (reason.isEmpty()) {
            return false;
        }
        try {
            answerer.send(serviceUnavailable(head, reason.get()));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "503 to a shed INVITE from " + source + " not sent", e);
        }
        return true;
    }

    /** A 503 with the request's Via, From, To (tagged), Call-ID and CSeq lines, a Reason and a Retry-After. */
    static byte[] serviceUnavailable(SipHead request, String reason) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        out.writeBytes("SIP/2.0 503 Service Unavailable\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] tag = (";tag=" + SHED_TAG_PREFIX + AnswerTags.next())
                .getBytes(StandardCharsets.US_ASCII);
        request.forEachAnswerLine((data, start, end, to) -> {
            out.write(data, start, end - start);
            if (to) {
                out.writeBytes(tag);
            }
            out.writeBytes(CRLF);
        });
        String tail = "Reason: SIP;cause=503;text=\"" + reason.replace("\"", "") + "\"\r\n"
                + "Retry-After: " + RETRY_AFTER_SECONDS + "\r\n"
                + "Content-Length: 0\r\n\r\n";
        out.writeBytes(tail.getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }
}

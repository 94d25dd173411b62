package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.CallID;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.RequestLine;
import gov.nist.javax.sip.header.StatusLine;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import io.trunkgate.sip.wire.BadRequestAnswer;
import io.trunkgate.throttle.SourceAnswerBudget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.Optional;
import java.util.Set;
import java.time.Duration;
import java.util.regex.Pattern;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.throttle.ThrottledLog;
import javax.sip.message.Message;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Parses what a transport received, on the call's loop, and keeps what is broken away from the proxy: a request that
 * cannot be parsed or whose CSeq names another method is answered with a plain {@link BadRequestAnswer} (at most
 * {@value #ANSWERS_PER_SECOND} a second to one source address) or dropped, a message without the headers every
 * SIP message has is dropped, and each costs one throttled log line.
 */
public final class ReceivedMessageParser {

    /** What is said about messages refused: peers decide how much, so throttled. */
    private static final ThrottledLog LOG = new ThrottledLog(
            LoggerFactory.getLogger(ReceivedMessageParser.class.getPackageName()), 10, Duration.ofSeconds(1));

    /** Answers to broken requests one source gets a second, as many as an unknown source gets to its INVITEs. */
    private static final int ANSWERS_PER_SECOND = 5;
    private static final int MAX_TRACKED_SOURCES = 100_000;
    private static final String MAGIC_COOKIE = "z9hG4bK";
    /** The reason phrase of the 400 to a request without RFC 3261's branch (an RFC 2543 peer). */
    static final String RFC_2543_REASON = "RFC 3261 branch required (z9hG4bK)";
    private static final Pattern CHAR_ARRAY_PREFIX = Pattern.compile("^\\[C@\\p{XDigit}+\\s*");

    /**
     * A header the proxy cannot do without makes the message unparseable; any other bad header is kept unparsed
     * and the message goes on, the rule JAIN-SIP applies to UDP. (Its TCP channel closes the connection instead.)
     */
    private static final Set<Class<?>> ESSENTIAL_HEADERS = Set.of(From.class, To.class, CSeq.class, Via.class,
            CallID.class, ContentLength.class, RequestLine.class, StatusLine.class);
    private static final ParseExceptionListener KEEP_UNPARSED_UNLESS_ESSENTIAL =
            (ex, message, headerClass, header, text) -> {
                if (headerClass == null || !ESSENTIAL_HEADERS.contains(headerClass)) {
                    message.addUnparsed(header);
                } else {
                    throw ex;
                }
            };

    /** Sends an answer back the way the message came. */
    public interface Reply {
        void send(byte[] answer) throws IOException;
    }

    private final MessageParser parser = new LeanMsgParser();
    private final SourceAnswerBudget answerBudget = new SourceAnswerBudget(ANSWERS_PER_SECOND, MAX_TRACKED_SOURCES, System::nanoTime);

    /**
     * The message {@code raw} holds, as received from {@code source} at {@code local} over {@code transport} (on a
     * TLS connection whose peer presented {@code certificate}, if any; {@link JainSip#callerCertificate}), or null
     * when there is none for the proxy: refused, dropped, or a keep-alive.
     */
    public Message parse(byte[] raw, InetSocketAddress source, InetSocketAddress local, String transport,
                         Optional<PresentedCertificate> certificate, Reply reply) {
        SIPMessage message = parse(raw, source, transport, reply);
        if (message != null) {
            message.setRemoteAddress(source.getAddress());
            message.setRemotePort(source.getPort());
            message.setLocalAddress(local.getAddress());
            message.setLocalPort(local.getPort());
            certificate.ifPresent(message::setApplicationData);
        }
        return message;
    }

    private SIPMessage parse(byte[] raw, InetSocketAddress source, String transport, Reply reply) {
        SIPMessage message;
        try {
            message = parser.parseSIPMessage(raw, true, false, KEEP_UNPARSED_UNLESS_ESSENTIAL);
        } catch (ParseException e) {
            refuse(raw, source, transport, parserMessage(e), reply);
            return null;
        }
        if (message == null) {
            return null;
        }
        if (message.getFrom() == null || message.getTo() == null || message.getCallId() == null
                || message.getCSeq() == null || message.getViaHeaders() == null || message.getViaHeaders().isEmpty()) {
            LOG.log(Level.INFO, "SIP message from " + describe(source, transport)
                    + " dropped: it lacks From, To, Call-ID, CSeq or Via");
            return null;
        }
        if (message instanceof SIPRequest request
                && !request.getMethod().equalsIgnoreCase(request.getCSeq().getMethod())) {
            refuse(raw, source, transport, "CSeq method differs from the request's", reply);
            return null;
        }
        if (message instanceof SIPRequest request && !hasRfc3261Branch(request)) {
            // JAIN-SIP matches such a request (RFC 2543: no magic cookie) against every transaction it holds,
            // and fails on those it has finished with; an answer that says why beats no answer.
            refuse(raw, source, transport, RFC_2543_REASON, RFC_2543_REASON, reply);
            return null;
        }
        if (message instanceof SIPRequest request) {
            keepSipVersion(request, raw);
        }
        return message;
    }

    /** Whether the top Via's branch carries RFC 3261's magic cookie, which transactions are matched by (§17.2.3). */
    private static boolean hasRfc3261Branch(SIPRequest request) {
        String branch = request.getTopmostVia().getBranch();
        return branch != null && branch.regionMatches(true, 0, MAGIC_COOKIE, 0, MAGIC_COOKIE.length());
    }

    /**
     * JAIN-SIP's parser reads any version on the request line as SIP/2.0; the proxy must answer another one
     * 505 (RFC 3261 §8.2.2), so the version written is put back on the request line for it to see.
     */
    private static void keepSipVersion(SIPRequest request, byte[] raw) {
        int end = 0;
        while (end < raw.length && raw[end] != '\r' && raw[end] != '\n') {
            end++;
        }
        String firstLine = new String(raw, 0, end, java.nio.charset.StandardCharsets.ISO_8859_1).trim();
        String version = firstLine.substring(firstLine.lastIndexOf(' ') + 1);
        if (!version.equalsIgnoreCase("SIP/2.0")) {
            request.getRequestLine().setSipVersion(version);
        }
    }

    /**
     * The parser's complaint without the "[C@1f8344ce" JAIN-SIP's lexer prefixes it with (a char array printed as
     * an object), so that the log line says what was wrong.
     */
    static String parserMessage(ParseException e) {
        String message = String.valueOf(e.getMessage());
        return CHAR_ARRAY_PREFIX.matcher(message).replaceFirst("");
    }

    /** Answers {@code raw} with a 400 if it is a request that can have one and its source has answers left. */
    private void refuse(byte[] raw, InetSocketAddress source, String transport, String reason, Reply reply) {
        refuse(raw, source, transport, reason, BadRequestAnswer.PHRASE, reply);
    }

    /** As above, with {@code phrase} as the 400's reason phrase. */
    private void refuse(byte[] raw, InetSocketAddress source, String transport, String reason, String phrase,
                        Reply reply) {
        Optional<byte[]> answer = BadRequestAnswer.to(raw, phrase);
        String outcome;
        if (answer.isEmpty()) {
            outcome = "dropped";
        } else if (!answerBudget.allow(source.getAddress())) {
            outcome = "dropped (over " + ANSWERS_PER_SECOND + " answers a second)";
        } else {
            try {
                reply.send(answer.get());
                outcome = "answered 400";
            } catch (IOException e) {
                outcome = "400 not sent (" + e.getMessage() + ")";
            }
        }
        LOG.log(Level.INFO,
                "malformed SIP from " + describe(source, transport) + " " + outcome + ": " + reason);
    }

    private static String describe(InetSocketAddress source, String transport) {
        return source.getAddress().getHostAddress() + ":" + source.getPort() + "/" + transport;
    }
}

package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.header.ExtensionHeaderImpl;
import gov.nist.javax.sip.SIPConstants;
import gov.nist.javax.sip.header.NameMap;
import gov.nist.javax.sip.header.RequestLine;
import gov.nist.javax.sip.header.StatusLine;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.CallID;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.MaxForwards;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.CSeqParser;
import gov.nist.javax.sip.parser.CallIDParser;
import gov.nist.javax.sip.parser.ContactParser;
import gov.nist.javax.sip.parser.ContentLengthParser;
import gov.nist.javax.sip.parser.ContentTypeParser;
import gov.nist.javax.sip.parser.FromParser;
import gov.nist.javax.sip.parser.HeaderParser;
import gov.nist.javax.sip.parser.Lexer;
import gov.nist.javax.sip.parser.MaxForwardsParser;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.ParserFactory;
import gov.nist.javax.sip.parser.RecordRouteParser;
import gov.nist.javax.sip.parser.RequestLineParser;
import gov.nist.javax.sip.parser.StatusLineParser;
import gov.nist.javax.sip.parser.RouteParser;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.parser.SubjectParser;
import gov.nist.javax.sip.parser.ToParser;
import gov.nist.javax.sip.parser.ViaParser;
import io.trunkgate.sip.jainsip.LeanHeaderReader.Kind;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * JAIN-SIP's message parser, parsing as it does with fewer copies of each header line. JAIN-SIP makes a string of
 * each line, then another with a line feed added for the header's parser; {@link ParserFactory#createParser} then
 * cuts the line into a name and a whole value (the value only to check that it is there) and builds the parser by
 * reflection: together about a tenth of what parsing a message allocates. Here a header line becomes one string
 * with its line feed, and the headers every message of a call has get their JAIN-SIP parser directly, the one the
 * factory's table gives them; any other header goes through the factory. Via and the address headers, in their
 * common forms, are read by {@link LeanHeaderReader} into the objects those parsers would make, in one pass and
 * with only the strings kept. What is parsed, and how a header that fails is handled, is JAIN-SIP's unchanged. The
 * messages it makes are {@link LeanRequest}s and {@link LeanResponse}s, which encode for the wire with fewer copies.
 *
 * <p>Two things are refused in a request that JAIN-SIP lets through, as RFC 4475 asks: a header that takes one
 * value written more than once (From, To, Call-ID, CSeq, Max-Forwards, Content-Length: JAIN-SIP keeps one and drops
 * the other, so the proxy and the next hop could each read a different one; §3.1.2.18 and §3.1.2.11), and a From or
 * To whose display name is neither tokens nor a quoted string (§3.1.2.16). Each is a ParseException, answered 400.
 */
final class LeanMsgParser extends StringMsgParser {

    /**
     * A header name (as JAIN-SIP's factory table has it, full or compact), the parser the table gives it, and how
     * {@link LeanHeaderReader} reads it (null: it does not).
     */
    record Known(String name, Function<String, HeaderParser> parser, LeanHeaderReader.Kind lean) {
        Known(String name, Function<String, HeaderParser> parser) {
            this(name, parser, null);
        }
    }

    /** The factory's parsers of the headers of a call (JAIN-SIP 1.3.0-91's ParserFactory table). */
    static final List<Known> KNOWN = List.of(
            new Known("Via", ViaParser::new, Kind.VIA), new Known("v", ViaParser::new, Kind.VIA),
            new Known("From", FromParser::new, Kind.FROM), new Known("f", FromParser::new, Kind.FROM),
            new Known("To", ToParser::new, Kind.TO), new Known("t", ToParser::new, Kind.TO),
            new Known("Call-ID", CallIDParser::new), new Known("i", CallIDParser::new),
            new Known("CSeq", CSeqParser::new),
            new Known("Contact", ContactParser::new, Kind.CONTACT), new Known("m", ContactParser::new, Kind.CONTACT),
            new Known("Max-Forwards", MaxForwardsParser::new),
            new Known("Content-Length", ContentLengthParser::new), new Known("l", ContentLengthParser::new),
            new Known("Content-Type", ContentTypeParser::new), new Known("c", ContentTypeParser::new),
            new Known("Route", RouteParser::new, Kind.ROUTE),
            new Known("Record-Route", RecordRouteParser::new, Kind.RECORD_ROUTE),
            new Known("Subject", SubjectParser::new), new Known("s", SubjectParser::new));
    private static final Known[] TABLE = KNOWN.toArray(Known[]::new);

    /** Header lines up to this long are copied here with their line feed, to become one string. */
    private static final int SCRATCH_BYTES = 2048;
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

    /**
     * JAIN-SIP's {@code parseSIPMessage}, line by line as it reads a message (control characters skipped at the
     * start, a line's trailing blanks trimmed, continuation lines joined, a header left buffered when the buffer
     * ends without an empty line is dropped), the body as it reads it. Only the strings differ: JAIN-SIP makes one
     * of each line and another of it with a line feed added for the header's parser; here a header line becomes
     * that second string alone.
     */
    @Override
    public SIPMessage parseSIPMessage(byte[] msgBuffer, boolean readBody, boolean strict,
                                      ParseExceptionListener listener) throws ParseException {
        if (msgBuffer == null || msgBuffer.length == 0) {
            return null;
        }
        int i = 0;
        while (i < msgBuffer.length && msgBuffer[i] < 0x20) {
            i++;
        }
        if (i == msgBuffer.length) {
            return null;
        }
        SIPMessage message = null;
        boolean firstLine = true;
        int headerStart = -1;
        int headerEnd = -1;
        String joined = null;
        int[] singleValuedSeen = {0};
        boolean empty;
        do {
            int lineStart = i;
            while (i < msgBuffer.length && msgBuffer[i] != '\r' && msgBuffer[i] != '\n') {
                i++;
            }
            if (i == msgBuffer.length) {
                break;
            }
            int lineEnd = trimmedEnd(msgBuffer, lineStart, i);
            empty = lineEnd == lineStart;
            if (empty) {
                if (message != null && (joined != null || headerStart >= 0)) {
                    header(msgBuffer, headerStart, headerEnd, joined, message, listener, singleValuedSeen);
                }
            } else if (firstLine) {
                message = processFirstLine(new String(msgBuffer, lineStart, lineEnd - lineStart,
                        StandardCharsets.UTF_8), listener, msgBuffer);
            } else if (msgBuffer[lineStart] == '\t' || msgBuffer[lineStart] == ' ') {
                if (joined == null && headerStart < 0) {
                    throw new ParseException("Bad header continuation.", 0);
                }
                if (joined == null) {
                    joined = new String(msgBuffer, headerStart, headerEnd - headerStart, StandardCharsets.UTF_8);
                }
                joined += new String(msgBuffer, lineStart, lineEnd - lineStart, StandardCharsets.UTF_8).substring(1);
            } else {
                if (message != null && (joined != null || headerStart >= 0)) {
                    header(msgBuffer, headerStart, headerEnd, joined, message, listener, singleValuedSeen);
                }
                headerStart = lineStart;
                headerEnd = lineEnd;
                joined = null;
            }
            if (msgBuffer[i] == '\r' && msgBuffer.length > i + 1 && msgBuffer[i + 1] == '\n') {
                i++;
            }
            i++;
            firstLine = false;
        } while (!empty);
        if (message == null) {
            throw new ParseException("Bad message", 0);
        }
        message.setSize(i);
        if (readBody && message.getContentLength() != null) {
            int declared = message.getContentLength().getContentLength();
            if (declared != 0) {
                byte[] body = Arrays.copyOfRange(msgBuffer, i, msgBuffer.length);
                message.setMessageContent(body, !strict, computeContentLengthFromMessage, declared);
            } else if (!computeContentLengthFromMessage && strict
                    && !"\r\n\r\n".equals(new String(msgBuffer, msgBuffer.length - 4, 4))) {
                throw new ParseException("Extraneous characters at the end of the message ", i);
            }
        }
        return message;
    }

    /**
     * JAIN-SIP's {@code processFirstLine}, making a {@link LeanRequest} or {@link LeanResponse}: the message and
     * every copy made of it to forward encode themselves with fewer copies.
     */
    @Override
    protected SIPMessage processFirstLine(String firstLine, ParseExceptionListener listener, byte[] msgBuffer)
            throws ParseException {
        if (!firstLine.startsWith(SIPConstants.SIP_VERSION_STRING)) {
            LeanRequest request = new LeanRequest();
            try {
                request.setRequestLine(new RequestLineParser(firstLine + "\n").parse());
            } catch (ParseException e) {
                if (listener == null) {
                    throw e;
                }
                listener.handleException(e, request, RequestLine.class, firstLine,
                        new String(msgBuffer, StandardCharsets.UTF_8));
            }
            return request;
        }
        LeanResponse response = new LeanResponse();
        try {
            response.setStatusLine(new StatusLineParser(firstLine + "\n").parse());
        } catch (ParseException e) {
            if (listener == null) {
                throw e;
            }
            listener.handleException(e, response, StatusLine.class, firstLine,
                    new String(msgBuffer, StandardCharsets.UTF_8));
        }
        return response;
    }

    /** Where {@code [start, end)} ends without its trailing blanks and control characters (as JAIN-SIP trims). */
    private static int trimmedEnd(byte[] bytes, int start, int end) {
        while (end > start && bytes[end - 1] >= 0 && bytes[end - 1] <= ' ') {
            end--;
        }
        return end;
    }

    /** Parses the header {@code joined}, or else {@code bytes[start, end)}, as one string with its line feed. */
    private void header(byte[] bytes, int start, int end, String joined, SIPMessage message,
                        ParseExceptionListener listener, int[] singleValuedSeen) throws ParseException {
        String line;
        if (joined != null) {
            line = joined + "\n";
        } else if (end - start < SCRATCH_BYTES) {
            byte[] scratch = SCRATCH.get();
            System.arraycopy(bytes, start, scratch, 0, end - start);
            scratch[end - start] = '\n';
            line = new String(scratch, 0, end - start + 1, StandardCharsets.UTF_8);
        } else {
            line = new String(bytes, start, end - start, StandardCharsets.UTF_8) + "\n";
        }
        parseHeader(line, message, listener, bytes, singleValuedSeen);
    }

    /**
     * JAIN-SIP's {@code processHeader} on {@code line}, a header and its line feed; a header {@link LeanHeaderReader}
     * reads is read there, into what JAIN-SIP's parser would make of it. {@code singleValuedSeen}: a bit for each
     * single-valued header the request had so far (the message cannot tell: it has a Content-Length from the start).
     */
    private static void parseHeader(String line, SIPMessage message, ParseExceptionListener listener,
                                    byte[] rawMessage, int[] singleValuedSeen) throws ParseException {
        Known known = known(line);
        SIPHeader read = known == null || known.lean() == null || line.charAt(0) <= ' ' ? null
                : LeanHeaderReader.read(known.lean(), line, known.name().length());
        boolean request = message instanceof SIPRequest;
        if (request && read == null && known != null && (known.lean() == Kind.FROM || known.lean() == Kind.TO)
                && !LeanHeaderReader.displayNameWellFormed(line)) {
            throw new ParseException("a display name neither tokens nor a quoted string: "
                    + withoutLineFeed(line).trim(), 0);
        }
        HeaderParser headerParser = null;
        if (read == null) {
            try {
                headerParser = known != null ? known.parser().apply(line) : ParserFactory.createParser(line);
            } catch (ParseException e) {
                if (listener == null) {
                    throw e;
                }
                listener.handleException(e, message, null, withoutLineFeed(line), null);
                return;
            }
        }
        SIPHeader sipHeader;
        try {
            sipHeader = read != null ? read : headerParser.parse();
        } catch (ParseException e) {
            handle(e, line, message, listener, rawMessage);
            return;
        }
        int bit = request ? singleValuedBit(sipHeader) : 0;
        if ((singleValuedSeen[0] & bit) != 0) {
            throw new ParseException("several values in the single-value header " + sipHeader.getName(), 0);
        }
        singleValuedSeen[0] |= bit;
        try {
            message.attachHeader(sipHeader, false);
        } catch (ParseException e) {
            handle(e, line, message, listener, rawMessage);
        }
    }

    private static void handle(ParseException e, String line, SIPMessage message, ParseExceptionListener listener,
                               byte[] rawMessage) throws ParseException {
        if (listener != null) {
            String header = withoutLineFeed(line);
            Class<?> headerClass = NameMap.getClassFromName(Lexer.getHeaderName(header));
            listener.handleException(e, message, headerClass == null ? ExtensionHeaderImpl.class : headerClass,
                    header, new String(rawMessage, StandardCharsets.UTF_8));
        }
    }

    /** A bit of its own for each header that takes one value, 0 for any other. */
    private static int singleValuedBit(SIPHeader header) {
        return header instanceof From ? 1 : header instanceof To ? 2 : header instanceof CallID ? 4
                : header instanceof CSeq ? 8 : header instanceof MaxForwards ? 16 : header instanceof ContentLength ? 32
                : 0;
    }

    private static String withoutLineFeed(String line) {
        return line.substring(0, line.length() - 1);
    }

    /**
     * The parser {@link ParserFactory#createParser} gives {@code line}: for a name of {@link #KNOWN} (its case
     * ignored, blanks around it as the factory trims them) that parser, otherwise the factory's answer.
     */
    static HeaderParser parserFor(String line) throws ParseException {
        Known known = known(line);
        return known != null ? known.parser().apply(line) : ParserFactory.createParser(line);
    }

    /** The entry of {@link #KNOWN} naming {@code line}'s header (its case ignored, blanks around it), or null. */
    private static Known known(String line) {
        int colon = line.indexOf(':');
        if (colon >= 1) {
            int start = 0;
            int end = colon;
            while (start < end && line.charAt(start) <= ' ') {
                start++;
            }
            while (end > start && line.charAt(end - 1) <= ' ') {
                end--;
            }
            for (Known known : TABLE) {
                if (named(line, start, end, known.name())) {
                    return known;
                }
            }
        }
        return null;
    }

    /** Whether {@code line[start, end)} is {@code name}, ASCII letters in any case (the factory lower-cases). */
    private static boolean named(String line, int start, int end, String name) {
        if (name.length() != end - start) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = line.charAt(start + i);
            char n = name.charAt(i);
            if (c != n && (c >= 0x80 || Character.toLowerCase(c) != Character.toLowerCase(n))) {
                return false;
            }
        }
        return true;
    }
}

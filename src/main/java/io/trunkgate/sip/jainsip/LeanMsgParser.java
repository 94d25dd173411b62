package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.header.ExtensionHeaderImpl;
import gov.nist.javax.sip.header.NameMap;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.message.SIPMessage;
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
import gov.nist.javax.sip.parser.RouteParser;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.parser.SubjectParser;
import gov.nist.javax.sip.parser.ToParser;
import gov.nist.javax.sip.parser.ViaParser;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.List;
import java.util.function.Function;

/**
 * JAIN-SIP's message parser with the parser of each header of a call chosen without allocating:
 * {@link ParserFactory#createParser} cuts every header line into a name and a whole value (the value only to
 * check that it is there) and builds the parser by reflection, which together cost about as much as a tenth of
 * what parsing a message allocates. The headers every message of a call has get their JAIN-SIP parser directly,
 * the same one the factory picks; any other header goes through the factory as before. What is parsed, and how
 * a header that fails is handled, is JAIN-SIP's {@code processHeader} unchanged.
 */
final class LeanMsgParser extends StringMsgParser {

    /** A header name (as JAIN-SIP's factory table has it, full or compact) and the parser the table gives it. */
    record Known(String name, Function<String, HeaderParser> parser) {
    }

    /** The factory's parsers of the headers of a call (JAIN-SIP 1.3.0-91's ParserFactory table). */
    static final List<Known> KNOWN = List.of(
            new Known("Via", ViaParser::new), new Known("v", ViaParser::new),
            new Known("From", FromParser::new), new Known("f", FromParser::new),
            new Known("To", ToParser::new), new Known("t", ToParser::new),
            new Known("Call-ID", CallIDParser::new), new Known("i", CallIDParser::new),
            new Known("CSeq", CSeqParser::new),
            new Known("Contact", ContactParser::new), new Known("m", ContactParser::new),
            new Known("Max-Forwards", MaxForwardsParser::new),
            new Known("Content-Length", ContentLengthParser::new), new Known("l", ContentLengthParser::new),
            new Known("Content-Type", ContentTypeParser::new), new Known("c", ContentTypeParser::new),
            new Known("Route", RouteParser::new),
            new Known("Record-Route", RecordRouteParser::new),
            new Known("Subject", SubjectParser::new), new Known("s", SubjectParser::new));
    private static final Known[] TABLE = KNOWN.toArray(Known[]::new);

    @Override
    protected void processHeader(String header, SIPMessage message, ParseExceptionListener listener,
                                 byte[] rawMessage) throws ParseException {
        if (header == null || header.isEmpty()) {
            return;
        }
        HeaderParser headerParser;
        try {
            headerParser = parserFor(header + "\n");
        } catch (ParseException e) {
            if (listener == null) {
                throw e;
            }
            listener.handleException(e, message, null, header, null);
            return;
        }
        try {
            SIPHeader sipHeader = headerParser.parse();
            message.attachHeader(sipHeader, false);
        } catch (ParseException e) {
            if (listener != null) {
                Class<?> headerClass = NameMap.getClassFromName(Lexer.getHeaderName(header));
                listener.handleException(e, message, headerClass == null ? ExtensionHeaderImpl.class : headerClass,
                        header, new String(rawMessage, StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * The parser {@link ParserFactory#createParser} gives {@code line}: for a name of {@link #KNOWN} (its case
     * ignored, blanks around it as the factory trims them) that parser, otherwise the factory's answer.
     */
    static HeaderParser parserFor(String line) throws ParseException {
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
                    return known.parser().apply(line);
                }
            }
        }
        return ParserFactory.createParser(line);
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

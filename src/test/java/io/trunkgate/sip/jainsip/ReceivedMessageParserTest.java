package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.parser.StringMsgParser;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import org.junit.jupiter.api.Test;

/** What the log says about a message the parser refused. */
class ReceivedMessageParserTest {

    @Test
    void theParsersComplaintIsLoggedWithoutTheCharArrayItIsPrefixedWith() {
        String request = "INVITE sip:+1555@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP;2.0/UDP 127.0.0.9:5070;branch=z9hG4bK1\r\n"
                + "From: <sip:a@127.0.0.9>;tag=1\r\nTo: <sip:+1555@127.0.0.1>\r\nCall-ID: c1\r\n"
                + "CSeq: 1 INVITE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n";
        ParseException refused = assertThrows(ParseException.class, () -> new StringMsgParser()
                .parseSIPMessage(request.getBytes(StandardCharsets.US_ASCII), true, false, (ex, message, type, header, text) -> {
                    throw ex;
                }));
        assertTrue(refused.getMessage().startsWith("[C@"), "JAIN-SIP's message changed: " + refused.getMessage());

        String logged = ReceivedMessageParser.parserMessage(refused);

        assertFalse(logged.contains("[C@"), logged);
        assertTrue(logged.startsWith("Expecting"), logged);
    }
}

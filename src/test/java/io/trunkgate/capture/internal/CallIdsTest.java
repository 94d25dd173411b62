package io.trunkgate.capture.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The Call-ID each HEP packet carries as its correlation id, found in the message's bytes. */
class CallIdsTest {

    @Test
    void theFullNameInAnyCaseWithBlanks() {
        assertEquals("a84b4c76e66710@pc33", callId("INVITE sip:bob@b SIP/2.0\r\nVia: SIP/2.0/UDP h\r\n"
                + "CALL-id \t:  a84b4c76e66710@pc33 \r\nCSeq: 1 INVITE\r\n\r\n"));
    }

    @Test
    void theCompactForm() {
        assertEquals("xyz", callId("SIP/2.0 200 OK\nv: SIP/2.0/TCP h\ni:xyz\n\n"));
    }

    @Test
    void noneInTheHeadIsNone() {
        assertEquals(null, callId("BYE sip:b SIP/2.0\r\nVia: SIP/2.0/UDP h\r\nCall-Info: <x>\r\n\r\nCall-ID: body\r\n"));
        assertEquals(null, callId("OPTIONS sip:b SIP/2.0\r\nCall-ID:   \r\n\r\n"));
    }

    private static String callId(String message) {
        byte[] bytes = ("junk" + message).getBytes(StandardCharsets.US_ASCII);
        long found = CallIds.find(bytes, 4, bytes.length - 4);
        return found < 0 ? null : new String(bytes, (int) (found >>> 32), (int) found - (int) (found >>> 32),
                StandardCharsets.US_ASCII);
    }
}

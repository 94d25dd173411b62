package io.trunkgate.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LogFieldsTest {

    @Test
    void aValueThatCannotPassForAnotherFieldIsWrittenAsItIs() {
        assertEquals("a84b4c76e66710@pc33.atlanta.com", LogFields.value("a84b4c76e66710@pc33.atlanta.com"));
    }

    @Test
    void spacesEqualsSignsAndQuotesAreQuotedAndEscaped() {
        assertEquals("\"hk3 peer=victim \\\"x\\\" a\\\\b\"", LogFields.value("hk3 peer=victim \"x\" a\\b"));
        assertEquals("\"a=b\"", LogFields.value("a=b"));
    }

    @Test
    void lineBreaksAndControlCharactersCannotStartANewLine() {
        assertEquals("\"id\\u000acall=forged\\u000d\\u2028\"", LogFields.value("id\ncall=forged\r\u2028"));
        assertEquals("\"\"", LogFields.value(""));
    }
}

package io.trunkgate.capture.internal;

/** Finds the Call-ID of a SIP message in its bytes, for the HEP correlation id; nothing else of it is read. */
final class CallIds {

    private CallIds() {
    }

    /**
     * Where the value of the first Call-ID header (or its compact form {@code i}) is in {@code bytes}: its start in
     * the high 32 bits, its end in the low 32; -1 when the head has none. Names are read in any case, with blanks
     * before the colon (RFC 3261 §7.3.1); the value is trimmed of blanks.
     */
    static long find(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int line = nextLine(bytes, offset, end);
        while (line < end && bytes[line] != '\r' && bytes[line] != '\n') {
            int lineEnd = lineEnd(bytes, line, end);
            int colon = valueStart(bytes, line, lineEnd);
            if (colon >= 0) {
                int from = skipBlanks(bytes, colon, lineEnd);
                int to = lineEnd;
                while (to > from && (bytes[to - 1] == ' ' || bytes[to - 1] == '\t')) {
                    to--;
                }
                return to > from ? ((long) from << 32) | to : -1;
            }
            line = nextLine(bytes, line, end);
        }
        return -1;
    }

    /** After the name of a Call-ID header on this line and its colon; -1 for any other line. */
    private static int valueStart(byte[] bytes, int line, int lineEnd) {
        int name;
        if (matches(bytes, line, lineEnd, "call-id")) {
            name = line + "call-id".length();
        } else if (line < lineEnd && (bytes[line] == 'i' || bytes[line] == 'I')) {
            name = line + 1;
        } else {
            return -1;
        }
        int colon = skipBlanks(bytes, name, lineEnd);
        return colon < lineEnd && bytes[colon] == ':' ? colon + 1 : -1;
    }

    private static boolean matches(byte[] bytes, int at, int end, String lowerCase) {
        if (end - at < lowerCase.length()) {
            return false;
        }
        for (int i = 0; i < lowerCase.length(); i++) {
            if (Character.toLowerCase((char) bytes[at + i]) != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int skipBlanks(byte[] bytes, int at, int end) {
        while (at < end && (bytes[at] == ' ' || bytes[at] == '\t')) {
            at++;
        }
        return at;
    }

    private static int lineEnd(byte[] bytes, int at, int end) {
        while (at < end && bytes[at] != '\r' && bytes[at] != '\n') {
            at++;
        }
        return at;
    }

    private static int nextLine(byte[] bytes, int at, int end) {
        at = lineEnd(bytes, at, end);
        if (at < end && bytes[at] == '\r') {
            at++;
        }
        if (at < end && bytes[at] == '\n') {
            at++;
        }
        return at;
    }
}

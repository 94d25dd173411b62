package io.trunkgate.sip.transport;

import io.trunkgate.config.SipUri;
import java.nio.charset.StandardCharsets;

/**
 * A SIP message as the bytes it arrived in, read without parsing it: the start line and the header lines (full
 * or compact names, any case). For the few decisions the transport makes before JAIN-SIP parses a message
 * (which worker takes it, whether a new call is shed); anything it cannot read is left to the parser.
 */
final class RawSipMessage {

    private final byte[] data;
    private final int start;
    private final int end;
    /** Where the header lines begin (after the start line). */
    private final int headers;

    RawSipMessage(byte[] data, int offset, int length) {
        this.data = data;
        this.start = offset;
        this.end = offset + length;
        this.headers = nextLine(offset);
    }

    /** Whether this is a request of {@code method} (its start line begins with the method and a space). */
    boolean isRequest(String method) {
        if (start + method.length() >= end || data[start + method.length()] != ' ') {
            return false;
        }
        for (int k = 0; k < method.length(); k++) {
            if (data[start + k] != method.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** A response's status code (the three digits after {@code SIP/2.0 }, any case), or -1 for anything else. */
    int status() {
        String version = "sip/2.0 ";
        int code = start + version.length();
        if (code + 3 > end || !matchesIgnoringCase(start, version)) {
            return -1;
        }
        int status = 0;
        for (int i = code; i < code + 3; i++) {
            if (data[i] < '0' || data[i] > '9') {
                return -1;
            }
            status = status * 10 + data[i] - '0';
        }
        return status;
    }

    /**
     * Whether every place this request may be sent on to is written as an IP address: the host of its Request-URI
     * and of each Route (JAIN-SIP resolves a host name on the thread that sends). False for anything this cannot
     * read, a {@code maddr} parameter, or a URI other than sip or sips.
     */
    boolean routesOnlyToAddresses() {
        int uriStart = indexOf(start, headers, (byte) ' ');
        if (uriStart < 0 || !hostIsAddress(uriStart + 1, indexOf(uriStart + 1, headers, (byte) ' '))) {
            return false;
        }
        boolean[] addresses = {true};
        forEachHeaderLine((line, lineEnd) -> {
            int value = valueStart(line, "route", (char) 0);
            if (value < 0 || !addresses[0]) {
                return;
            }
            // each route is a name-addr: <uri>, comma-separated
            int open = indexOf(value, lineEnd, (byte) '<');
            if (open < 0) {
                addresses[0] = false;
            }
            while (open >= 0 && addresses[0]) {
                int close = indexOf(open, lineEnd, (byte) '>');
                addresses[0] = close > 0 && hostIsAddress(open + 1, close);
                open = close < 0 ? -1 : indexOf(close, lineEnd, (byte) '<');
            }
        });
        return addresses[0];
    }

    /** Whether the SIP URI in [from, to) names its host as an IPv4 or a bracketed IPv6 address. */
    private boolean hostIsAddress(int from, int to) {
        if (to < 0) {
            return false;
        }
        int host;
        if (matchesIgnoringCase(from, "sip:")) {
            host = from + 4;
        } else if (matchesIgnoringCase(from, "sips:")) {
            host = from + 5;
        } else {
            return false;
        }
        // the last @ ends the user part, which may hold ; and ?; neither parameters nor the host may hold an @
        for (int i = host; i < to; i++) {
            if (data[i] == '@') {
                host = i + 1;
            }
        }
        for (int i = host; i + 6 <= to; i++) {
            if (matchesIgnoringCase(i, "maddr=")) {
                return false;
            }
        }
        int hostEnd = host;
        if (host < to && data[host] == '[') {
            hostEnd = indexOf(host, to, (byte) ']');
            return hostEnd > host + 1 && ipv6(host + 1, hostEnd);
        }
        while (hostEnd < to && data[hostEnd] != ':' && data[hostEnd] != ';' && data[hostEnd] != '?') {
            hostEnd++;
        }
        return SipUri.isIpv4(new String(data, host, hostEnd - host, StandardCharsets.ISO_8859_1));
    }

    private boolean ipv6(int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = data[i];
            if (!(b == ':' || b == '.' || (b >= '0' && b <= '9') || ((b | 0x20) >= 'a' && (b | 0x20) <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** The first index of {@code b} in [from, to), or -1. */
    private int indexOf(int from, int to, byte b) {
        for (int i = from; i < Math.min(to, end); i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** The start of the first header line called {@code lowerName} (or its one-letter compact form), or -1. */
    int header(String lowerName, char compact) {
        for (int line = headers; line < end && data[line] != '\r' && data[line] != '\n'; line = nextLine(line)) {
            if (valueStart(line, lowerName, compact) >= 0) {
                return line;
            }
        }
        return -1;
    }

    /**
     * Where the value of the header line at {@code line} starts when the line is a {@code lowerName} (or
     * {@code compact}) header, else -1. A compact name of 0 means the header has none.
     */
    int valueStart(int line, String lowerName, char compact) {
        int i = line;
        if (matchesIgnoringCase(i, lowerName)) {
            i += lowerName.length();
        } else if (compact != 0 && i < end && (data[i] | 0x20) == compact) {
            i++;
        } else {
            return -1;
        }
        i = skipBlanks(i);
        if (i >= end || data[i] != ':') {
            return -1;
        }
        return skipBlanks(i + 1);
    }

    /** The end of the value starting at {@code from}: its line's end, trailing blanks left out. */
    int valueEnd(int from) {
        int last = from;
        for (int i = from; i < end && data[i] != '\r' && data[i] != '\n'; i++) {
            if (data[i] != ' ' && data[i] != '\t') {
                last = i + 1;
            }
        }
        return last;
    }

    /** The value of the first {@code lowerName} header, or null when there is none. */
    String headerValue(String lowerName, char compact) {
        int line = header(lowerName, compact);
        if (line < 0) {
            return null;
        }
        int value = valueStart(line, lowerName, compact);
        return new String(data, value, valueEnd(value) - value, StandardCharsets.ISO_8859_1);
    }

    /** The Call-ID's hash (as {@code Arrays.hashCode} of its bytes would be), or {@code orElse} without one. */
    int callIdHash(int orElse) {
        int line = header("call-id", 'i');
        if (line < 0) {
            return orElse;
        }
        int value = valueStart(line, "call-id", 'i');
        int hash = 1;
        for (int i = value, last = valueEnd(value); i < last; i++) {
            hash = 31 * hash + data[i];
        }
        return hash;
    }

    /**
     * The tag parameter of the To header, "" when it has none, null when there is no To header. Parameters
     * inside a URI in angle brackets are the URI's, not the header's.
     */
    String toTag() {
        return tag("to", 't');
    }

    /** The tag parameter of the From header (the caller's), as {@link #toTag()} reads it. */
    String fromTag() {
        return tag("from", 'f');
    }

    private String tag(String lowerName, char compact) {
        int line = header(lowerName, compact);
        if (line < 0) {
            return null;
        }
        int value = valueStart(line, lowerName, compact);
        int valueEnd = valueEnd(value);
        int params = value;
        for (int i = value; i < valueEnd; i++) {
            if (data[i] == '>') {
                params = i + 1;
            }
        }
        for (int i = params; i < valueEnd; i++) {
            if (data[i] != ';') {
                continue;
            }
            int name = skipBlanks(i + 1);
            if (name + 3 <= valueEnd && matchesIgnoringCase(name, "tag")) {
                int equals = skipBlanks(name + 3);
                if (equals < valueEnd && data[equals] == '=') {
                    int tag = skipBlanks(equals + 1);
                    int tagEnd = tag;
                    while (tagEnd < valueEnd && data[tagEnd] != ';' && data[tagEnd] != ' ' && data[tagEnd] != '\t') {
                        tagEnd++;
                    }
                    return new String(data, tag, tagEnd - tag, StandardCharsets.ISO_8859_1);
                }
            }
        }
        return "";
    }

    /** The header lines, as they arrived, one at a time (folded continuation lines belong to the line before). */
    void forEachHeaderLine(HeaderLineVisitor visitor) {
        for (int line = headers; line < end && data[line] != '\r' && data[line] != '\n'; ) {
            int next = nextLine(line);
            while (next < end && (data[next] == ' ' || data[next] == '\t')) {
                next = nextLine(next);
            }
            int lineEnd = next;
            while (lineEnd > line && (data[lineEnd - 1] == '\n' || data[lineEnd - 1] == '\r')) {
                lineEnd--;
            }
            visitor.line(line, lineEnd);
            line = next;
        }
    }

    byte[] data() {
        return data;
    }

    /** Told the start and end (without the line break) of each header line. */
    interface HeaderLineVisitor {
        void line(int start, int end);
    }

    private int nextLine(int from) {
        int i = from;
        while (i < end && data[i] != '\n') {
            i++;
        }
        return Math.min(i + 1, end);
    }

    private int skipBlanks(int from) {
        int i = from;
        while (i < end && (data[i] == ' ' || data[i] == '\t')) {
            i++;
        }
        return i;
    }

    private boolean matchesIgnoringCase(int at, String lowerName) {
        if (at + lowerName.length() > end) {
            return false;
        }
        for (int k = 0; k < lowerName.length(); k++) {
            if ((data[at + k] | 0x20) != lowerName.charAt(k)) {
                return false;
            }
        }
        return true;
    }
}

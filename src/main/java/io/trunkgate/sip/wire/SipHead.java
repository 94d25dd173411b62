package io.trunkgate.sip.wire;

import io.trunkgate.config.SipUri;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the gateway reads of a SIP message before JAIN-SIP parses it, read once from the bytes it arrived in: the
 * start line (a request's method, a response's status), the Call-ID, the From and To tags, the CSeq number,
 * Content-Length, whether
 * every place a request may be sent on to is an IP address, and where the header lines a stateless answer copies
 * are. Header names are read in any case, in full or compact form, with blanks before the colon (RFC 3261 §7.3.1);
 * a folded continuation line belongs to the line before it; a header's value is read from its first line. The
 * triage of new calls, the per-call lanes of the UDP listener and the TCP stream framer all take this one view;
 * anything it cannot read is left to the parser.
 */
public final class SipHead {

    /** The status of anything but a response this can read. */
    private static final int NONE = -1;

    private final byte[] data;
    private final int offset;
    private final String method;
    private final int status;
    private final String callId;
    private final int callIdHash;
    private final String fromTag;
    private final String toTag;
    private final long cseq;
    private final long contentLength;
    private final String contentLengthProblem;
    private final boolean answerable;
    private final boolean routesOnlyToAddresses;
    /** The Via, From, To, Call-ID and CSeq lines in order: start, end (from the message's start) and 1 for a To. */
    private final int[] answerLines;

    private SipHead(byte[] data, int offset, Reader read) {
        this.data = data;
        this.offset = offset;
        this.method = read.method;
        this.status = read.status;
        this.callId = read.callId;
        this.callIdHash = read.callIdHash;
        this.fromTag = read.fromTag;
        this.toTag = read.toTag;
        this.cseq = read.cseq;
        this.contentLength = read.contentLength;
        this.contentLengthProblem = read.contentLengthProblem;
        this.answerable = read.vias > 0 && read.fromTag != null && read.callId != null && read.cseqs > 0;
        this.routesOnlyToAddresses = read.routesOnlyToAddresses;
        this.answerLines = Arrays.copyOf(read.answerLines, read.answerLineCount * 3);
    }

    private SipHead(SipHead head, byte[] data, int offset) {
        this.data = data;
        this.offset = offset;
        this.method = head.method;
        this.status = head.status;
        this.callId = head.callId;
        this.callIdHash = head.callIdHash;
        this.fromTag = head.fromTag;
        this.toTag = head.toTag;
        this.cseq = head.cseq;
        this.contentLength = head.contentLength;
        this.contentLengthProblem = head.contentLengthProblem;
        this.answerable = head.answerable;
        this.routesOnlyToAddresses = head.routesOnlyToAddresses;
        this.answerLines = head.answerLines;
    }

    /** Reads the message at [offset, offset + length) of {@code data}, which must not change while this is used. */
    public static SipHead read(byte[] data, int offset, int length) {
        return new SipHead(data, offset, new Reader(data, offset, offset + length));
    }

    /** This head, of the same message copied to the start of {@code copy}. */
    SipHead movedTo(byte[] copy) {
        return new SipHead(this, copy, 0);
    }

    /** Whether this is a request of {@code method} (its start line begins with the method and a space). */
    public boolean isRequest(String method) {
        return method.equals(this.method);
    }

    /** Whether this is an INVITE outside a dialog: a new call (its To has no tag). */
    public boolean isNewInvite() {
        return isRequest("INVITE") && "".equals(toTag);
    }

    /** A response's status code (the three digits after {@code SIP/2.0 }, any case), or -1 for anything else. */
    public int status() {
        return status;
    }

    /** The value of the first Call-ID header, or null when there is none. */
    public String callId() {
        return callId;
    }

    /** The Call-ID's hash (as {@code Arrays.hashCode} of its bytes would be), or {@code orElse} without one. */
    public int callIdHash(int orElse) {
        return callId == null ? orElse : callIdHash;
    }

    /**
     * The tag parameter of the first To header, "" when it has none, null when there is no To header. Parameters
     * inside a URI in angle brackets are the URI's, not the header's.
     */
    public String toTag() {
        return toTag;
    }

    /** The tag parameter of the first From header (the caller's), as {@link #toTag()} reads it. */
    public String fromTag() {
        return fromTag;
    }

    /** The sequence number of the first CSeq header, or -1 when it has none or it is not a number. */
    public long cseq() {
        return cseq;
    }

    /** The Content-Length (every one the message has), 0 when it has none. */
    public long contentLength() {
        return contentLength;
    }

    /** What is wrong with the Content-Length headers: one is not a length, or two differ; null when nothing is. */
    public String contentLengthProblem() {
        return contentLengthProblem;
    }

    /**
     * Whether every place this request may be sent on to is written as an IP address: the host of its Request-URI
     * and of each Route (JAIN-SIP resolves a host name on the thread that sends). False for anything this cannot
     * read, a {@code maddr} parameter, or a URI other than sip or sips.
     */
    public boolean routesOnlyToAddresses() {
        return routesOnlyToAddresses;
    }

    /** Whether the message has what a response must copy (RFC 3261 §8.2.6.2): Via, From, Call-ID and CSeq. */
    boolean answerable() {
        return answerable;
    }

    /** The Via, From, To, Call-ID and CSeq lines as they arrived, in order (folded lines whole). */
    void forEachAnswerLine(AnswerLineVisitor visitor) {
        for (int i = 0; i < answerLines.length; i += 3) {
            visitor.line(data, offset + answerLines[i], offset + answerLines[i + 1], answerLines[i + 2] == 1);
        }
    }

    /** Told each line a stateless answer copies: its bytes in [start, end) of {@code data}, and whether it is a To. */
    interface AnswerLineVisitor {
        void line(byte[] data, int start, int end, boolean to);
    }

    /** One pass over the start line and the header lines, up to the empty line that ends them. */
    private static final class Reader {
        private final byte[] data;
        private final int start;
        private final int end;
        String method;
        int status = NONE;
        String callId;
        int callIdHash;
        String fromTag;
        String toTag;
        long cseq = -1;
        long contentLength;
        String contentLengthProblem;
        boolean contentLengthSeen;
        int vias;
        int cseqs;
        boolean routesOnlyToAddresses;
        int[] answerLines = new int[24];
        int answerLineCount;

        Reader(byte[] data, int start, int end) {
            this.data = data;
            this.start = start;
            this.end = end;
            int headers = nextLine(start);
            readStartLine(headers);
            for (int line = headers; line < end && data[line] != '\r' && data[line] != '\n'; ) {
                int next = nextLine(line);
                while (next < end && (data[next] == ' ' || data[next] == '\t')) {
                    next = nextLine(next);
                }
                int lineEnd = next;
                while (lineEnd > line && (data[lineEnd - 1] == '\n' || data[lineEnd - 1] == '\r')) {
                    lineEnd--;
                }
                header(line, lineEnd);
                line = next;
            }
        }

        private void readStartLine(int headers) {
            status = readStatus();
            if (status != NONE) {
                return;
            }
            int space = indexOf(start, end, (byte) ' ');
            if (space > start && space < headers) {
                method = new String(data, start, space - start, StandardCharsets.ISO_8859_1);
                int uriEnd = indexOf(space + 1, headers, (byte) ' ');
                routesOnlyToAddresses = hostIsAddress(space + 1, uriEnd);
            }
        }

        private int readStatus() {
            String version = "sip/2.0 ";
            int code = start + version.length();
            if (code + 3 > end || !matchesIgnoringCase(start, version)) {
                return NONE;
            }
            int read = 0;
            for (int i = code; i < code + 3; i++) {
                if (data[i] < '0' || data[i] > '9') {
                    return NONE;
                }
                read = read * 10 + data[i] - '0';
            }
            return read;
        }

        /** Reads the header line in [line, lineEnd) if it is one of those this view holds. */
        private void header(int line, int lineEnd) {
            int nameEnd = line;
            while (nameEnd < lineEnd && data[nameEnd] != ':' && data[nameEnd] != ' ' && data[nameEnd] != '\t') {
                nameEnd++;
            }
            int colon = skipBlanks(nameEnd);
            if (nameEnd == line || colon >= lineEnd || data[colon] != ':') {
                return;
            }
            int value = skipBlanks(colon + 1);
            int valueEnd = valueEnd(value);
            if (named(line, nameEnd, "via", 'v')) {
                vias++;
                answerLine(line, lineEnd, false);
            } else if (named(line, nameEnd, "from", 'f')) {
                fromTag = fromTag == null ? tag(value, valueEnd) : fromTag;
                answerLine(line, lineEnd, false);
            } else if (named(line, nameEnd, "to", 't')) {
                toTag = toTag == null ? tag(value, valueEnd) : toTag;
                answerLine(line, lineEnd, true);
            } else if (named(line, nameEnd, "call-id", 'i')) {
                if (callId == null) {
                    callId = new String(data, value, valueEnd - value, StandardCharsets.ISO_8859_1);
                    callIdHash = hash(value, valueEnd);
                }
                answerLine(line, lineEnd, false);
            } else if (named(line, nameEnd, "cseq", (char) 0)) {
                if (cseqs++ == 0) {
                    cseq = sequenceNumber(value, valueEnd);
                }
                answerLine(line, lineEnd, false);
            } else if (named(line, nameEnd, "content-length", 'l')) {
                contentLength(value, valueEnd);
            } else if (method != null && named(line, nameEnd, "route", (char) 0)) {
                routesOnlyToAddresses = routesOnlyToAddresses && routesToAddresses(value, lineEnd);
            }
        }

        private void answerLine(int line, int lineEnd, boolean to) {
            if (answerLineCount * 3 == answerLines.length) {
                answerLines = Arrays.copyOf(answerLines, answerLines.length * 2);
            }
            answerLines[answerLineCount * 3] = line - start;
            answerLines[answerLineCount * 3 + 1] = lineEnd - start;
            answerLines[answerLineCount * 3 + 2] = to ? 1 : 0;
            answerLineCount++;
        }

        /** The number a CSeq value in [value, valueEnd) starts with (RFC 3261: below 2^31), or -1. */
        private long sequenceNumber(int value, int valueEnd) {
            int end = digitsEnd(value, valueEnd, 10);
            boolean ends = end == valueEnd || data[end] == ' ' || data[end] == '\t';
            long read = number(value, end);
            return end > value && ends && read < 1L << 31 ? read : -1;
        }

        private void contentLength(int value, int valueEnd) {
            if (contentLengthProblem != null) {
                return;
            }
            int end = digitsEnd(value, valueEnd, 9);
            if (end == value || end != valueEnd) {
                String text = new String(data, value, valueEnd - value, StandardCharsets.ISO_8859_1);
                contentLengthProblem = "Content-Length \"" + text + "\" is not a length";
                return;
            }
            long declared = number(value, end);
            if (contentLengthSeen && declared != contentLength) {
                contentLengthProblem = "two different Content-Length values";
                return;
            }
            contentLength = declared;
            contentLengthSeen = true;
        }

        /** The end of the run of decimal digits, at most {@code most} of them, that starts at {@code from}. */
        private int digitsEnd(int from, int to, int most) {
            int i = from;
            while (i < to && i - from < most && data[i] >= '0' && data[i] <= '9') {
                i++;
            }
            return i;
        }

        /** The decimal number the digits in [from, to) write. */
        private long number(int from, int to) {
            long read = 0;
            for (int i = from; i < to; i++) {
                read = read * 10 + data[i] - '0';
            }
            return read;
        }

        /** Whether each route of a Route value (comma-separated name-addrs, {@code <uri>}) names an address. */
        private boolean routesToAddresses(int value, int lineEnd) {
            int open = indexOf(value, lineEnd, (byte) '<');
            if (open < 0) {
                return false;
            }
            while (open >= 0) {
                int close = indexOf(open, lineEnd, (byte) '>');
                if (close < 0 || !hostIsAddress(open + 1, close)) {
                    return false;
                }
                open = indexOf(close, lineEnd, (byte) '<');
            }
            return true;
        }

        /** Whether the name in [from, to) is {@code lowerName} or its one-letter {@code compact} form (0: none). */
        private boolean named(int from, int to, String lowerName, char compact) {
            if (to - from == 1) {
                return compact != 0 && (data[from] | 0x20) == compact;
            }
            return to - from == lowerName.length() && matchesIgnoringCase(from, lowerName);
        }

        /** The tag parameter of a From or To value in [value, valueEnd): "" when it has none. */
        private String tag(int value, int valueEnd) {
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
                        while (tagEnd < valueEnd && data[tagEnd] != ';' && data[tagEnd] != ' '
                                && data[tagEnd] != '\t') {
                            tagEnd++;
                        }
                        return new String(data, tag, tagEnd - tag, StandardCharsets.ISO_8859_1);
                    }
                }
            }
            return "";
        }

        private int hash(int from, int to) {
            int hash = 1;
            for (int i = from; i < to; i++) {
                hash = 31 * hash + data[i];
            }
            return hash;
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

        /** The end of the value starting at {@code from}: its first line's end, trailing blanks left out. */
        private int valueEnd(int from) {
            int last = from;
            for (int i = from; i < end && data[i] != '\r' && data[i] != '\n'; i++) {
                if (data[i] != ' ' && data[i] != '\t') {
                    last = i + 1;
                }
            }
            return last;
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

        private boolean matchesIgnoringCase(int at, String lower) {
            if (at + lower.length() > end) {
                return false;
            }
            for (int k = 0; k < lower.length(); k++) {
                if ((data[at + k] | 0x20) != lower.charAt(k)) {
                    return false;
                }
            }
            return true;
        }
    }
}

package io.trunkgate.sip.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The 400 for a request the stack cannot parse, built from the request's raw header lines since no parsed
 * request exists. Unlike JAIN-SIP's own (which puts the parser's message in the reason phrase and the whole
 * request in a message/sipfrag body: an answer larger than the request, with a bare LF in the status line)
 * it is a plain "400 Bad Request" with only what RFC 3261 §8.2.6.2 requires: the Via, From, To (with a tag),
 * Call-ID and CSeq of the request. There is none for a response, an ACK (RFC 3261 §17.1.1.3: never answered),
 * a request missing one of those headers or with a control character in one, or when the answer would be larger
 * than the request or than {@value #MAX_BYTES} bytes: nobody can use the gateway to multiply the traffic it sends.
 */
public final class BadRequestAnswer {

    /** RFC 3261 §18.1.1's bound for a request that may go over UDP, as JAIN-SIP uses for its own 400. */
    static final int MAX_BYTES = 1300;

    private static final Pattern LINE_BREAK = Pattern.compile("\r\n|\r|\n");
    private static final Pattern TAG_PARAMETER = Pattern.compile(";\\s*tag\\s*=", Pattern.CASE_INSENSITIVE);

    private BadRequestAnswer() {
    }

    public static final String PHRASE = "Bad Request";

    static Optional<byte[]> to(byte[] request) {
        return to(request, PHRASE);
    }

    /** As {@link #to(byte[])}, with {@code phrase} as the reason phrase (which says what was wrong). */
    public static Optional<byte[]> to(byte[] request, String phrase) {
        String text = new String(request, StandardCharsets.ISO_8859_1);
        int headersEnd = endOfHeaders(text);
        List<String> lines = unfolded(LINE_BREAK.split(text.substring(0, headersEnd), -1));
        if (lines.isEmpty() || lines.get(0).startsWith("SIP/") || lines.get(0).startsWith("ACK ")) {
            return Optional.empty();
        }
        List<String> vias = new ArrayList<>();
        String from = null;
        String to = null;
        String callId = null;
        String cseq = null;
        for (String line : lines.subList(1, lines.size())) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String value = line.substring(colon + 1).trim();
            switch (line.substring(0, colon).trim().toLowerCase(Locale.ROOT)) {
                case "via", "v" -> vias.add(value);
                case "from", "f" -> from = from == null ? value : from;
                case "to", "t" -> to = to == null ? value : to;
                case "call-id", "i" -> callId = callId == null ? value : callId;
                case "cseq" -> cseq = cseq == null ? value : cseq;
                default -> {
                }
            }
        }
        if (vias.isEmpty() || from == null || to == null || callId == null || cseq == null || Stream.concat(
                vias.stream(), Stream.of(from, to, callId, cseq)).anyMatch(BadRequestAnswer::hasControl)) {
            return Optional.empty();
        }
        StringBuilder answer = new StringBuilder(512).append("SIP/2.0 400 ").append(phrase).append("\r\n");
        vias.forEach(via -> answer.append("Via: ").append(via).append("\r\n"));
        answer.append("From: ").append(from).append("\r\n")
                .append("To: ").append(to).append(hasTag(to) ? "" : ";tag=" + AnswerTags.next())
                .append("\r\n")
                .append("Call-ID: ").append(callId).append("\r\n")
                .append("CSeq: ").append(cseq).append("\r\n")
                .append("Content-Length: 0\r\n\r\n");
        byte[] bytes = answer.toString().getBytes(StandardCharsets.ISO_8859_1);
        return bytes.length <= Math.min(request.length, MAX_BYTES) ? Optional.of(bytes) : Optional.empty();
    }

    /** Where the header section ends: at the first empty line, else at the end of what arrived. */
    private static int endOfHeaders(String text) {
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
            if (text.startsWith("\n", i + 1) || text.startsWith("\r\n", i + 1)) {
                return i + 1;
            }
        }
        return text.length();
    }

    /** The lines with continuation lines (RFC 3261 §7.3.1: starting with a space or tab) joined to theirs. */
    private static List<String> unfolded(String[] lines) {
        List<String> joined = new ArrayList<>();
        for (String line : lines) {
            if (!joined.isEmpty() && (line.startsWith(" ") || line.startsWith("\t"))) {
                joined.set(joined.size() - 1, joined.get(joined.size() - 1) + " " + line.trim());
            } else if (!line.isEmpty()) {
                joined.add(line);
            }
        }
        return joined;
    }

    private static boolean hasControl(String value) {
        return value.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f);
    }

    private static boolean hasTag(String to) {
        int addressEnd = to.lastIndexOf('>');
        return TAG_PARAMETER.matcher(addressEnd < 0 ? to : to.substring(addressEnd)).find();
    }
}

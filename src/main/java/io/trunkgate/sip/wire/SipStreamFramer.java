package io.trunkgate.sip.wire;

import java.util.Arrays;

/**
 * Cuts a SIP byte stream into messages (RFC 3261 §18.3): the header section up to the first empty line, read once
 * into a {@link SipHead}, then exactly Content-Length bytes of body. Header names are read as RFC 3261 §7.3.1
 * writes them: in any case, in compact form ({@code l}, {@code i}) and with whitespace before the colon. JAIN-SIP's own NIO framer reads only
 * "Content-Length:" and "Call-ID:" at the start of a line, so it dropped a valid INVITE with {@code i:} (no Call-ID
 * found) or with "Content-Length :" (a number format error, which closed the connection).
 * Not thread-safe: one framer serves one connection, fed by its selector thread.
 */
public final class SipStreamFramer {

    /** Receives what the stream carries. */
    public interface Receiver {
        /** A whole message, start line to end of body, and its head. */
        void message(byte[] message, SipHead head);

        /** A double CRLF between messages: an RFC 5626 §4.4.1 keep-alive ping, to be answered with one CRLF. */
        void keepAlivePing();
    }

    /** The stream cannot be cut into messages any more: no message boundary can be trusted after this. */
    public static final class FramingException extends Exception {
        FramingException(String message) {
            super(message);
        }
    }

    private static final int INITIAL_BUFFER = 4096;

    private final int maxMessageSize;
    private byte[] buffer = new byte[INITIAL_BUFFER];
    private int length;
    private int scanFrom;
    private int messageLength = -1;
    private SipHead head;
    private int lineFeedsBetweenMessages;

    public SipStreamFramer(int maxMessageSize) {
        this.maxMessageSize = maxMessageSize;
    }

    /** Whether part of a message has arrived and the rest has not. */
    public boolean hasPartialMessage() {
        return length > 0;
    }

    /** What has arrived of the message being received, for an answer when it cannot be framed. */
    public byte[] partialMessage() {
        return Arrays.copyOf(buffer, length);
    }

    /** Takes the next bytes of the stream and hands every message they complete to {@code receiver}. */
    public int add(byte[] bytes, Receiver receiver) throws FramingException {
        append(bytes, length == 0 ? skipLineBreaks(bytes, 0, bytes.length, receiver) : 0);
        int completed = 0;
        while (length > 0 && (messageLength >= 0 || readHeaders()) && length >= messageLength) {
            byte[] message = Arrays.copyOf(buffer, messageLength);
            int rest = skipLineBreaks(buffer, messageLength, length, receiver);
            System.arraycopy(buffer, rest, buffer, 0, length - rest);
            length -= rest;
            messageLength = -1;
            scanFrom = 0;
            completed++;
            receiver.message(message, head.movedTo(message));
        }
        if (messageLength < 0 && length > maxMessageSize) {
            throw new FramingException("no end of headers within " + maxMessageSize + " bytes");
        }
        if (length == 0 && buffer.length > INITIAL_BUFFER) {
            // The buffer lives as long as the connection: one large message must not pin 64 KB to it.
            buffer = new byte[INITIAL_BUFFER];
        }
        return completed;
    }

    /**
     * Skips the line breaks RFC 3261 §7.5 lets a sender put before a message, counting two line feeds in a
     * row as a keep-alive ping; returns where the next message starts.
     */
    private int skipLineBreaks(byte[] bytes, int from, int end, Receiver receiver) {
        int i = from;
        for (; i < end && (bytes[i] == '\r' || bytes[i] == '\n'); i++) {
            if (bytes[i] == '\n' && ++lineFeedsBetweenMessages == 2) {
                lineFeedsBetweenMessages = 0;
                receiver.keepAlivePing();
            }
        }
        if (i < end) {
            lineFeedsBetweenMessages = 0;
        }
        return i;
    }

    private void append(byte[] bytes, int offset) {
        int count = bytes.length - offset;
        if (length + count > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + count));
        }
        System.arraycopy(bytes, offset, buffer, length, count);
        length += count;
    }

    /** Finds the end of the header section and reads it; false if it has not arrived. */
    private boolean readHeaders() throws FramingException {
        int headersEnd = endOfHeaders();
        if (headersEnd < 0) {
            return false;
        }
        head = SipHead.read(buffer, 0, headersEnd);
        if (head.contentLengthProblem() != null) {
            throw new FramingException(head.contentLengthProblem());
        }
        long contentLength = head.contentLength();
        if (headersEnd + contentLength > maxMessageSize) {
            throw new FramingException("message of " + (headersEnd + contentLength) + " bytes, over "
                    + maxMessageSize);
        }
        messageLength = headersEnd + (int) contentLength;
        return true;
    }

    /** The index after the empty line that ends the header section, or -1 if it has not arrived yet. */
    private int endOfHeaders() {
        for (int i = scanFrom; i < length; i++) {
            if (buffer[i] != '\n') {
                continue;
            }
            if (i + 1 < length && buffer[i + 1] == '\n') {
                return i + 2;
            }
            if (i + 2 < length && buffer[i + 1] == '\r' && buffer[i + 2] == '\n') {
                return i + 3;
            }
            if (i + 2 >= length) {
                scanFrom = i;
                return -1;
            }
        }
        scanFrom = length;
        return -1;
    }
}

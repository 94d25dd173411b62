package io.trunkgate.capture;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.time.Instant;

/** Where the SIP edge reports each SIP message it receives or sends, as it was on the wire. */
public interface Capture {

    /** Capture switched off: takes nothing. */
    Capture NONE = new Capture() {
        @Override
        public boolean on() {
            return false;
        }

        @Override
        public void message(byte[] bytes, int offset, int length, InetSocketAddress source,
                            InetSocketAddress destination, Transport transport, long epochMicros) {
            // nothing captured
        }
    };

    /** Whether messages are taken at all: when not, a caller need not gather what {@link #message} takes. */
    boolean on();

    /**
     * One SIP message, received or sent (which, its source and destination say). Returns at once, never waiting for
     * the collector. {@code bytes} must not change afterwards: it is read later, on another thread.
     *
     * @param transport   the transport it travelled over (TLS: the message as it was before encryption)
     * @param epochMicros when it was received or sent, in microseconds since the epoch
     */
    void message(byte[] bytes, int offset, int length, InetSocketAddress source, InetSocketAddress destination,
                 Transport transport, long epochMicros);

    /** Now, in microseconds since the epoch, for {@link #message}. */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}

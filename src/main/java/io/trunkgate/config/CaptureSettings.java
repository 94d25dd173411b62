package io.trunkgate.config;

import java.util.Optional;

/**
 * Where the gateway sends a copy of every SIP message it receives and sends, as HEP version 3 (the capture protocol
 * of Homer): the {@code capture} block of gateway.conf. Without it, nothing is captured.
 *
 * @param host      the collector's host name or IP address
 * @param port      the collector's port
 * @param transport how the copies travel to the collector
 * @param captureId the capture agent id each copy carries (Homer tells the gateways apart by it)
 * @param password  the collector's password, sent in each copy's authentication key chunk; empty: none
 * @param queueSize how many copies may wait for the collector; more are dropped and counted
 */
public record CaptureSettings(String host, int port, Transport transport, long captureId, Optional<String> password,
                              int queueSize) {

    public static final long DEFAULT_CAPTURE_ID = 1;
    public static final int DEFAULT_QUEUE_SIZE = 10_000;

    /** How HEP travels: one datagram per message, or one after another on a TCP connection. */
    public enum Transport {
        UDP, TCP
    }
}

package io.trunkgate.gateway;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caller and the carrier of the gateway's warm-up calls, on two UDP sockets of a loopback address no peer
 * claims: INVITE (with SDP), 180 and 200 from the carrier, ACK and BYE along the gateway's Record-Route, 200 to the
 * BYE. Plain text over sockets, so the warm-up exercises only the gateway's own code, and nothing here is a second
 * SIP stack to start and stop.
 */
final class WarmUpAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WarmUpAgent.class);
    private static final int TIMEOUT_MS = 200;
    private static final long POLL_MS = 100;
    private static final int FIRST_WINDOW = 2;
    private static final long CALL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long IN_FLIGHT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long WAIT_POLL_MS = 5;
    private static final String SDP = "v=0\r\no=warm-up 1 1 IN IP4 %1$s\r\ns=-\r\nc=IN IP4 %1$s\r\nt=0 0\r\n"
            + "m=audio 40000 RTP/AVP 0 8 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r\n"
            + "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n";

    private final InetSocketAddress gateway;
    private final DatagramSocket callerSocket;
    private final DatagramSocket carrierSocket;
    private final String host;
    /** Calls placed and not ended, by Call-ID. */
    private final Map<String, PlacedCall> calls = new ConcurrentHashMap<>();
    private volatile Semaphore window = new Semaphore(0);
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger granted = new AtomicInteger();
    private volatile int maxWindow;
    private volatile int placed;
    private final AtomicInteger completed = new AtomicInteger();
    private final Thread callerThread;
    private final Thread carrierThread;
    private volatile boolean running = true;

    WarmUpAgent(InetAddress address, InetSocketAddress gateway) throws IOException {
        this.gateway = gateway;
        this.host = address.getHostAddress();
        this.callerSocket = new DatagramSocket(new InetSocketAddress(address, 0));
        this.carrierSocket = new DatagramSocket(new InetSocketAddress(address, 0));
        callerSocket.setSoTimeout(TIMEOUT_MS);
        carrierSocket.setSoTimeout(TIMEOUT_MS);
        this.callerThread = new Thread(() -> serve(callerSocket, this::onCallerMessage), "warm-up-caller");
        this.carrierThread = new Thread(() -> serve(carrierSocket, this::onCarrierMessage), "warm-up-carrier");
        callerThread.setDaemon(true);
        carrierThread.setDaemon(true);
        callerThread.start();
        carrierThread.start();
    }

    /** Calls placed so far. */
    int placed() {
        return placed;
    }

    /** Calls completed so far (BYE answered 200). */
    int completed() {
        return completed.get();
    }

    /** Calls that got a failure answer (503 while Redis was slow to warm, for instance). */
    int failed() {
        return failed.get();
    }

    /** Where the warm-up carrier listens, for its {@code uri}. */
    String carrierUri() {
        return "sip:" + host + ":" + carrierSocket.getLocalPort() + ";transport=udp";
    }

    /**
     * Places {@code count} calls, and more while {@code more} says so, at most {@code concurrency} at a time, each
     * to {@code number} plus its index; returns how many completed (BYE answered 200) before {@code deadlineNanos}.
     * A call not completed within {@link #CALL_TIMEOUT_NANOS} gives its place to the next, and is still ended when
     * its answer comes; calls in flight at the deadline get {@link #IN_FLIGHT_GRACE_NANOS} more to end.
     */
    int run(String number, int count, BooleanSupplier more, int concurrency, long deadlineNanos)
            throws InterruptedException {
        // Two calls at first, one more for each that completes: a cold JVM's first Redis calls are slow, and a
        // burst of them would trip the Redis breaker and turn the warm-up into a run of 503s.
        window = new Semaphore(FIRST_WINDOW);
        this.maxWindow = concurrency;
        this.granted.set(FIRST_WINDOW);
        int sent = 0;
        for (int i = 0; (i < count || more.getAsBoolean()) && System.nanoTime() < deadlineNanos; ) {
            if (!window.tryAcquire(POLL_MS, TimeUnit.MILLISECONDS)) {
                expireStuckCalls();
                continue;
            }
            String callId = "warm-up-" + i + "-" + System.nanoTime() + "@" + host;
            calls.put(callId, new PlacedCall(number + i, System.nanoTime()));
            try {
                send(callerSocket, invite(callId, number + i), gateway);
            } catch (IOException e) {
                log.debug("warm-up INVITE not sent: {}", e.toString());
            }
            i++;
            sent++;
        }
        placed += sent;
        // Late calls still end (see onCallerMessage): wait for them too, up to the deadline, and for the calls the
        // deadline caught in flight (each takes milliseconds) a moment more. The gateway ends what is left after.
        long lastWait = Math.max(deadlineNanos, System.nanoTime() + IN_FLIGHT_GRACE_NANOS);
        while (completed.get() + failed.get() < placed && System.nanoTime() < lastWait) {
            Thread.sleep(WAIT_POLL_MS);
        }
        return completed.get();
    }

    /** The call's place in the window goes to the next call, and the window grows by one up to its maximum. */
    private void callEnded(String callId) {
        PlacedCall call = calls.remove(callId);
        if (call != null && call.givePlaceBack()) {
            window.release();
        }
        if (granted.getAndUpdate(g -> Math.min(maxWindow, g + 1)) < maxWindow) {
            window.release();
        }
    }

    /** The ACK of a failure answer, on the INVITE's branch (RFC 3261 §17.1.1.3). */
    private String ackOfFailure(Message response, String callId) {
        String gw = gateway.getAddress().getHostAddress() + ":" + gateway.getPort();
        PlacedCall call = calls.get(callId);
        return "ACK sip:" + (call == null ? "" : call.user()) + "@" + gw + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + callerSocket.getLocalPort() + ";branch=z9hG4bK" + callId.hashCode()
                + "i;rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: " + response.header("from") + "\r\n"
                + "To: " + response.header("to") + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    private static int parseStatus(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException notAResponse) {
            return 0;
        }
    }

    private void expireStuckCalls() {
        long now = System.nanoTime();
        calls.values().forEach(call -> {
            if (now - call.sentNanos() > CALL_TIMEOUT_NANOS && call.givePlaceBack()) {
                window.release();
            }
        });
    }

    private String invite(String callId, String number) {
        String sdp = String.format(Locale.ROOT, SDP, host);
        String gw = gateway.getAddress().getHostAddress() + ":" + gateway.getPort();
        return "INVITE sip:" + number + "@" + gw + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + callerSocket.getLocalPort() + ";branch=z9hG4bK" + callId.hashCode()
                + "i;rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:warm-up@" + host + ">;tag=c" + Integer.toHexString(callId.hashCode()) + "\r\n"
                + "To: <sip:" + number + "@" + gw + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:warm-up@" + host + ":" + callerSocket.getLocalPort() + ">\r\n"
                + "Content-Type: application/sdp\r\n"
                + "Content-Length: " + sdp.length() + "\r\n\r\n" + sdp;
    }

    /**
     * The caller: on the 200 to its INVITE, ACK and BYE along the route set; on the 200 to its BYE, done; on a
     * failure to its INVITE, the ACK and the next call.
     */
    private void onCallerMessage(Message message, InetSocketAddress from) throws IOException {
        String callId = message.header("call-id");
        String cseq = message.header("cseq");
        int status = message.firstLine.length() >= 12 ? parseStatus(message.firstLine.substring(8, 11)) : 0;
        if (status >= 300 && cseq.endsWith("INVITE") && ended.add(callId)) {
            failed.incrementAndGet();
            send(callerSocket, ackOfFailure(message, callId), from);
            callEnded(callId);
            return;
        }
        if (status != 200) {
            return;
        }
        if (cseq.endsWith("BYE")) {
            if (ended.add(callId)) {
                completed.incrementAndGet();
                callEnded(callId);
            }
            return;
        }
        // A call whose place was given to the next one is still ended, or its dialog would stay in the gateway.
        if (!cseq.endsWith("INVITE") || !callId.startsWith("warm-up-") || ended.contains(callId)) {
            return;
        }
        List<String> recordRoutes = message.headers("record-route");
        String target = uriOf(message.header("contact"));
        StringBuilder routes = new StringBuilder();
        for (int i = recordRoutes.size() - 1; i >= 0; i--) {
            routes.append("Route: ").append(recordRoutes.get(i)).append("\r\n");
        }
        for (String method : List.of("ACK", "BYE")) {
            String request = method + " " + target + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP " + host + ":" + callerSocket.getLocalPort() + ";branch=z9hG4bK"
                    + (callId + method).hashCode() + "d;rport\r\n"
                    + routes
                    + "Max-Forwards: 70\r\n"
                    + "From: " + message.header("from") + "\r\n"
                    + "To: " + message.header("to") + "\r\n"
                    + "Call-ID: " + callId + "\r\n"
                    + "CSeq: " + (method.equals("ACK") ? "1 ACK" : "2 BYE") + "\r\n"
                    + "Content-Length: 0\r\n\r\n";
            send(callerSocket, request, from);
        }
    }

    /** The carrier: 180 and 200 (with SDP) to an INVITE, 200 to a BYE; the gateway's Vias and Record-Routes copied. */
    private void onCarrierMessage(Message message, InetSocketAddress from) throws IOException {
        String method = message.firstLine.substring(0, Math.max(0, message.firstLine.indexOf(' ')));
        if (method.equals("INVITE")) {
            String tag = ";tag=r" + Integer.toHexString(message.header("call-id").hashCode());
            send(carrierSocket, response(message, "180 Ringing", tag, ""), from);
            send(carrierSocket, response(message, "200 OK", tag, String.format(Locale.ROOT, SDP, host)), from);
        } else if (method.equals("BYE")) {
            send(carrierSocket, response(message, "200 OK", "", ""), from);
        }
    }

    private String response(Message request, String status, String toTag, String sdp) {
        StringBuilder response = new StringBuilder("SIP/2.0 ").append(status).append("\r\n");
        for (String via : request.headers("via")) {
            response.append("Via: ").append(via).append("\r\n");
        }
        for (String recordRoute : request.headers("record-route")) {
            response.append("Record-Route: ").append(recordRoute).append("\r\n");
        }
        response.append("From: ").append(request.header("from")).append("\r\n")
                .append("To: ").append(request.header("to")).append(toTag).append("\r\n")
                .append("Call-ID: ").append(request.header("call-id")).append("\r\n")
                .append("CSeq: ").append(request.header("cseq")).append("\r\n")
                .append("Contact: <sip:callee@").append(host).append(':').append(carrierSocket.getLocalPort())
                .append(">\r\n");
        if (!sdp.isEmpty()) {
            response.append("Content-Type: application/sdp\r\n");
        }
        return response.append("Content-Length: ").append(sdp.length()).append("\r\n\r\n").append(sdp).toString();
    }

    private static String uriOf(String nameAddr) {
        int open = nameAddr.indexOf('<');
        int close = nameAddr.indexOf('>');
        return open >= 0 && close > open ? nameAddr.substring(open + 1, close) : nameAddr.trim();
    }

    private static void send(DatagramSocket socket, String text, InetSocketAddress to) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }

    private interface Handler {
        void handle(Message message, InetSocketAddress from) throws IOException;
    }

    private void serve(DatagramSocket socket, Handler handler) {
        byte[] buffer = new byte[65_535];
        while (running) {
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(packet);
                handler.handle(Message.parse(new String(packet.getData(), 0, packet.getLength(),
                        StandardCharsets.US_ASCII)), (InetSocketAddress) packet.getSocketAddress());
            } catch (SocketTimeoutException idle) {
                // look at running again
            } catch (IOException | RuntimeException e) {
                if (running) {
                    log.debug("warm-up message not handled: {}", e.toString());
                }
            }
        }
    }

    /** A received message's first line and headers (full names, as the gateway writes them). */
    private record Message(String firstLine, List<String[]> headers) {
        static Message parse(String text) {
            int end = text.indexOf("\r\n\r\n");
            String[] lines = (end < 0 ? text : text.substring(0, end)).split("\r\n");
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.add(new String[] {lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            lines[i].substring(colon + 1).trim()});
                }
            }
            return new Message(lines[0], headers);
        }

        String header(String name) {
            return headers.stream().filter(h -> h[0].equals(name)).map(h -> h[1]).findFirst().orElse("");
        }

        /** Every value of {@code name}, in order, with comma-joined values split. */
        List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (String[] header : headers) {
                if (header[0].equals(name)) {
                    for (String value : header[1].split(",(?=\\s*<)")) {
                        values.add(value.trim());
                    }
                }
            }
            return values;
        }
    }

    @Override
    public void close() {
        running = false;
        callerSocket.close();
        carrierSocket.close();
        // The sockets are closed, so each thread leaves its receive at once: the warm-up ends with its threads.
        try {
            callerThread.join(TIMEOUT_MS);
            carrierThread.join(TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A warm-up call: the user part it was sent to (for the ACK of a failure), when its INVITE left, and whether it
     * still holds a place in the window (given back once: when it ends, or earlier when it is stuck).
     */
    private record PlacedCall(String user, long sentNanos, AtomicBoolean holdsPlace) {
        PlacedCall(String user, long sentNanos) {
            this(user, sentNanos, new AtomicBoolean(true));
        }

        boolean givePlaceBack() {
            return holdsPlace.compareAndSet(true, false);
        }
    }
}

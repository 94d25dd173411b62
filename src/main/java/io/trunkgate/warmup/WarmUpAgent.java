package io.trunkgate.warmup;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caller and the carrier of the gateway's warm-up calls, on two UDP sockets of a loopback address no peer
 * claims: INVITE (with SDP), the carrier's provisional and final answers, ACK, and for an answered call a BYE from
 * one side along the gateway's Record-Route, answered 200; each call in one of the {@link WarmUpShape}s, in turn.
 * Plain text over sockets, so the warm-up exercises only the gateway's own code, and nothing here is a second SIP
 * stack to start and stop.
 */
final class WarmUpAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WarmUpAgent.class);
    private static final int TIMEOUT_MS = 200;
    private static final long POLL_MS = 100;
    private static final int FIRST_WINDOW = 2;
    private static final long CALL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long IN_FLIGHT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long WAIT_POLL_MS = 5;
    /**
     * An INVITE nothing was heard about is sent again after this (RFC 3261's T1), at most {@link #RESENDS} times: a
     * busy gateway drops a new INVITE that waited this long for its call's loop, counting on the sender to send it
     * again.
     */
    private static final long RESEND_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int RESENDS = 4;
    private static final String SDP = "v=0\r\no=warm-up 1 1 IN IP4 %1$s\r\ns=-\r\nc=IN IP4 %1$s\r\nt=0 0\r\n"
            + "m=audio 40000 RTP/AVP 0 8 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r\n"
            + "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n";

    private final InetSocketAddress gateway;
    private final DatagramSocket callerSocket;
    private final DatagramSocket carrierSocket;
    private final String host;
    private final String sdp;
    /** Calls placed and not ended, by Call-ID. */
    private final Map<String, PlacedCall> calls = new ConcurrentHashMap<>();
    private volatile Semaphore window = new Semaphore(0);
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger granted = new AtomicInteger();
    private volatile int maxWindow;
    private volatile int placed;
    private final AtomicInteger completed = new AtomicInteger();
    private final String callIdPrefix;
    private final Thread callerThread;
    private final Thread carrierThread;
    private volatile boolean running = true;

    /** @param callIdPrefix what each call's Call-ID starts with, so that the starting gateway lets it in */
    WarmUpAgent(InetAddress address, InetSocketAddress gateway, String callIdPrefix) throws IOException {
        this.gateway = gateway;
        this.callIdPrefix = callIdPrefix;
        this.host = address.getHostAddress();
        this.sdp = String.format(Locale.ROOT, SDP, host);
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

    /** Calls completed so far: ended as their shape has them end (BYE answered 200, or the carrier's 486). */
    int completed() {
        return completed.get();
    }

    /** Calls that got a failure answer their shape does not expect (503 while Redis was slow to warm, say). */
    int failed() {
        return failed.get();
    }

    /** Where the warm-up carrier listens, for its {@code uri}. */
    String carrierUri() {
        return "sip:" + host + ":" + carrierSocket.getLocalPort() + ";transport=udp";
    }

    /**
     * Places {@code count} calls, and more while {@code more} says so, at most {@code concurrency} at a time, each
     * to {@code number} plus its index; returns how many completed (see {@link #completed()}) before
     * {@code deadlineNanos}.
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
                resendUnheardInvites();
                continue;
            }
            String callId = callIdPrefix + i + "-" + System.nanoTime() + "@" + host;
            WarmUpShape shape = WarmUpShape.of(placed + sent);
            String to = number + i;
            String invite = shape.invite(to, callId, host + ":" + callerSocket.getLocalPort(), gatewayHostPort(),
                    branch(callId), "c" + Integer.toHexString(callId.hashCode()), sdp);
            PlacedCall call = new PlacedCall(shape, "sip:" + to + "@" + gatewayHostPort(), invite, System.nanoTime());
            calls.put(callId, call);
            sendInvite(call);
            i++;
            sent++;
        }
        placed += sent;
        // Late calls still end (see onCallerMessage): wait for them too, up to the deadline, and for the calls the
        // deadline caught in flight (each takes milliseconds) a moment more. The gateway ends what is left after.
        long lastWait = Math.max(deadlineNanos, System.nanoTime() + IN_FLIGHT_GRACE_NANOS);
        while (completed.get() + failed.get() < placed && System.nanoTime() < lastWait) {
            Thread.sleep(WAIT_POLL_MS);
            resendUnheardInvites();
        }
        return completed.get();
    }

    private void sendInvite(PlacedCall call) {
        try {
            send(callerSocket, call.invite(), gateway);
        } catch (IOException e) {
            log.debug("warm-up INVITE not sent: {}", e.toString());
        }
    }

    /** The INVITEs that have heard nothing back (not even 100 Trying) for {@link #RESEND_NANOS}, sent again. */
    private void resendUnheardInvites() {
        long now = System.nanoTime();
        for (PlacedCall call : calls.values()) {
            if (!call.heard().get() && now - call.lastSentNanos().get() >= RESEND_NANOS
                    && call.resends().get() < RESENDS) {
                call.resends().incrementAndGet();
                call.lastSentNanos().set(now);
                sendInvite(call);
            }
        }
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
    private String ackOfFailure(Message response, String callId, String requestUri) {
        return "ACK " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + callerSocket.getLocalPort() + ";branch=" + branch(callId)
                + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: " + response.header("from") + "\r\n"
                + "To: " + response.header("to") + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseqNumber(response) + " ACK\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** The INVITE's Via branch. */
    private static String branch(String callId) {
        return "z9hG4bK" + callId.hashCode() + "i";
    }

    private String gatewayHostPort() {
        return gateway.getAddress().getHostAddress() + ":" + gateway.getPort();
    }

    private static long cseqNumber(Message message) {
        String cseq = message.header("cseq").trim();
        int space = cseq.indexOf(' ');
        try {
            return Long.parseLong(space < 0 ? cseq : cseq.substring(0, space));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** Counts the call as completed or failed, once, and gives its place to the next. */
    private void ended(String callId, boolean asPlanned) {
        if (ended.add(callId)) {
            (asPlanned ? completed : failed).incrementAndGet();
            callEnded(callId);
        }
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

    /**
     * The caller: on a final answer to its INVITE, the ACK (on the 200, along the route set), and the BYE when it
     * is the one to hang up; on the 200 to its BYE, done; on a BYE from the callee, 200.
     */
    private void onCallerMessage(Message message, InetSocketAddress from) throws IOException {
        String callId = message.header("call-id");
        String cseq = message.header("cseq");
        if (message.isRequest()) {
            if (message.method().equals("BYE")) {
                send(callerSocket, WarmUpShape.response("200 OK", message.echo(), "", "", "", ""), from);
            }
            return;
        }
        int status = message.status();
        PlacedCall call = calls.get(callId);
        if (call != null && cseq.endsWith("INVITE")) {
            call.heard().set(true);
        }
        if (status >= 300 && cseq.endsWith("INVITE")) {
            if (call != null) {
                send(callerSocket, ackOfFailure(message, callId, call.requestUri()), from);
            }
            ended(callId, call != null && status == call.shape().expectedFinal());
            return;
        }
        if (status != 200) {
            return;
        }
        if (cseq.endsWith("BYE")) {
            ended(callId, true);
            return;
        }
        // A call whose place was given to the next one is still ended, or its dialog would stay in the gateway.
        if (!cseq.endsWith("INVITE") || call == null || ended.contains(callId)) {
            return;
        }
        List<String> recordRoutes = new ArrayList<>(message.headers("record-route"));
        Collections.reverse(recordRoutes);
        String routes = routeSet(recordRoutes);
        String target = uriOf(message.header("contact"));
        long invite = cseqNumber(message);
        send(callerSocket, inDialog("ACK", invite, target, routes, message.header("from"), message.header("to"),
                callId, callerSocket, (callId + "ACK").hashCode() + "d"), from);
        if (call.shape().hangup == WarmUpShape.Hangup.CALLER) {
            send(callerSocket, inDialog("BYE", invite + 1, target, routes, message.header("from"),
                    message.header("to"), callId, callerSocket, (callId + "BYE").hashCode() + "d"), from);
        }
    }

    /**
     * The Route headers of a route set, in the order given: a caller's is the 2xx's Record-Routes reversed, a
     * callee's the INVITE's in order (RFC 3261 §12.1).
     */
    private static String routeSet(List<String> routes) {
        StringBuilder set = new StringBuilder();
        routes.forEach(route -> set.append("Route: ").append(route).append("\r\n"));
        return set.toString();
    }

    /** An ACK or BYE within a dialog, from {@code socket}. */
    private String inDialog(String method, long cseq, String target, String routes, String from, String to,
                            String callId, DatagramSocket socket, String branch) {
        return method + " " + target + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + socket.getLocalPort() + ";branch=z9hG4bK" + branch + ";rport\r\n"
                + routes
                + "Max-Forwards: 70\r\n"
                + "From: " + from + "\r\n"
                + "To: " + to + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /**
     * The carrier: answers an INVITE as the call's shape says (the gateway's Vias and Record-Routes copied), 200 to
     * a BYE; for a call the callee hangs up, the BYE once the ACK is in, and done on its 200.
     */
    private void onCarrierMessage(Message message, InetSocketAddress from) throws IOException {
        String callId = message.header("call-id");
        if (!message.isRequest()) {
            if (message.status() == 200 && message.header("cseq").endsWith("BYE")) {
                ended(callId, true);
            }
            return;
        }
        switch (message.method()) {
            case "INVITE" -> {
                PlacedCall call = calls.get(callId);
                WarmUpShape shape = call == null ? WarmUpShape.PLAIN : call.shape();
                String tag = "r" + Integer.toHexString(callId.hashCode());
                String contact = "<sip:callee@" + host + ":" + carrierSocket.getLocalPort() + ">";
                for (String answer : shape.answers(message.echo(), tag, contact, sdp)) {
                    send(carrierSocket, answer, from);
                }
                if (call != null && shape.hangup == WarmUpShape.Hangup.CALLEE) {
                    call.calleeBye().set(inDialog("BYE", 1, uriOf(message.header("contact")),
                            routeSet(message.headers("record-route")),
                            message.header("to") + ";tag=" + tag, message.header("from"), callId, carrierSocket,
                            (callId + "callee-BYE").hashCode() + "d"));
                }
            }
            case "ACK" -> {
                PlacedCall call = calls.get(callId);
                String bye = call == null ? null : call.calleeBye().getAndSet(null);
                if (bye != null) {
                    send(carrierSocket, bye, from);
                }
            }
            case "BYE" -> send(carrierSocket, WarmUpShape.response("200 OK", message.echo(), "", "", "", ""), from);
            default -> {
                // nothing else comes to the warm-up carrier
            }
        }
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

    /** A received message's first line and headers (names lower case, compact names as the full ones). */
    private record Message(String firstLine, List<String[]> headers) {
        private static final Map<String, String> COMPACT = Map.of("v", "via", "f", "from", "t", "to", "i", "call-id",
                "m", "contact", "l", "content-length", "c", "content-type", "k", "supported");

        static Message parse(String text) {
            int end = text.indexOf("\r\n\r\n");
            String[] lines = (end < 0 ? text : text.substring(0, end)).split("\r\n");
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                    headers.add(new String[] {COMPACT.getOrDefault(name, name), lines[i].substring(colon + 1).trim()});
                }
            }
            return new Message(lines[0], headers);
        }

        boolean isRequest() {
            return !firstLine.startsWith("SIP/2.0 ");
        }

        String method() {
            return firstLine.substring(0, Math.max(0, firstLine.indexOf(' ')));
        }

        /** The status code of a response, 0 if there is none. */
        int status() {
            return firstLine.length() >= 11 ? parseStatus(firstLine.substring(8, 11)) : 0;
        }

        /** The request's headers a response copies (RFC 3261 §8.2.6.2), To last and without its line end. */
        String echo() {
            StringBuilder echo = new StringBuilder();
            for (String name : List.of("Via", "Record-Route", "From", "Call-ID", "CSeq")) {
                for (String[] header : headers) {
                    if (header[0].equalsIgnoreCase(name)) {
                        echo.append(name).append(": ").append(header[1]).append("\r\n");
                    }
                }
            }
            return echo.append("To: ").append(header("to")).toString();
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
     * A warm-up call: its shape, the INVITE's Request-URI (for the ACK of a failure), when its INVITE left, whether
     * it still holds a place in the window (given back once: when it ends, or earlier when it is stuck), and the
     * BYE its carrier sends once the ACK is in, for a call the callee hangs up.
     */
    /** @param heard whether any response to its INVITE came back, after which the gateway retransmits for it */
    private record PlacedCall(WarmUpShape shape, String requestUri, String invite, long sentNanos,
                              AtomicBoolean holdsPlace, AtomicReference<String> calleeBye, AtomicBoolean heard,
                              AtomicLong lastSentNanos, AtomicInteger resends) {
        PlacedCall(WarmUpShape shape, String requestUri, String invite, long sentNanos) {
            this(shape, requestUri, invite, sentNanos, new AtomicBoolean(true), new AtomicReference<>(),
                    new AtomicBoolean(), new AtomicLong(sentNanos), new AtomicInteger());
        }

        boolean givePlaceBack() {
            return holdsPlace.compareAndSet(true, false);
        }
    }
}

package io.trunkgate.testing;

import io.trunkgate.sip.jainsip.JainSip;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.sip.ClientTransaction;
import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.ListeningPoint;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipFactory;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.SipStack;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * A real SIP user agent (JAIN-SIP, its own stack) on a loopback address, playing a caller or a carrier.
 * As a carrier it answers INVITEs the way {@link #behaviour} says and records every request it receives.
 */
public final class SipAgent implements SipListener, AutoCloseable {

    /** How this agent answers an INVITE when it plays a carrier. */
    public enum Behaviour {
        ANSWER, REJECT_503, SILENT, RING,
        /** 180, then 486 Busy Here. */
        BUSY_486,
        /** 100, 180 and 200 back to back. */
        TRY_RING_ANSWER,
        /** 180 at once, 200 after {@link #answerAfter}. */
        RING_THEN_ANSWER,
        /** Nothing of its own (the stack's automatic 100 after 200 ms), 200 after {@link #answerAfter}. */
        ANSWER_LATE,
        /** 180, 183 and 200 back to back, as a carrier whose callee answers at once sends them. */
        RING_PROGRESS_ANSWER,
        /** 180, then two 200s with different To tags, as a forking proxy's two branches would answer. */
        FORK,
        /** 180; a CANCEL gets 200 and a 487 that carries only the CANCEL's Via, as some carriers send. */
        RING_487_WITH_CANCEL_VIA,
        /**
         * 407 Proxy Authentication Required to an INVITE without a Proxy-Authorization header, as most carriers
         * challenge every call; 180 and 200 to one with it.
         */
        CHALLENGE_407
    }

    public record Received(Request request, long atNanos) {
    }

    private static final AddressFactory ADDRESSES;
    private static final HeaderFactory HEADERS;
    private static final MessageFactory MESSAGES;

    static {
        try {
            SipFactory factory = JainSip.factory();
            ADDRESSES = factory.createAddressFactory();
            HEADERS = factory.createHeaderFactory();
            MESSAGES = factory.createMessageFactory();
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SipStack stack;
    private final SipProvider provider;
    private final String host;
    private final int port;
    private final String transport;
    private volatile Behaviour behaviour = Behaviour.ANSWER;
    private volatile long answerAfterMs = 1000;
    private volatile boolean muted;
    private volatile int retryAfterSeconds;
    /** Numbers (Request-URI users) this agent answers 503 with its Retry-After, whatever its behaviour. */
    private final java.util.Set<String> refusedNumbers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile int sessionExpiresSeconds;
    private volatile int contactPort;
    private volatile String assertedIdentity;
    private final java.util.concurrent.ScheduledExecutorService answers =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "agent-answers");
                thread.setDaemon(true);
                return thread;
            });
    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, ServerTransaction> pendingInvites = new ConcurrentHashMap<>();
    private final Map<String, Call> calls = new ConcurrentHashMap<>();
    private final Map<String, Answered> answered = new ConcurrentHashMap<>();
    private final BlockingQueue<Response> calleeResponses = new LinkedBlockingQueue<>();
    /** Responses to requests this agent sent for another agent's dialog ({@link #sendFromHere}), by Call-ID. */
    private final Map<String, BlockingQueue<Response>> othersAnswers = new ConcurrentHashMap<>();

    private SipAgent(SipStack stack, SipProvider provider, String host, int port, String transport) {
        this.stack = stack;
        this.provider = provider;
        this.host = host;
        this.port = port;
        this.transport = transport;
    }

    /**
     * An agent on {@code host} whose stack handles one message at a time, as a user agent sees them: what it records
     * and answers is in the order messages arrived (with several workers, two datagrams that arrive together are
     * handled in either order).
     */
    public static SipAgent start(String host, String transport) throws Exception {
        return start(host, transport, new Properties());
    }

    /**
     * An agent over TLS on {@code host}, presenting {@code identity}'s certificate (as a server, and as a client when
     * asked for one) and trusting certificates issued by {@code trusted}; as a server it asks callers for a client
     * certificate only when {@code askClientCertificate}. A caller with no {@code identity} (null) presents no
     * certificate. JAIN-SIP's own TLS: it checks the chain, not the name. Its key stores go to {@code dir}.
     */
    public static SipAgent startTls(String host, TestCertificates.Issued identity, X509Certificate trusted,
                                    boolean askClientCertificate, Path dir) throws Exception {
        char[] password = "agent-store".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        if (identity != null) {
            keys.setKeyEntry("agent", identity.keys().getPrivate(), password,
                    identity.chain().toArray(new Certificate[0]));
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("trusted", trusted);
        Path keyStore = Files.createTempFile(dir, "agent-keys", ".p12");
        Path trustStore = Files.createTempFile(dir, "agent-trust", ".p12");
        try (OutputStream out = Files.newOutputStream(keyStore)) {
            keys.store(out, password);
        }
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trust.store(out, password);
        }
        Properties properties = new Properties();
        properties.setProperty("javax.net.ssl.keyStore", keyStore.toString());
        properties.setProperty("javax.net.ssl.keyStorePassword", new String(password));
        properties.setProperty("javax.net.ssl.keyStoreType", "PKCS12");
        properties.setProperty("javax.net.ssl.trustStore", trustStore.toString());
        properties.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        properties.setProperty("gov.nist.javax.sip.TLS_CLIENT_PROTOCOLS", "TLSv1.3,TLSv1.2");
        // JAIN-SIP's default suites are RSA key exchange and anonymous ones only: none works with an EC key
        properties.setProperty("gov.nist.javax.sip.ENABLED_CIPHER_SUITES", String.join(",",
                SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites()));
        properties.setProperty("gov.nist.javax.sip.TLS_CLIENT_AUTH_TYPE", askClientCertificate ? "Want" : "Disabled");
        return start(host, ListeningPoint.TLS, properties);
    }

    /**
     * An agent on {@code host} that takes requests over UDP and TCP on one port, as most carriers do; it sends its own
     * requests over UDP.
     */
    public static SipAgent startUdpAndTcp(String host) throws Exception {
        return start(host, ListeningPoint.UDP, new Properties(), ListeningPoint.TCP);
    }

    private static SipAgent start(String host, String transport, Properties properties) throws Exception {
        return start(host, transport, properties, null);
    }

    private static SipAgent start(String host, String transport, Properties properties, String alsoTransport)
            throws Exception {
        SipFactory factory = JainSip.factory();
        properties.setProperty("javax.sip.STACK_NAME", "agent-" + UUID.randomUUID());
        properties.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "off");
        properties.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        properties.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", "1");
        properties.setProperty("gov.nist.javax.sip.STACK_LOGGER", "io.trunkgate.testing.Slf4jStackLogger");
        properties.setProperty("gov.nist.javax.sip.SERVER_LOGGER", "io.trunkgate.testing.Slf4jServerLogger");
        SipStack stack = factory.createSipStack(properties);
        // A port found free can be taken by another process before the bind (builds run side by side): try others.
        int port = 0;
        ListeningPoint point = null;
        for (int attempt = 1; point == null; attempt++) {
            port = io.trunkgate.redis.RedisServerProcess.freePort();
            try {
                point = stack.createListeningPoint(host, port, transport);
            } catch (javax.sip.InvalidArgumentException taken) {
                if (attempt == 5) {
                    throw taken;
                }
            }
        }
        SipProvider provider = stack.createSipProvider(point);
        if (alsoTransport != null) {
            provider.addListeningPoint(stack.createListeningPoint(host, port, alsoTransport));
        }
        SipAgent agent = new SipAgent(stack, provider, host, port, transport);
        provider.addSipListener(agent);
        stack.start();
        return agent;
    }

    public static SipAgent start(String host) throws Exception {
        return start(host, ListeningPoint.UDP);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "sip:" + uriHost() + ":" + port + ";transport=" + transport.toLowerCase(java.util.Locale.ROOT);
    }

    /** The host as a URI writes it: an IPv6 address in brackets (RFC 3261 §25.1). */
    public String uriHost() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    /** Puts {@code port} in this agent's Contact instead of its own, as a caller behind NAT names a port nobody reaches. */
    public void advertiseContactPort(int port) {
        this.contactPort = port;
    }

    /** This agent's INVITEs carry {@code uri} as their P-Asserted-Identity (null: none). */
    public void assertIdentity(String uri) {
        this.assertedIdentity = uri;
    }

    public void behave(Behaviour behaviour) {
        this.behaviour = behaviour;
    }

    /** A muted agent records what it receives and answers nothing at all (OPTIONS included): a dead carrier. */
    public void mute(boolean muted) {
        this.muted = muted;
    }

    /** INVITEs for {@code number} get REJECT_503's answer whatever the behaviour: one destination the carrier refuses. */
    public void refuse(String number) {
        refusedNumbers.add(number);
    }

    /** The Retry-After, in seconds, of REJECT_503's answer (0: none). */
    public void retryAfter(int seconds) {
        this.retryAfterSeconds = seconds;
    }

    /** The session interval (RFC 4028 Session-Expires, refresher uac) this carrier's 200 to an INVITE carries; 0: none. */
    public void sessionExpires(int seconds) {
        this.sessionExpiresSeconds = seconds;
    }

    /** When RING_THEN_ANSWER and ANSWER_LATE answer, counted from the INVITE's arrival. */
    public void answerAfter(java.time.Duration delay) {
        this.answerAfterMs = delay.toMillis();
    }

    /** Requests of {@code method} this agent received so far. */
    public List<Received> received(String method) {
        synchronized (received) {
            return received.stream().filter(r -> r.request().getMethod().equals(method)).toList();
        }
    }

    /** Requests of {@code method} in the call {@code callId} this agent received so far. */
    public long received(String method, String callId) {
        return received(method).stream()
                .filter(r -> ((CallIdHeader) r.request().getHeader(CallIdHeader.NAME)).getCallId().equals(callId))
                .count();
    }

    /** The requests of the call {@code callId} this agent received so far, in the order it handled them. */
    public List<Received> receivedIn(String callId) {
        synchronized (received) {
            return received.stream()
                    .filter(r -> ((CallIdHeader) r.request().getHeader(CallIdHeader.NAME)).getCallId().equals(callId))
                    .toList();
        }
    }

    /** Waits until {@code count} requests of {@code method} in the call have arrived; returns how many did. */
    public long await(String method, String callId, long count, long timeoutMs) throws InterruptedException {
        awaitReceived(() -> received(method, callId) >= count, timeoutMs);
        return received(method, callId);
    }

    public void clear() {
        received.clear();
    }

    /** Waits until {@code count} requests of {@code method} have arrived; returns whether they did. */
    public boolean await(String method, int count, long timeoutMs) throws InterruptedException {
        return awaitReceived(() -> received(method).size() >= count, timeoutMs);
    }

    /** Waits, woken by each request recorded, until {@code condition} holds; returns whether it did in time. */
    private boolean awaitReceived(java.util.function.BooleanSupplier condition, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (received) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(received, left);
            }
            return true;
        }
    }

    // ---- caller side ----

    /** One outgoing call: its INVITE transaction and what came back. */
    public final class Call {
        private final String callId;
        private volatile ClientTransaction invite;
        private final BlockingQueue<Response> responses = new LinkedBlockingQueue<>();
        private final List<Response> all = Collections.synchronizedList(new ArrayList<>());
        private volatile Response answer;
        private long cseq = 1;

        private Call(String callId, ClientTransaction invite) {
            this.callId = callId;
            this.invite = invite;
        }

        public String callId() {
            return callId;
        }

        /** The INVITE as this agent sent it. */
        public Request inviteRequest() {
            return invite.getRequest();
        }

        /** The next response of any status, or null after the timeout. */
        public Response next(long timeoutMs) throws InterruptedException {
            return responses.poll(timeoutMs, TimeUnit.MILLISECONDS);
        }

        /** Waits for a final response to the INVITE (null after the timeout). */
        public Response awaitFinal(long timeoutMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                Response r = left <= 0 ? null : responses.poll(left, TimeUnit.MILLISECONDS);
                if (r == null) {
                    return null;
                }
                if (r.getStatusCode() >= 200 && ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getMethod().equals(Request.INVITE)) {
                    if (r.getStatusCode() < 300) {
                        answer = r;
                    }
                    return r;
                }
            }
        }

        public List<Response> responses() {
            synchronized (all) {
                return List.copyOf(all);
            }
        }

        /**
         * Waits, woken by each response, until the responses so far satisfy {@code condition}; returns them then,
         * or as they are after the timeout.
         */
        public List<Response> awaitResponses(java.util.function.Predicate<List<Response>> condition, long timeoutMs)
                throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            synchronized (all) {
                while (!condition.test(List.copyOf(all))) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(all, left);
                }
                return List.copyOf(all);
            }
        }

        public void cancel() throws Exception {
            provider.getNewClientTransaction(invite.createCancel()).sendRequest();
        }

        public void ack() throws Exception {
            provider.sendRequest(inDialog(Request.ACK, ((CSeqHeader) answer.getHeader(CSeqHeader.NAME)).getSeqNumber()));
        }

        /** Sends BYE inside the dialog without waiting for its answer. */
        public void sendBye() throws Exception {
            provider.getNewClientTransaction(inDialog(Request.BYE, ++cseq)).sendRequest();
        }

        /**
         * Sends the INVITE again after a 401 or 407, as a user agent does: the same Call-ID, From tag and To, the next
         * CSeq, a new branch, and a Proxy-Authorization header (its digest is not checked by the test carriers).
         */
        public void retryWithCredentials() throws Exception {
            retryWithProxyAuthorization("Digest username=\"acme\", realm=\"carrier.test\", nonce=\"n\", uri=\""
                    + invite.getRequest().getRequestURI() + "\", response=\"00000000000000000000000000000000\"");
        }

        /**
         * As {@link #retryWithCredentials}, with a Proxy-Authorization of each of these values, in order (one per
         * realm that challenged the call: {@link DigestClient#answer}).
         */
        public void retryWithProxyAuthorization(String... credentials) throws Exception {
            Request retry = (Request) invite.getRequest().clone();
            ((CSeqHeader) retry.getHeader(CSeqHeader.NAME)).setSeqNumber(++cseq);
            retry.removeHeader(javax.sip.header.ViaHeader.NAME);
            retry.addHeader(HEADERS.createViaHeader(host, port, transport, JainSip.newBranch()));
            retry.removeHeader(javax.sip.header.ProxyAuthorizationHeader.NAME);
            for (String value : credentials) {
                retry.addHeader(HEADERS.createHeader(javax.sip.header.ProxyAuthorizationHeader.NAME, value));
            }
            ClientTransaction transaction = provider.getNewClientTransaction(retry);
            invite = transaction;
            transaction.sendRequest();
        }

        /** The BYE inside the dialog, not sent (another agent may send it: {@link SipAgent#sendFromHere}). */
        public Request byeRequest() throws Exception {
            return inDialog(Request.BYE, ++cseq);
        }

        /** Sends BYE inside the dialog and waits for its final response. */
        public Response bye(long timeoutMs) throws Exception {
            return request(inDialog(Request.BYE, ++cseq), timeoutMs);
        }

        /**
         * Sends {@code method} inside the dialog as SIPp's built-in caller does: to the Request-URI of the
         * INVITE (the gateway), without the Route set the answer's Record-Route asked for.
         */
        public Response withoutRouteSet(String method, long timeoutMs) throws Exception {
            Request request = inDialog(method, ++cseq, invite.getRequest().getRequestURI(), false);
            if (Request.ACK.equals(method)) {
                ((CSeqHeader) request.getHeader(CSeqHeader.NAME)).setSeqNumber(--cseq);
                provider.sendRequest(request);
                return null;
            }
            return request(request, timeoutMs);
        }

        /** Sends {@code method} inside the dialog with its Request-URI replaced by {@code target}. */
        public Response aimedAt(String method, String target, long timeoutMs) throws Exception {
            return request(inDialog(method, ++cseq, ADDRESSES.createURI(target), true), timeoutMs);
        }

        /** A re-INVITE inside the dialog (ACKed when answered 2xx); returns its final response. */
        public Response reinvite(long timeoutMs) throws Exception {
            Request reinvite = inDialog(Request.INVITE, ++cseq);
            SipURI contact = ADDRESSES.createSipURI("caller", uriHost());
            contact.setPort(contactPort > 0 ? contactPort : port);
            contact.setTransportParam(transport.toLowerCase(java.util.Locale.ROOT));
            reinvite.addHeader(HEADERS.createContactHeader(ADDRESSES.createAddress(contact)));
            Response answerToReinvite = request(reinvite, timeoutMs);
            if (answerToReinvite != null && answerToReinvite.getStatusCode() / 100 == 2) {
                provider.sendRequest(inDialog(Request.ACK, cseq));
            }
            return answerToReinvite;
        }

        private Response request(Request request, long timeoutMs) throws Exception {
            String method = request.getMethod();
            provider.getNewClientTransaction(request).sendRequest();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (System.nanoTime() < deadline) {
                Response r = responses.poll(50, TimeUnit.MILLISECONDS);
                if (r != null && r.getStatusCode() >= 200
                        && ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getMethod().equals(method)
                        && ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber() == cseq) {
                    return r;
                }
            }
            return null;
        }

        private Request inDialog(String method, long seq) throws Exception {
            return inDialog(method, seq, ((ContactHeader) answer.getHeader(ContactHeader.NAME)).getAddress().getURI(),
                    true);
        }

        private Request inDialog(String method, long seq, javax.sip.address.URI target, boolean routeSet)
                throws Exception {
            Request original = invite.getRequest();
            Request request = MESSAGES.createRequest(target, method,
                    (CallIdHeader) original.getHeader(CallIdHeader.NAME),
                    HEADERS.createCSeqHeader(seq, method),
                    (javax.sip.header.FromHeader) original.getHeader(javax.sip.header.FromHeader.NAME),
                    (ToHeader) answer.getHeader(ToHeader.NAME),
                    List.of(HEADERS.createViaHeader(host, port, transport, JainSip.newBranch())),
                    HEADERS.createMaxForwardsHeader(70));
            List<RecordRouteHeader> recordRoutes = new ArrayList<>();
            for (ListIterator<?> it = answer.getHeaders(RecordRouteHeader.NAME); routeSet && it.hasNext(); ) {
                recordRoutes.add((RecordRouteHeader) it.next());
            }
            Collections.reverse(recordRoutes);
            for (RecordRouteHeader rr : recordRoutes) {
                request.addHeader(HEADERS.createRouteHeader(rr.getAddress()));
            }
            return request;
        }
    }

    /** Sends an INVITE for {@code user} to the gateway at host:port. */
    public Call invite(String gatewayHost, int gatewayPort, String user) throws Exception {
        return invite(gatewayHost, gatewayPort, user, 70);
    }

    public Call invite(String gatewayHost, int gatewayPort, String user, int maxForwards) throws Exception {
        return invite(gatewayHost, gatewayPort, user, maxForwards, invite -> { });
    }

    /** Sends an INVITE for {@code user} to the gateway at host:port, as {@code shape} changes it (a body, headers). */
    public Call invite(String gatewayHost, int gatewayPort, String user,
                       java.util.function.Consumer<Request> shape) throws Exception {
        return invite(gatewayHost, gatewayPort, user, 70, shape);
    }

    private Call invite(String gatewayHost, int gatewayPort, String user, int maxForwards,
                        java.util.function.Consumer<Request> shape) throws Exception {
        SipURI requestUri = ADDRESSES.createSipURI(user, gatewayHost);
        requestUri.setPort(gatewayPort);
        requestUri.setTransportParam(transport.toLowerCase(java.util.Locale.ROOT));
        Address from = ADDRESSES.createAddress(ADDRESSES.createSipURI("caller", uriHost()));
        Address to = ADDRESSES.createAddress(ADDRESSES.createSipURI(user, gatewayHost));
        String callId = UUID.randomUUID() + "@" + host;
        Request invite = MESSAGES.createRequest(requestUri, Request.INVITE, HEADERS.createCallIdHeader(callId),
                HEADERS.createCSeqHeader(1L, Request.INVITE), HEADERS.createFromHeader(from, JainSip.newTag()),
                HEADERS.createToHeader(to, null),
                List.of(HEADERS.createViaHeader(host, port, transport, JainSip.newBranch())),
                HEADERS.createMaxForwardsHeader(maxForwards));
        SipURI contact = ADDRESSES.createSipURI("caller", uriHost());
        contact.setPort(contactPort > 0 ? contactPort : port);
        contact.setTransportParam(transport.toLowerCase(java.util.Locale.ROOT));
        invite.addHeader(HEADERS.createContactHeader(ADDRESSES.createAddress(contact)));
        if (assertedIdentity != null) {
            invite.addHeader(HEADERS.createHeader("P-Asserted-Identity", "<" + assertedIdentity + ">"));
        }
        shape.accept(invite);
        ClientTransaction transaction = provider.getNewClientTransaction(invite);
        Call call = new Call(callId, transaction);
        calls.put(callId, call);
        transaction.sendRequest();
        return call;
    }

    // ---- carrier side ----

    @Override
    public void processRequest(RequestEvent event) {
        Request request = event.getRequest();
        synchronized (received) {
            received.add(new Received(request, System.nanoTime()));
            received.notifyAll();
        }
        if (muted) {
            return;
        }
        try {
            switch (request.getMethod()) {
                case Request.INVITE -> onInvite(event);
                case Request.CANCEL -> onCancel(event);
                case Request.ACK -> { }
                default -> respond(event, Response.OK);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void onInvite(RequestEvent event) throws Exception {
        Request request = event.getRequest();
        ServerTransaction st = event.getServerTransaction() != null ? event.getServerTransaction()
                : provider.getNewServerTransaction(request);
        String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
        boolean refusedNumber = request.getRequestURI() instanceof SipURI uri && uri.getUser() != null
                && refusedNumbers.contains(uri.getUser());
        Behaviour answering = refusedNumber ? Behaviour.REJECT_503 : behaviour;
        if (answering == Behaviour.CHALLENGE_407) {
            if (request.getHeader(javax.sip.header.ProxyAuthorizationHeader.NAME) == null) {
                Response challenge = tagged(MESSAGES.createResponse(Response.PROXY_AUTHENTICATION_REQUIRED, request));
                challenge.addHeader(HEADERS.createHeader(javax.sip.header.ProxyAuthenticateHeader.NAME,
                        "Digest realm=\"carrier.test\", nonce=\"" + UUID.randomUUID() + "\", algorithm=MD5"));
                st.sendResponse(challenge);
                return;
            }
            answering = Behaviour.ANSWER;
        }
        switch (answering) {
            case SILENT, CHALLENGE_407 -> { }
            case REJECT_503 -> {
                Response refusal = tagged(MESSAGES.createResponse(Response.SERVICE_UNAVAILABLE, request));
                if (retryAfterSeconds > 0) {
                    refusal.addHeader(HEADERS.createRetryAfterHeader(retryAfterSeconds));
                }
                st.sendResponse(refusal);
            }
            case BUSY_486 -> {
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                st.sendResponse(tagged(MESSAGES.createResponse(Response.BUSY_HERE, request)));
            }
            case FORK -> {
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                answer(st, request, callId);
                Response second = tagged(MESSAGES.createResponse(Response.OK, request));
                SipURI contact = ADDRESSES.createSipURI("fork2", uriHost());
                contact.setPort(contactPort > 0 ? contactPort : port);
                second.addHeader(HEADERS.createContactHeader(ADDRESSES.createAddress(contact)));
                provider.sendResponse(second);
            }
            case TRY_RING_ANSWER -> {
                st.sendResponse(MESSAGES.createResponse(Response.TRYING, request));
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                answer(st, request, callId);
            }
            case RING_PROGRESS_ANSWER -> {
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                st.sendResponse(MESSAGES.createResponse(Response.SESSION_PROGRESS, request));
                answer(st, request, callId);
            }
            case RING, RING_487_WITH_CANCEL_VIA -> {
                pendingInvites.put(callId, st);
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
            }
            case RING_THEN_ANSWER, ANSWER_LATE -> {
                if (behaviour == Behaviour.RING_THEN_ANSWER) {
                    st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                }
                answers.schedule(() -> {
                    try {
                        answer(st, request, callId);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, answerAfterMs, TimeUnit.MILLISECONDS);
            }
            case ANSWER -> {
                st.sendResponse(MESSAGES.createResponse(Response.RINGING, request));
                answer(st, request, callId);
            }
        }
    }

    private void answer(ServerTransaction st, Request request, String callId) throws Exception {
        Response ok = tagged(MESSAGES.createResponse(Response.OK, request));
        SipURI contact = ADDRESSES.createSipURI("carrier", uriHost());
        contact.setPort(contactPort > 0 ? contactPort : port);
        contact.setTransportParam(transport.toLowerCase(java.util.Locale.ROOT));
        ok.addHeader(HEADERS.createContactHeader(ADDRESSES.createAddress(contact)));
        if (sessionExpiresSeconds > 0) {
            ok.addHeader(HEADERS.createHeader("Session-Expires", sessionExpiresSeconds + ";refresher=uac"));
        }
        if (((ToHeader) request.getHeader(ToHeader.NAME)).getTag() == null) {
            answered.put(callId, new Answered(request, ((ToHeader) ok.getHeader(ToHeader.NAME)).getTag()));
        }
        st.sendResponse(ok);
    }

    private void onCancel(RequestEvent event) throws Exception {
        respond(event, Response.OK);
        String callId = ((CallIdHeader) event.getRequest().getHeader(CallIdHeader.NAME)).getCallId();
        ServerTransaction invite = pendingInvites.remove(callId);
        if (invite != null && behaviour == Behaviour.RING_487_WITH_CANCEL_VIA) {
            Response terminated = tagged(MESSAGES.createResponse(Response.REQUEST_TERMINATED, invite.getRequest()));
            terminated.removeHeader(javax.sip.header.ViaHeader.NAME);
            terminated.addHeader((javax.sip.header.ViaHeader) event.getRequest().getHeader(javax.sip.header.ViaHeader.NAME).clone());
            provider.sendResponse(terminated);
        } else if (invite != null) {
            invite.sendResponse(tagged(MESSAGES.createResponse(Response.REQUEST_TERMINATED, invite.getRequest())));
        }
    }

    private void respond(RequestEvent event, int status) throws Exception {
        ServerTransaction st = event.getServerTransaction() != null ? event.getServerTransaction()
                : provider.getNewServerTransaction(event.getRequest());
        st.sendResponse(tagged(MESSAGES.createResponse(status, event.getRequest())));
    }

    private static Response tagged(Response response) throws Exception {
        ToHeader to = (ToHeader) response.getHeader(ToHeader.NAME);
        if (to.getTag() == null) {
            to.setTag(JainSip.newTag());
        }
        return response;
    }

    /** A call this agent answered as a carrier: the INVITE as it arrived and the tag of its 200. */
    private record Answered(Request invite, String tag) {
    }

    /**
     * Hangs up, as the callee, the call {@code callId} this agent answered: a BYE to the caller's Contact along
     * the INVITE's Record-Route; returns its final response.
     */
    public Response byeFromCallee(String callId, long timeoutMs) throws Exception {
        return byeFromCallee(callId, null, timeoutMs);
    }

    /**
     * The BYE this agent would send, as the callee, to end the call {@code callId} it answered (not sent): to the
     * caller's Contact along the INVITE's Record-Route.
     */
    public Request calleeBye(String callId) throws Exception {
        Answered call = answered.get(callId);
        Request invite = call.invite();
        javax.sip.header.FromHeader caller = (javax.sip.header.FromHeader) invite.getHeader(javax.sip.header.FromHeader.NAME);
        ToHeader callee = (ToHeader) invite.getHeader(ToHeader.NAME);
        Request bye = MESSAGES.createRequest(((ContactHeader) invite.getHeader(ContactHeader.NAME)).getAddress().getURI(),
                Request.BYE, (CallIdHeader) invite.getHeader(CallIdHeader.NAME), HEADERS.createCSeqHeader(1L, Request.BYE),
                HEADERS.createFromHeader(callee.getAddress(), call.tag()),
                HEADERS.createToHeader(caller.getAddress(), caller.getTag()),
                List.of(HEADERS.createViaHeader(host, port, transport, JainSip.newBranch())),
                HEADERS.createMaxForwardsHeader(70));
        for (ListIterator<?> it = invite.getHeaders(RecordRouteHeader.NAME); it.hasNext(); ) {
            bye.addHeader(HEADERS.createRouteHeader(((RecordRouteHeader) it.next()).getAddress()));
        }
        return bye;
    }

    /** As {@link #byeFromCallee(String, long)}, the BYE carrying {@code reason} as its Reason header (null: none). */
    public Response byeFromCallee(String callId, String reason, long timeoutMs) throws Exception {
        Request bye = calleeBye(callId);
        if (reason != null) {
            bye.addHeader(HEADERS.createHeader("Reason", reason));
        }
        provider.getNewClientTransaction(bye).sendRequest();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            Response r = calleeResponses.poll(50, TimeUnit.MILLISECONDS);
            if (r != null && r.getStatusCode() >= 200 && callId.equals(((CallIdHeader) r.getHeader(CallIdHeader.NAME)).getCallId())) {
                return r;
            }
        }
        return null;
    }

    /**
     * Sends {@code request}, which another agent made for its dialog, from this agent's own address (its Via made
     * this agent's): a party of the dialog speaking from a second address. Returns its final response, or null after
     * the timeout.
     */
    public Response sendFromHere(Request request, long timeoutMs) throws Exception {
        Request copy = (Request) request.clone();
        copy.removeHeader(javax.sip.header.ViaHeader.NAME);
        copy.addHeader(HEADERS.createViaHeader(host, port, transport, JainSip.newBranch()));
        String callId = ((CallIdHeader) copy.getHeader(CallIdHeader.NAME)).getCallId();
        BlockingQueue<Response> answers = new LinkedBlockingQueue<>();
        othersAnswers.put(callId, answers);
        try {
            provider.getNewClientTransaction(copy).sendRequest();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true) {
                long left = deadline - System.nanoTime();
                Response r = left <= 0 ? null : answers.poll(left, TimeUnit.NANOSECONDS);
                if (r == null || r.getStatusCode() >= 200) {
                    return r;
                }
            }
        } finally {
            othersAnswers.remove(callId);
        }
    }

    @Override
    public void processResponse(ResponseEvent event) {
        Response response = event.getResponse();
        BlockingQueue<Response> forOther = othersAnswers.get(((CallIdHeader) response.getHeader(CallIdHeader.NAME)).getCallId());
        if (forOther != null) {
            forOther.add(response);
            return;
        }
        if (Request.BYE.equals(((CSeqHeader) response.getHeader(CSeqHeader.NAME)).getMethod())
                && answered.containsKey(((CallIdHeader) response.getHeader(CallIdHeader.NAME)).getCallId())) {
            calleeResponses.add(response);
            return;
        }
        Call call = calls.get(((CallIdHeader) response.getHeader(CallIdHeader.NAME)).getCallId());
        if (call != null) {
            synchronized (call.all) {
                call.all.add(response);
                call.all.notifyAll();
            }
            call.responses.add(response);
        }
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
    }

    @Override
    public void processDialogTerminated(DialogTerminatedEvent event) {
    }

    @Override
    public void close() {
        answers.shutdownNow();
        stop(stack);
    }

    /**
     * Stops {@code stack} without the one second JAIN-SIP's {@code SIPTransactionStack.stopStack} sleeps after its
     * sockets are closed: the stop runs on a thread of its own, interrupted while in that sleep.
     */
    private static void stop(SipStack stack) {
        Thread stopping = new Thread(stack::stop, "sip-agent-stop");
        stopping.start();
        try {
            while (stopping.isAlive()) {
                if (inStopStackSleep(stopping)) {
                    stopping.interrupt();
                }
                stopping.join(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean inStopStackSleep(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (!frame.getClassName().equals(Thread.class.getName())) {
                return frame.getClassName().equals("gov.nist.javax.sip.stack.SIPTransactionStack")
                        && frame.getMethodName().equals("stopStack") && thread.getState() == Thread.State.TIMED_WAITING;
            }
        }
        return false;
    }
}

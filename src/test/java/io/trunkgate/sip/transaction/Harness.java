package io.trunkgate.sip.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * A transaction layer on one manual loop and a recording wire, with a listener, request handler and stray handler
 * that write down what they hear, and when.
 */
final class Harness {

    final ManualLoop loop = new ManualLoop();
    final RecordingWire wire = new RecordingWire(loop);
    /** What the client listener, the request handler and the stray handler heard, as "what @ms". */
    final List<String> events = new ArrayList<>();
    final List<IncomingRequest> incoming = new ArrayList<>();
    final List<Response> responses = new ArrayList<>();
    final List<Response> strays = new ArrayList<>();
    final List<Request> acks = new ArrayList<>();
    final TransactionLayer layer;

    Harness() {
        this(TransactionTimers.RFC);
    }

    Harness(TransactionTimers timers) {
        this(timers, callId -> null);
    }

    /** With a second loop for the Call-IDs {@code elsewhere} names. */
    Harness(TransactionTimers timers, Function<String, Scheduler> elsewhere) {
        layer = TransactionLayer.create(wire, callId -> {
            Scheduler other = elsewhere.apply(callId);
            return other != null ? other : loop;
        }, timers, handler(), (response, source) -> {
            strays.add(response);
            event("stray " + response.getStatusCode());
        });
    }

    final ClientListener listener = new ClientListener() {
        @Override
        public void provisional(ClientTransaction transaction, Response response) {
            responses.add(response);
            event("provisional " + response.getStatusCode());
        }

        @Override
        public void finalResponse(ClientTransaction transaction, Response response) {
            responses.add(response);
            event("final " + response.getStatusCode());
        }

        @Override
        public void timeout(ClientTransaction transaction, ClientTimeout timer) {
            event("timeout " + timer);
        }

        @Override
        public void transportError(ClientTransaction transaction, Throwable cause) {
            event("transport error");
        }
    };

    private RequestHandler handler() {
        return new RequestHandler() {
            @Override
            public void newRequest(IncomingRequest request) {
                incoming.add(request);
                event("new " + request.request().getMethod());
            }

            @Override
            public void ack(Request ack, Peer source) {
                acks.add(ack);
                event("ack");
            }

            @Override
            public void noAck(ServerTransaction transaction) {
                event("no ack");
            }

            @Override
            public void transportError(ServerTransaction transaction, Throwable cause) {
                event("server transport error");
            }
        };
    }

    private void event(String what) {
        events.add(what + " @" + loop.millis());
    }

    /** Sends {@code request} in a client transaction to {@code to}. */
    ClientTransaction send(Request request, Peer to) {
        return layer.send(request, to, listener);
    }

    /** Sends {@code request} in a client transaction to {@code to}, its Timer C at least {@code timerC}. */
    ClientTransaction send(Request request, Peer to, Duration timerC) {
        return layer.send(request, to, listener, timerC);
    }

    /** A response from the carrier. */
    void carrierSends(Response response) {
        layer.received(response, SipText.CARRIER_UDP);
    }

    /** A request received from {@code from}; the server transaction the handler got for it, taken, if it got it. */
    ServerTransaction receive(Request request, Peer from) {
        int before = incoming.size();
        layer.received(request, from);
        return incoming.size() > before ? incoming.get(incoming.size() - 1).transaction() : null;
    }
}

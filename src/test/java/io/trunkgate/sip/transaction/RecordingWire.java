package io.trunkgate.sip.transaction;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** The wire as a list of what was sent, when and where; told to, it fails sends. */
final class RecordingWire implements Wire {

    /** One message sent. */
    record Sent(long atMillis, Message message, Peer to) {
        String method() {
            return message instanceof Request request ? request.getMethod() : null;
        }

        int status() {
            return message instanceof Response response ? response.getStatusCode() : 0;
        }
    }

    private final ManualLoop loop;
    private final List<Sent> sent = new ArrayList<>();
    private Predicate<Message> failing = message -> false;

    RecordingWire(ManualLoop loop) {
        this.loop = loop;
    }

    @Override
    public CompletionStage<Void> send(Message message, Peer to) {
        sent.add(new Sent(loop.millis(), message, to));
        return failing.test(message)
                ? CompletableFuture.failedFuture(new IOException("connection refused"))
                : CompletableFuture.completedFuture(null);
    }

    /** From now on, the sends of messages {@code which} accepts fail. */
    void fail(Predicate<Message> which) {
        failing = which;
    }

    List<Sent> sent() {
        return sent;
    }

    /** The times, in ms since the start, at which {@code method} requests were sent. */
    List<Long> timesOf(String method) {
        return sent.stream().filter(s -> method.equals(s.method())).map(Sent::atMillis).toList();
    }

    /** The times at which responses with {@code status} were sent. */
    List<Long> timesOf(int status) {
        return sent.stream().filter(s -> s.status() == status).map(Sent::atMillis).toList();
    }

    List<Sent> requests(String method) {
        return sent.stream().filter(s -> method.equals(s.method())).toList();
    }

    Sent last() {
        return sent.get(sent.size() - 1);
    }
}

package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.SipListener;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.health.ProbeSender;
import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.TransactionLayer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Health probes as SIP OPTIONS from the gateway's own listener to one of the carrier's addresses. */
public final class OptionsProber implements ProbeSender {

    private static final Logger log = LoggerFactory.getLogger(OptionsProber.class);

    private final OwnListeners listeners;
    private final TransactionLayer layer;
    private final SipMessages sip;
    private final ScheduledExecutorService timers;
    private final MessageFactory messages;

    public OptionsProber(OwnListeners listeners, TransactionLayer layer, SipMessages sip,
                         ScheduledExecutorService timers) {
        this.listeners = listeners;
        this.layer = layer;
        this.sip = sip;
        this.timers = timers;
        try {
            this.messages = JainSip.factory().createMessageFactory();
        } catch (Exception e) {
            throw new IllegalStateException("JAIN-SIP factories unavailable", e);
        }
    }

    /** A probe's client transaction's listener: its first final response completes it, or nothing does. */
    private record Probe(CompletableFuture<Integer> result) implements ClientListener {

        @Override
        public void provisional(ClientTransaction transaction, Response response) {
        }

        @Override
        public void finalResponse(ClientTransaction transaction, Response response) {
            result.complete(response.getStatusCode());
        }

        @Override
        public void timeout(ClientTransaction transaction, ClientTimeout timer) {
            result.complete(0);
        }

        @Override
        public void transportError(ClientTransaction transaction, Throwable cause) {
            result.complete(0);
        }
    }

    @Override
    public CompletionStage<Integer> probe(CarrierConfig carrier, CarrierAddress address, Duration timeout) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        try {
            Request options = options(carrier, listeners.forTransport(address.transport(), address.ip()));
            ClientTransaction transaction = layer.send(options, Peers.of(address), new Probe(result));
            ScheduledFuture<?> deadline = timers.schedule(() -> result.complete(0), timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
            result.whenComplete((status, error) -> {
                deadline.cancel(false);
                if (Integer.valueOf(0).equals(status)) {
                    // No answer in time: stop retransmitting to a carrier that is not there (Timer F is 32 s).
                    transaction.abandon();
                }
            });
        } catch (Exception e) {
            log.debug("OPTIONS to carrier {} at {} not sent: {}", carrier.id(), address, e.toString());
            result.complete(0);
        }
        return result;
    }

    private Request options(CarrierConfig carrier, SipListener from) throws Exception {
        var addresses = sip.addresses();
        var headers = sip.headers();
        SipURI target = sip.carrierUri(null, carrier.uri());
        SipURI own = addresses.createSipURI("trunkgate", from.host());
        own.setPort(from.port());
        Address fromAddress = addresses.createAddress(own);
        return messages.createRequest(target, Request.OPTIONS,
                headers.createCallIdHeader(UUID.randomUUID() + "@" + from.host()),
                headers.createCSeqHeader(1L, Request.OPTIONS),
                headers.createFromHeader(fromAddress, JainSip.newTag()),
                headers.createToHeader(addresses.createAddress(target), null),
                List.of(sip.via(from)),
                headers.createMaxForwardsHeader(SipMessages.DEFAULT_MAX_FORWARDS));
    }
}

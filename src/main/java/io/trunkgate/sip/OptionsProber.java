package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.health.ProbeSender;
import io.trunkgate.sip.jainsip.JainSip;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.ClientTransaction;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;
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

    private final SipProviders providers;
    private final SipMessages sip;
    private final ScheduledExecutorService timers;
    private final MessageFactory messages;

    public OptionsProber(SipProviders providers, SipMessages sip, ScheduledExecutorService timers) {
        this.providers = providers;
        this.sip = sip;
        this.timers = timers;
        try {
            this.messages = JainSip.factory().createMessageFactory();
        } catch (Exception e) {
            throw new IllegalStateException("JAIN-SIP factories unavailable", e);
        }
    }

    /** The application data of a probe's client transaction: its first final response completes it. */
    static final class Probe {
        private final CompletableFuture<Integer> result;

        Probe(CompletableFuture<Integer> result) {
            this.result = result;
        }

        void answered(Response response) {
            if (response.getStatusCode() >= 200) {
                result.complete(response.getStatusCode());
            }
        }

        void timedOut() {
            result.complete(0);
        }
    }

    @Override
    public CompletionStage<Integer> probe(CarrierConfig carrier, CarrierAddress address, Duration timeout) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        try {
            String transport = address.transport().name();
            SipProvider provider = providers.forTransport(transport, address.ip());
            Request options = options(carrier, provider, transport);
            SipMessages.aim(options, address);
            ClientTransaction transaction = provider.getNewClientTransaction(options);
            transaction.setApplicationData(new Probe(result));
            ScheduledFuture<?> deadline = timers.schedule(() -> result.complete(0), timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
            result.whenComplete((status, error) -> {
                deadline.cancel(false);
                if (Integer.valueOf(0).equals(status)) {
                    // No answer in time: stop retransmitting to a carrier that is not there (Timer F is 32 s).
                    terminate(transaction);
                }
            });
            transaction.sendRequest();
        } catch (Exception e) {
            log.debug("OPTIONS to carrier {} at {} not sent: {}", carrier.id(), address, e.toString());
            result.complete(0);
        }
        return result;
    }

    private static void terminate(ClientTransaction transaction) {
        try {
            transaction.terminate();
        } catch (Exception e) {
            log.debug("probe transaction not terminated: {}", e.toString());
        }
    }

    private Request options(CarrierConfig carrier, SipProvider provider, String transport) throws Exception {
        var addresses = sip.addresses();
        var headers = sip.headers();
        SipURI target = sip.carrierUri(null, carrier.uri());
        ListeningPoint point = SipMessages.listeningPoint(provider, transport);
        SipURI own = addresses.createSipURI("trunkgate", point.getIPAddress());
        own.setPort(point.getPort());
        Address from = addresses.createAddress(own);
        return messages.createRequest(target, Request.OPTIONS,
                headers.createCallIdHeader(UUID.randomUUID() + "@" + point.getIPAddress()),
                headers.createCSeqHeader(1L, Request.OPTIONS),
                headers.createFromHeader(from, JainSip.newTag()),
                headers.createToHeader(addresses.createAddress(target), null),
                List.of(headers.createViaHeader(point.getIPAddress(), point.getPort(), point.getTransport(),
                        JainSip.newBranch())),
                headers.createMaxForwardsHeader(SipMessages.DEFAULT_MAX_FORWARDS));
    }
}

package io.trunkgate.gateway;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.dns.CarrierResolver;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * check-config's look at the carriers' host names, through the configured resolver. A name that does not resolve
 * is a warning, not an error: DNS may be down, or not yet have the name, while a configuration is checked, and
 * the gateway looks it up again at the calls (a carrier that does not resolve is passed over meanwhile).
 */
public final class CarrierHostCheck {

    private CarrierHostCheck() {
    }

    /** One line per carrier whose host name does not resolve now: "carrier <id>: uri: ...". */
    public static List<String> warnings(GatewayConfig config) throws InterruptedException {
        CarrierResolver resolver = CarrierResolver.uncached(config.dns());
        List<CarrierConfig> named = config.carriers().values().stream().filter(c -> !c.uri().hostIsAddress())
                .sorted(Comparator.comparing(CarrierConfig::id)).toList();
        List<CompletableFuture<?>> lookups = named.stream()
                .<CompletableFuture<?>>map(c -> resolver.resolve(c.uri()).toCompletableFuture()).toList();
        // all at once; an RFC 3263 lookup is a few queries in a row, each within dns.timeout
        long waitMs = config.dns().timeout().multipliedBy(4).toMillis();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < named.size(); i++) {
            CarrierConfig carrier = named.get(i);
            String problem;
            try {
                lookups.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                continue;
            } catch (ExecutionException e) {
                problem = e.getCause().getMessage();
            } catch (TimeoutException e) {
                problem = "no answer within " + waitMs + " ms";
            }
            warnings.add("carrier " + carrier.id() + ": uri: " + carrier.uri().host() + " does not resolve now ("
                    + problem + "); calls pass this carrier over until it does");
        }
        return warnings;
    }
}

package io.trunkgate.route;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RouteConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * routes.conf as a lookup: the longest prefix of the dialled number picks the route, whose carriers, each
 * followed by its own alternates, form the call's chain. No carrier appears twice in a chain.
 */
public final class RouteTable {

    private static final Pattern VISUAL_SEPARATORS = Pattern.compile("[-.() ]");
    private static final Pattern NUMBER = Pattern.compile("\\+?[0-9]+");

    private final Map<String, RouteConfig> byPrefix = new HashMap<>();
    private final Map<String, CarrierConfig> carriers;

    public RouteTable(List<RouteConfig> routes, Map<String, CarrierConfig> carriers) {
        routes.forEach(route -> byPrefix.put(route.prefix(), route));
        this.carriers = Map.copyOf(carriers);
    }

    /** The route for a Request-URI user part; a user part that is not a number matches only the "" route. */
    public Optional<RouteConfig> match(String userPart) {
        String number = normalize(userPart);
        for (int length = number.length(); length >= 0; length--) {
            RouteConfig route = byPrefix.get(number.substring(0, length));
            if (route != null) {
                return Optional.of(route);
            }
        }
        return Optional.empty();
    }

    /** The carriers to try for the number, in order; empty when no route matches. */
    public List<CarrierConfig> chain(String userPart) {
        return match(userPart).map(route -> expand(route.carriers())).orElse(List.of());
    }

    public Optional<CarrierConfig> carrier(String id) {
        return Optional.ofNullable(carriers.get(id));
    }

    public Set<String> carrierIds() {
        return carriers.keySet();
    }

    private List<CarrierConfig> expand(List<String> routeCarriers) {
        Set<String> ids = new LinkedHashSet<>(routeCarriers);
        List<String> queue = new ArrayList<>(routeCarriers);
        for (int i = 0; i < queue.size(); i++) {
            for (String alternate : carriers.get(queue.get(i)).alternates()) {
                if (ids.add(alternate)) {
                    queue.add(alternate);
                }
            }
        }
        return ids.stream().map(carriers::get).toList();
    }

    static String normalize(String userPart) {
        String stripped = userPart == null ? "" : VISUAL_SEPARATORS.matcher(userPart).replaceAll("");
        return NUMBER.matcher(stripped).matches() ? stripped : "";
    }
}

package io.trunkgate.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** routes.conf: which carriers, in order, take the numbers starting with each prefix. */
final class RoutesFileReader {

    private static final Pattern PREFIX = Pattern.compile("\\+?[0-9]*");

    private RoutesFileReader() {
    }

    static List<RouteConfig> read(ConfigSection file, IdIndex carriers) {
        List<RouteConfig> routes = new ArrayList<>();
        Map<String, Location> prefixes = new HashMap<>();
        for (Field element : ConfigBounds.atMost(file.required("routes"), ConfigBounds.MAX_ROUTES, "routes")) {
            element.object().flatMap(route -> route(route, carriers, prefixes)).ifPresent(routes::add);
        }
        return routes;
    }

    private static Optional<RouteConfig> route(ConfigSection route, IdIndex carriers, Map<String, Location> prefixes) {
        Field prefixField = route.required("prefix");
        Optional<String> prefix = prefixField.string(PREFIX.asMatchPredicate(),
                "must be digits, optionally after a leading '+' (\"\" matches every number)");
        prefix.ifPresent(value -> {
            Location first = prefixes.putIfAbsent(value, prefixField.at());
            if (first != null) {
                prefixField.error("duplicate prefix \"" + value + "\" (also at line " + first.line() + ")");
            }
        });

        Field carriersField = route.required("carriers");
        List<Field> elements = carriersField.elements().orElse(List.of());
        if (carriersField.isPresent() && elements.isEmpty()) {
            carriersField.error("must list at least one carrier");
        }
        List<String> ids = new ArrayList<>();
        for (Field element : elements) {
            element.id().ifPresent(id -> {
                if (ids.contains(id)) {
                    element.error("carrier \"" + id + "\" is listed twice in this route");
                } else {
                    carriers.refer(id, element.at());
                    ids.add(id);
                }
            });
        }
        return prefix.map(value -> new RouteConfig(value, ids));
    }
}

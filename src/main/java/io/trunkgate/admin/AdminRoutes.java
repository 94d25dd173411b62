package io.trunkgate.admin;

import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * Every route of the admin API: its method, its path as an OpenAPI path template ({@code {id}}: one path
 * segment, handed to the endpoint) and the endpoint of {@link AdminApi} that answers it. docs/openapi.yaml
 * describes each one (OpenApiTest checks that both list the same routes).
 */
final class AdminRoutes {

    /**
     * {@code tokenRequired}: the request needs the admin token ({@link BearerAuth}); every route that changes
     * something does, and a read that shows configured values (a refused reload's errors quote them).
     */
    record Route(HttpMethod method, String path,
                 BiFunction<AdminApi, AdminRouter.Request, CompletionStage<Reply>> endpoint, boolean tokenRequired) {
        /** Reads open to whoever can connect; any other method needs the token. */
        Route(HttpMethod method, String path, BiFunction<AdminApi, AdminRouter.Request, CompletionStage<Reply>> endpoint) {
            this(method, path, endpoint, !method.equals(HttpMethod.GET));
        }
    }

    static final List<Route> ALL = List.of(
            new Route(HttpMethod.GET, "/", (api, request) -> api.statusPage()),
            new Route(HttpMethod.GET, "/health", (api, request) -> api.health()),
            new Route(HttpMethod.GET, "/metrics", (api, request) -> api.metrics()),
            new Route(HttpMethod.GET, "/api/peers", (api, request) -> api.peers()),
            new Route(HttpMethod.GET, "/api/peers/{id}", AdminApi::peer),
            new Route(HttpMethod.GET, "/api/carriers", (api, request) -> api.carriers()),
            new Route(HttpMethod.POST, "/api/carriers/{id}/down", (api, request) -> api.setHealth(request, false)),
            new Route(HttpMethod.POST, "/api/carriers/{id}/up", (api, request) -> api.setHealth(request, true)),
            new Route(HttpMethod.GET, "/api/history", (api, request) -> api.history()),
            new Route(HttpMethod.GET, "/api/listeners", (api, request) -> api.listeners()),
            new Route(HttpMethod.GET, "/api/blocks/{id}", AdminApi::block),
            new Route(HttpMethod.PUT, "/api/blocks/{id}", AdminApi::putBlock),
            new Route(HttpMethod.DELETE, "/api/blocks/{id}", AdminApi::deleteBlock),
            new Route(HttpMethod.GET, "/api/reload", (api, request) -> api.lastReload(), true),
            new Route(HttpMethod.POST, "/api/reload", (api, request) -> api.reload()),
            new Route(HttpMethod.POST, "/api/drain", (api, request) -> api.drain()),
            new Route(HttpMethod.POST, "/api/resume", (api, request) -> api.resume()),
            new Route(HttpMethod.GET, "/api/calls", AdminApi::calls),
            new Route(HttpMethod.POST, "/api/calls/{id}/hangup", AdminApi::hangUp));

    private AdminRoutes() {
    }

    /** A router answering every route with {@code api}'s endpoints. */
    static AdminRouter router(AdminApi api) {
        AdminRouter router = new AdminRouter();
        for (Route route : ALL) {
            router.route(route.method(), pathPattern(route.path()), request -> route.endpoint().apply(api, request));
        }
        return router;
    }

    /**
     * Whether a request needs the admin token: any method but GET and HEAD (404 and 405 come after the token), and
     * a read of a route that says so.
     */
    static boolean tokenRequired(HttpMethod method, String path) {
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            return true;
        }
        return TOKEN_READS.stream().anyMatch(pattern -> pattern.matcher(path).matches());
    }

    private static final List<Pattern> TOKEN_READS = ALL.stream()
            .filter(route -> route.method().equals(HttpMethod.GET) && route.tokenRequired())
            .map(route -> Pattern.compile(pathPattern(route.path()))).toList();

    /** The template as the router's regular expression: each {@code {name}} one segment, captured. */
    static String pathPattern(String template) {
        return template.replaceAll("\\{[^/}]+}", "([^/]+)");
    }
}

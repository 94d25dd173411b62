package io.trunkgate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.AdminDurations;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The commands that ask a running gateway through its admin API (docs/openapi.yaml): what they send, and how
 * they print the answer (or, with {@code --json}, the answer as it came). Exit codes: {@link CliFailure}.
 */
final class AdminCommands {

    static final String EXIT_CODES = "%nExit codes: 0 done; 1 the gateway refused (unknown peer or carrier, reload"
            + " refused...); 2 bad arguments; 3 admin API out of reach; 4 token missing or refused.";

    private AdminCommands() {
    }

    /** What every admin command shares: the options, and turning a failure into its message and exit code. */
    abstract static class AdminCommand implements Callable<Integer> {

        @Mixin
        AdminOptions options;

        @Spec
        CommandSpec spec;

        @Override
        public final Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try {
                return run(options.call(), out);
            } catch (CliFailure e) {
                spec.commandLine().getErr().println("trunkgate " + spec.name() + ": " + e.getMessage());
                spec.commandLine().getErr().flush();
                return e.exitCode();
            } finally {
                out.flush();
            }
        }

        /** Asks the gateway through {@code call} and prints the answer; the exit code. */
        abstract int run(AdminCall call, PrintWriter out);

        /** The answer as it came when --json is given, else {@code text}. */
        int print(PrintWriter out, AdminCall.Answer answer, String text) {
            out.println(options.json ? answer.body() : text);
            return 0;
        }
    }

    static String segment(String pathPart) {
        return URLEncoder.encode(pathPart, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Checked here by the gateway's own rule, so a typo never reaches it. */
    static String duration(String text) {
        try {
            AdminDurations.parse(text);
            return URLEncoder.encode(text.strip(), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(CliFailure.USAGE, e.getMessage());
        }
    }

    static String millis(JsonNode node) {
        return node == null || node.isNull() ? "-" : humanDuration(Duration.ofMillis(node.asLong()));
    }

    /** 500ms, 45s, 1m, 4m58s, 2h, 2h30m, 1d: whole units where they fit. */
    static String humanDuration(Duration d) {
        long s = d.toSeconds();
        if (s < 1) {
            return d.toMillis() + "ms";
        }
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0 && s < 7200) {
            return s / 60 + "m";
        }
        if (s < 60) {
            return s + "s";
        }
        if (s < 7200) {
            return s / 60 + "m" + s % 60 + "s";
        }
        return s / 3600 + "h" + (s % 3600) / 60 + "m";
    }

    /** A ratio as a percentage with one decimal ("97.5%"), "-" when there is none (no attempts). */
    static String percent(JsonNode ratio) {
        return ratio == null || ratio.isNull() ? "-" : String.format(Locale.ROOT, "%.1f%%", ratio.asDouble() * 100);
    }

    static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "-" : value.asText();
    }

    @Command(name = "status", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Show the gateway's health: ready or not, Redis, the configuration, calls in progress.")
    static final class Status extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("GET", "health", 503);
            JsonNode h = answer.json();
            JsonNode redis = h.get("redis");
            JsonNode config = h.get("config");
            StringBuilder text = new StringBuilder();
            text.append("instance ").append(text(h, "instance")).append(": ").append(text(h, "status"))
                    .append(h.get("ready").asBoolean() ? " (ready)" : " (not ready)").append('\n');
            text.append("redis: ").append(redis.get("reachable").asBoolean()
                    ? String.format("reachable (%.1f ms)", redis.get("latencyMs").asDouble())
                    : "unreachable: " + text(redis, "error")).append('\n');
            text.append("config: generation ").append(text(config, "generation")).append(", ")
                    .append(text(config, "source"));
            JsonNode last = config.get("lastReload");
            if (last != null && !last.isNull()) {
                text.append("; last reload ").append(last.get("applied").asBoolean() ? "applied" : "REFUSED")
                        .append(" at ").append(text(last, "at"));
                if (!last.get("applied").asBoolean()) {
                    // why, as `trunkgate reload` prints it: the running configuration is the one before. /health
                    // leaves out the messages (they may quote a secret); GET api/reload has them, with the token.
                    JsonNode errors = call.hasToken() ? call.get("api/reload").json().get("errors")
                            : last.get("errors");
                    text.append(", the running configuration kept:");
                    for (JsonNode e : errors == null || !errors.isArray() ? List.<JsonNode>of() : errors) {
                        text.append("\n  ").append(text(e, "file")).append(':').append(text(e, "line")).append(": ")
                                .append(text(e, "key"));
                        if (e.hasNonNull("message")) {
                            text.append(": ").append(e.get("message").asText());
                        }
                    }
                    if (!call.hasToken()) {
                        text.append("\n  (each error's message: with the admin token, or in the gateway's log)");
                    }
                }
            }
            text.append('\n').append("calls in progress: ").append(text(h, "callsInProgress"))
                    .append(", INVITEs in flight: ").append(text(h, "invitesInFlight"));
            print(out, answer, text.toString());
            return answer.status() == 200 ? 0 : CliFailure.REFUSED;
        }
    }

    @Command(name = "peers", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "List the peers: group, block, over the last 15 minutes their admitted calls, ASR and"
                    + " NER, and each limit's calls in its window, fleet-wide.")
    static final class Peers extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.get("api/peers");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"PEER", "GROUP", "BLOCKED FOR", "CALLS 15M", "ASR", "NER",
                "LIMITS (calls/max per window; a shadow limit refuses nothing, it counts what it would refuse)"});
            for (JsonNode peer : answer.json().get("peers")) {
                List<String> limits = new ArrayList<>();
                for (JsonNode limit : peer.get("limits")) {
                    limits.add(limit.get("scope").asText() + " " + limit.get("used").asLong() + "/"
                            + limit.get("max").asLong() + " per " + millis(limit.get("windowMs")) + shadow(limit));
                }
                JsonNode concurrent = peer.get("concurrent");
                if (concurrent != null && !concurrent.isNull()) {
                    for (JsonNode cap : concurrent) {
                        limits.add(cap.get("scope").asText() + " " + cap.get("calls").asLong() + "/"
                                + cap.get("max").asLong() + " concurrent" + shadow(cap));
                    }
                }
                JsonNode answers = peer.path("answers");
                rows.add(new String[] {text(peer, "id"), text(peer, "group"), millis(peer.get("blockedForMs")),
                        text(answers, "attempts"), percent(answers.get("asr")), percent(answers.get("ner")),
                        String.join("; ", limits)});
            }
            return print(out, answer, Table.of(rows));
        }

        /** " (shadow: would refuse N)" for a limit or cap in shadow mode, else "". */
        private static String shadow(JsonNode limit) {
            if (!"shadow".equals(limit.path("mode").asText())) {
                return "";
            }
            return " (shadow: would refuse " + limit.path("wouldRefuse").asLong() + ")";
        }
    }

    @Command(name = "carriers", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "List the carriers: up or down and why, cps, the wait for a slot, calls held, and over the"
                    + " last 15 minutes the INVITEs sent, ASR, NER and mean post-dial delay.")
    static final class Carriers extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.get("api/carriers");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"CARRIER", "STATE", "REASON", "CPS", "WAIT", "HELD", "ATTEMPTS 15M", "ASR", "NER",
                "PDD"});
            for (JsonNode carrier : answer.json().get("carriers")) {
                JsonNode health = carrier.get("health");
                String state = (health.get("up").asBoolean() ? "up" : "DOWN")
                        + (health.hasNonNull("until") ? " until " + health.get("until").asText() : "");
                JsonNode answers = carrier.path("answers");
                rows.add(new String[] {text(carrier, "id"), state, text(health, "reason"),
                        text(carrier, "cps"), String.format("%.0fms", carrier.get("waitMs").asDouble()),
                        text(carrier, "held"), text(answers, "attempts"), percent(answers.get("asr")),
                        percent(answers.get("ner")),
                        answers.hasNonNull("pddMs") ? answers.get("pddMs").asLong() + "ms" : "-"});
            }
            return print(out, answer, Table.of(rows));
        }
    }

    @Command(name = "block", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Block a peer fleet-wide for a while: its calls are refused until then.")
    static final class Block extends AdminCommand {
        @Parameters(index = "0", paramLabel = "PEER", description = "the peer's id")
        String peer;

        @Parameters(index = "1", paramLabel = "DURATION",
                description = "how long: 500ms, 30s, 10m, 2h, 1d (at most 365d)")
        String duration;

        @Override
        int run(AdminCall call, PrintWriter out) {
            String query = duration(duration);
            AdminCall.Answer answer = call.send("PUT", "api/blocks/" + segment(peer) + "?duration=" + query);
            return print(out, answer, "peer " + peer + " blocked fleet-wide for " + duration.strip());
        }
    }

    @Command(name = "unblock", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Lift a peer's block fleet-wide.")
    static final class Unblock extends AdminCommand {
        @Parameters(index = "0", paramLabel = "PEER", description = "the peer's id")
        String peer;

        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("DELETE", "api/blocks/" + segment(peer));
            return print(out, answer, answer.json().path("lifted").asBoolean()
                    ? "peer " + peer + " unblocked" : "peer " + peer + " was not blocked");
        }
    }

    @Command(name = "carrier-down", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Hold a carrier down fleet-wide for a while: routing passes it over until then.")
    static final class CarrierDown extends AdminCommand {
        @Parameters(index = "0", paramLabel = "CARRIER", description = "the carrier's id")
        String carrier;

        @Parameters(index = "1", paramLabel = "DURATION",
                description = "how long: 500ms, 30s, 10m, 2h, 1d (at most 365d)")
        String duration;

        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("POST", "api/carriers/" + segment(carrier) + "/down?duration="
                    + duration(duration));
            return print(out, answer, describe(carrier, answer.json().get("health")));
        }
    }

    @Command(name = "carrier-up", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Set a carrier up: clears any down state, or holds it up for DURATION whatever checks find.")
    static final class CarrierUp extends AdminCommand {
        @Parameters(index = "0", paramLabel = "CARRIER", description = "the carrier's id")
        String carrier;

        @Parameters(index = "1", arity = "0..1", paramLabel = "DURATION",
                description = "hold it up this long (500ms, 30s, 10m, 2h, 1d); without: just clear a down state")
        String duration;

        @Override
        int run(AdminCall call, PrintWriter out) {
            String path = "api/carriers/" + segment(carrier) + "/up"
                    + (duration == null ? "" : "?duration=" + duration(duration));
            AdminCall.Answer answer = call.send("POST", path);
            return print(out, answer, describe(carrier, answer.json().get("health")));
        }
    }

    static String describe(String carrier, JsonNode health) {
        return "carrier " + carrier + " is " + (health.get("up").asBoolean() ? "up" : "down")
                + (health.hasNonNull("until") ? " until " + health.get("until").asText() : "")
                + " (" + text(health, "reason") + ")";
    }

    @Command(name = "drain", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Drain the gateway: new calls are refused 503 (health says draining), calls in progress"
                    + " go on; it keeps running.")
    static final class Drain extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("POST", "api/drain");
            return print(out, answer, "gateway draining; calls in progress: " + text(answer.json(), "callsInProgress"));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "End a drain started by 'trunkgate drain': new calls are taken again (health ready). A"
                    + " gateway stopping on SIGTERM is refused (exit 1): its drain ends with the process.")
    static final class Resume extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("POST", "api/resume");
            return print(out, answer, "gateway taking new calls; calls in progress: "
                    + text(answer.json(), "callsInProgress"));
        }
    }

    @Command(name = "calls", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "List the calls in progress at the gateway, oldest first: id (for hangup), peer, carrier,"
                    + " numbers, phase, start and answer.")
    static final class Calls extends AdminCommand {
        @Option(names = "--peer", paramLabel = "PEER", description = "only the calls of this peer")
        String peer;

        @Option(names = "--carrier", paramLabel = "CARRIER", description = "only the calls at this carrier")
        String carrier;

        @Option(names = "--number", paramLabel = "NUMBER", description = "only the calls from or to this number")
        String number;

        @Override
        int run(AdminCall call, PrintWriter out) {
            List<String> query = new ArrayList<>();
            for (String[] filter : new String[][] {{"peer", peer}, {"carrier", carrier}, {"number", number}}) {
                if (filter[1] != null) {
                    query.add(filter[0] + "=" + URLEncoder.encode(filter[1], StandardCharsets.UTF_8));
                }
            }
            AdminCall.Answer answer = call.get("api/calls" + (query.isEmpty() ? "" : "?" + String.join("&", query)));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"ID", "PEER", "CARRIER", "FROM", "TO", "PHASE", "STARTED", "ANSWERED"});
            for (JsonNode live : answer.json().get("calls")) {
                rows.add(new String[] {text(live, "id"), text(live, "peer"), text(live, "carrier"),
                        text(live, "caller"), text(live, "callee"), text(live, "phase"), text(live, "startedAt"),
                        text(live, "answeredAt")});
            }
            return print(out, answer, Table.of(rows));
        }
    }

    @Command(name = "hangup", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "End a call in progress: BYE to both ends when answered, else cancelled (487 to the"
                    + " caller); its record says hungUpBy operator.")
    static final class Hangup extends AdminCommand {
        @Parameters(index = "0", paramLabel = "CALL", description = "the call's id, as 'trunkgate calls' lists it")
        String id;

        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("POST", "api/calls/" + segment(id) + "/hangup");
            return print(out, answer, "call " + id + " ended");
        }
    }

    @Command(name = "reload", mixinStandardHelpOptions = true, footer = EXIT_CODES,
            description = "Reload the configuration files now; a configuration that does not validate is refused"
                    + " and the running one kept.")
    static final class Reload extends AdminCommand {
        @Override
        int run(AdminCall call, PrintWriter out) {
            AdminCall.Answer answer = call.send("POST", "api/reload");
            JsonNode result = answer.json();
            if (result.path("applied").asBoolean()) {
                return print(out, answer, "configuration generation " + text(result, "generation") + " applied");
            }
            print(out, answer, text(result, "error"));
            PrintWriter err = spec.commandLine().getErr();
            JsonNode errors = result.get("errors");
            if (errors != null && !errors.isNull() && !options.json) {
                for (JsonNode e : errors) {
                    err.println(text(e, "file") + ":" + text(e, "line") + ": " + text(e, "key") + ": "
                            + text(e, "message"));
                }
            }
            err.flush();
            return CliFailure.REFUSED;
        }
    }
}

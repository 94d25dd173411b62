package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin commands against a real running gateway (its admin server, Redis and SIP): a block set by
 * {@code trunkgate block acme 5m} refuses acme's calls until {@code unblock}; carriers set down and up; and each
 * failure (no token, a wrong one, an unknown peer, a bad duration, no gateway there) has its message and exit code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminCommandsTest {

    private static final String GW = "127.0.0.1";
    private static final String TOKEN = "cli-token";
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private TestConfigs config;
    private SipAgent acme;
    private String admin;
    @TempDir
    Path dir;
    private Path tokenFile;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    void start() throws Exception {
        acme = agents.start("127.0.0.221");
        SipAgent carrier = agents.start("127.0.0.222");
        Duration wait = Duration.ofSeconds(5);
        config = TestConfigs.onSharedRedis("cli", RedisServerProcess.freePort()).adminToken(TOKEN)
                .peer("acme", "127.0.0.221", Limit.exact(Duration.ofSeconds(1), 1000),
                        Limit.exact(Duration.ofHours(1), 1).in(LimitMode.SHADOW))
                .carrier("a", carrier, 1000, wait, wait)
                .route("", "a");
        gateway = Gateway.start(config.build());
        admin = new AdminClient(gateway.adminAddress()).base();
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    private Path tokenFile(String token) throws Exception {
        Path file = Files.createTempFile(dir, "token", "");
        Files.writeString(file, token + "\n");
        return file;
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        picocli.CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    private Result admin(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--admin", admin, "--token-file", tokenFile(TOKEN).toString()));
        return run(all.toArray(String[]::new));
    }

    private int call(String number) throws Exception {
        return acme.invite(GW, config.sipPort(), number).awaitFinal(5000).getStatusCode();
    }

    @Test
    void blockAcmeFiveMinutesRefusesItsCallsUntilUnblocked() throws Exception {
        assertEquals(200, call("+100"));
        Result block = admin("block", "acme", "5m");
        assertEquals(0, block.exit(), block.err());
        assertEquals("peer acme blocked fleet-wide for 5m", block.out().strip());
        assertEquals(403, call("+101"), "acme's calls are refused");
        Result peers = admin("peers");
        assertEquals(0, peers.exit(), peers.err());
        assertTrue(peers.out().lines().anyMatch(l -> l.startsWith("acme") && l.contains("4m")), peers.out());

        Result unblock = admin("unblock", "acme");
        assertEquals(0, unblock.exit(), unblock.err());
        assertEquals("peer acme unblocked", unblock.out().strip());
        assertEquals(200, call("+102"));
        assertEquals("peer acme was not blocked", admin("unblock", "acme").out().strip());
    }

    @Test
    void peersMarksAShadowLimitWithTheCallsItWouldHaveRefused() throws Exception {
        assertEquals(200, call("+110"));
        assertEquals(200, call("+111"), "a shadow limit refuses nothing");
        Result peers = admin("peers");
        assertEquals(0, peers.exit(), peers.err());
        String acme = peers.out().lines().filter(l -> l.startsWith("acme")).findFirst().orElseThrow();
        assertTrue(acme.matches(".*peer:acme \\d+/1000 per 1s; peer:acme \\d+/1 per 1h \\(shadow: would refuse [1-9]\\d*\\).*"),
                acme);
    }

    @Test
    void aCarrierSetDownAndUpAgain() throws Exception {
        Result down = admin("carrier-down", "a", "10m");
        assertEquals(0, down.exit(), down.err());
        assertTrue(down.out().startsWith("carrier a is down until "), down.out());
        Result carriers = admin("carriers");
        assertTrue(carriers.out().lines().anyMatch(l -> l.startsWith("a ") && l.contains("DOWN")
                && l.contains("set down by an operator")), carriers.out());
        assertEquals(503, call("+200"), "routing passes the carrier over");
        Result up = admin("carrier-up", "a");
        assertEquals(0, up.exit(), up.err());
        assertTrue(up.out().startsWith("carrier a is up"), up.out());
        assertEquals(200, call("+201"));
    }

    @Test
    void callsListsAnAnsweredCallAndHangupEndsItWithAByeToTheCaller() throws Exception {
        SipAgent.Call up = acme.invite(GW, config.sipPort(), "+300");
        assertEquals(200, up.awaitFinal(5000).getStatusCode());
        up.ack();
        Result calls = admin("calls", "--peer", "acme", "--number", "+300");
        assertEquals(0, calls.exit(), calls.err());
        assertTrue(calls.out().startsWith("ID"), calls.out());
        assertTrue(calls.out().lines().anyMatch(l -> l.contains("acme") && l.contains("+300")
                && l.contains("answered")), calls.out());
        assertEquals(1, admin("calls", "--carrier", "nobody").out().lines().count(), "the header alone");

        String id = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(admin("calls", "--number", "+300", "--json").out()).path("calls").get(0).path("id").asText();
        Result hangup = admin("hangup", id);
        assertEquals(0, hangup.exit(), hangup.err());
        assertEquals("call " + id + " ended", hangup.out().strip());
        assertEquals(1, acme.await("BYE", up.callId(), 1, 5000), "the caller got no BYE");
        assertFalse(admin("calls", "--number", "+300").out().contains("+300"), "still listed");

        Result again = admin("hangup", id);
        assertEquals(CliFailure.REFUSED, again.exit());
        assertTrue(again.err().contains("404 no call in progress"), again.err());
        assertEquals(CliFailure.NOT_AUTHORIZED, run("hangup", id, "--admin", admin).exit());
    }

    @Test
    void drainThenResumeTakesNewCallsAgain() throws Exception {
        Result drain = admin("drain");
        assertEquals(0, drain.exit(), drain.err());
        try {
            assertEquals(503, call("+400"), "a draining gateway refuses new calls");
        } finally {
            Result resume = admin("resume");
            assertEquals(0, resume.exit(), resume.err());
            assertTrue(resume.out().startsWith("gateway taking new calls"), resume.out());
        }
        assertEquals(200, call("+401"));
        assertTrue(admin("status").out().contains("ok (ready)"));
    }

    @Test
    void statusSaysReadyAndJsonGivesTheAnswerAsItCame() throws Exception {
        Result status = admin("status");
        assertEquals(0, status.exit(), status.err());
        assertTrue(status.out().startsWith("instance test-gw: ok (ready)"), status.out());
        assertTrue(status.out().contains("redis: reachable"), status.out());
        Result json = admin("status", "--json");
        assertTrue(json.out().strip().startsWith("{\"status\":\"ok\""), json.out());
    }

    @Test
    void aReloadTheGatewayRefusesExitsOneWithItsReason() throws Exception {
        Result reload = admin("reload");
        assertEquals(CliFailure.REFUSED, reload.exit(), reload.out() + reload.err());
        assertTrue(reload.out().contains("configuration refused"), reload.out());
        Result status = admin("status");
        String refused = status.out().lines().filter(l -> l.contains("last reload")).findFirst().orElseThrow();
        assertTrue(refused.contains("last reload REFUSED at ") && refused.endsWith("the running configuration kept:"),
                status.out());
        assertTrue(status.out().lines().anyMatch(l -> l.matches("  test\\.conf:\\d+: [^:]*: .+")),
                "the reason with its message (the token reads it): " + status.out());
        Result anonymous = run("status", "--admin", admin);
        assertTrue(anonymous.out().lines().anyMatch(l -> l.matches("  test\\.conf:\\d+: [^:]*")),
                "without the token the file, line and key only: " + anonymous.out());
        assertTrue(anonymous.out().contains("each error's message: with the admin token"), anonymous.out());
    }

    @Test
    void withoutATokenOrWithAWrongOneNothingChangesAndTheExitCodeIsFour() throws Exception {
        Result none = run("block", "acme", "5m", "--admin", admin);
        assertEquals(CliFailure.NOT_AUTHORIZED, none.exit());
        assertTrue(none.err().contains("401") && none.err().contains("TRUNKGATE_ADMIN_TOKEN"), none.err());
        Result wrong = run("block", "acme", "5m", "--admin", admin, "--token-file", tokenFile("nope").toString());
        assertEquals(CliFailure.NOT_AUTHORIZED, wrong.exit());
        assertTrue(wrong.err().contains("the admin token was refused"), wrong.err());
        assertFalse(new AdminClient(gateway.adminAddress()).get("/api/blocks/acme").json().get("blocked").asBoolean());
    }

    @Test
    void anUnknownPeerIsOneABadDurationTwoAndNoGatewayThree() throws Exception {
        Result unknown = admin("block", "nobody", "5m");
        assertEquals(CliFailure.REFUSED, unknown.exit());
        assertTrue(unknown.err().contains("404 no such peer: nobody"), unknown.err());
        Result bad = admin("block", "acme", "5 minutes");
        assertEquals(CliFailure.USAGE, bad.exit());
        assertTrue(bad.err().contains("bad duration \"5 minutes\""), bad.err());
        assertEquals(CliFailure.USAGE, admin("block", "acme", "400d").exit(), "over a year");
        assertFalse(new AdminClient(gateway.adminAddress()).get("/api/blocks/acme").json().get("blocked").asBoolean(),
                "nothing was sent");
        Result away = run("status", "--admin", "http://127.0.0.1:" + RedisServerProcess.freePort());
        assertEquals(CliFailure.UNREACHABLE, away.exit());
        assertTrue(away.err().contains("connection refused"), away.err());
    }
}

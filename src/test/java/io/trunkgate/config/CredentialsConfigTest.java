package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A peer's {@code match.credentials} and {@code admission.nonce-lifetime}, read or refused with file, line and key. */
class CredentialsConfigTest {

    private static final String MD5_HA1 = DigestAlgorithm.MD5.hash("pbx:gw.example:secret");
    private static final String SHA256_HA1 = DigestAlgorithm.SHA_256.hash("pbx:gw.example:secret");

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void aPasswordGivesTheHa1OfEachAlgorithmOfferedMd5ByDefault() throws Exception {
        files.write("peers/pbx.conf", "id = pbx\nmatch.credentials { user = pbx, realm = gw.example,"
                + " password = secret }\n");
        files.write("peers/both.conf", "id = both\nmatch.sources = [\"192.0.2.0/24\"]\nmatch.credentials {\n"
                + "  user = both\n  realm = gw.example\n  password = \"p@ss word\"\n"
                + "  algorithms = [SHA-256, md5]\n}\n");
        files.write("gateway.conf", "admission.nonce-lifetime = 2m\n");

        GatewayConfig config = files.load();

        PeerConfig pbx = config.peers().get("pbx");
        assertTrue(pbx.sources().isEmpty(), "known by its credentials alone, from any address");
        assertEquals(new PeerCredentials("pbx", "gw.example", List.of(DigestAlgorithm.MD5),
                Map.of(DigestAlgorithm.MD5, MD5_HA1)), pbx.credentials().orElseThrow());
        assertFalse(pbx.anySource(), "credentials are asked for: not a peer of anyone");
        PeerCredentials both = config.peers().get("both").credentials().orElseThrow();
        assertEquals(List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), both.algorithms());
        assertEquals(DigestAlgorithm.SHA_256.hash("both:gw.example:p@ss word"),
                both.ha1().get(DigestAlgorithm.SHA_256));
        assertEquals(Duration.ofMinutes(2), config.admission().nonceLifetime());
        assertFalse(both.toString().contains(both.ha1().get(DigestAlgorithm.MD5)), "no HA1 in a log line");
    }

    @Test
    void ha1HashesStandForThePasswordAndOfferTheirAlgorithms() throws Exception {
        files.write("peers/a.conf", "id = a\nmatch.credentials { user = pbx, realm = gw.example, ha1-sha256 = \""
                + SHA256_HA1.toUpperCase() + "\" }\n");
        files.write("peers/b.conf", "id = b\nmatch.credentials { user = pbx, realm = other.example, ha1-md5 = \""
                + MD5_HA1 + "\", ha1-sha256 = \"" + SHA256_HA1 + "\", algorithms = [SHA-256, MD5] }\n");

        GatewayConfig config = files.load();

        assertEquals(new PeerCredentials("pbx", "gw.example", List.of(DigestAlgorithm.SHA_256),
                Map.of(DigestAlgorithm.SHA_256, SHA256_HA1)), config.peers().get("a").credentials().orElseThrow());
        assertEquals(List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5),
                config.peers().get("b").credentials().orElseThrow().algorithms(),
                "the same user in another realm is another peer's");
        assertEquals(AdmissionSettings.DEFAULT_NONCE_LIFETIME, config.admission().nonceLifetime());
    }

    @Test
    void mistakesAreReportedWithFileLineAndKey() {
        files.write("gateway.conf", "admission.nonce-lifetime = 500ms\n");
        files.write("peers/a.conf", "id = a\nmatch.credentials {\n  user = pbx\n}\n");
        files.write("peers/b.conf", "id = b\nmatch.credentials {\n  user = \"pb\\\"x\"\n  realm = gw.example\n"
                + "  password = secret\n  ha1-md5 = \"" + MD5_HA1 + "\"\n}\n");
        files.write("peers/c.conf", "id = c\nmatch.credentials {\n  user = pbx\n  realm = gw.example\n"
                + "  ha1-md5 = \"abc123\"\n  ha1-sha256 = \"" + SHA256_HA1 + "\"\n  algorithms = [MD5]\n}\n");
        files.write("peers/d.conf", "id = d\nmatch.credentials {\n  user = d\n  realm = gw.example\n"
                + "  password = secret\n  algorithms = [MD5, SHA-1, MD5]\n  pasword = typo\n}\n");
        files.write("peers/e.conf", "id = e\nmatch.credentials {\n  user = d\n  realm = gw.example\n"
                + "  ha1-md5 = \"" + MD5_HA1 + "\"\n  algorithms = [SHA-256]\n}\n");
        files.write("peers/f.conf", "id = f\nmatch.credentials {\n  user = f\n  realm = gw.example\n"
                + "  password = \"\"\n  algorithms = []\n}\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "admission.nonce-lifetime", "");
        assertError(errors, files.path("peers/a.conf"), 2, "match.credentials.realm", "required key missing");
        assertError(errors, files.path("peers/a.conf"), 2, "match.credentials",
                "needs password, or ha1-md5 and/or ha1-sha256");
        assertError(errors, files.path("peers/b.conf"), 3, "match.credentials.user",
                "must be printable ASCII without '\"' or '\\\\'");
        assertError(errors, files.path("peers/b.conf"), 5, "match.credentials.password",
                "give password or ha1-md5/ha1-sha256, not both");
        ConfigError shortHash = assertError(errors, files.path("peers/c.conf"), 5, "match.credentials.ha1-md5",
                "must be 32 hex digits, the MD5 hash of user:realm:password (got 6 characters)");
        assertFalse(shortHash.message().contains("abc123"), "an HA1 is as good as the password: never quoted");
        assertError(errors, files.path("peers/c.conf"), 6, "match.credentials.ha1-sha256",
                "not used: SHA-256 is not in algorithms");
        assertError(errors, files.path("peers/d.conf"), 6, "match.credentials.algorithms[1]",
                "must be MD5 or SHA-256 (got \"SHA-1\")");
        assertError(errors, files.path("peers/d.conf"), 6, "match.credentials.algorithms[2]", "MD5 is listed twice");
        assertError(errors, files.path("peers/d.conf"), 7, "match.credentials.pasword", "unknown key");
        assertError(errors, files.path("peers/e.conf"), 6, "match.credentials.algorithms",
                "SHA-256 is offered but ha1-sha256 is not given");
        assertError(errors, files.path("peers/f.conf"), 5, "match.credentials.password", "must not be empty");
        assertError(errors, files.path("peers/f.conf"), 6, "match.credentials.algorithms",
                "must list at least one algorithm");
    }

    @Test
    void aUserInARealmBelongsToOnePeerOnly() {
        files.write("peers/a.conf", "id = a\nmatch.credentials { user = pbx, realm = gw.example, password = x }\n");
        files.write("peers/b.conf", "id = b\nmatch.sources = [\"192.0.2.7\"]\n"
                + "match.credentials { user = pbx, realm = gw.example, password = y }\n");

        List<ConfigError> errors = files.errors();

        ConfigError twice = errors.stream().filter(e -> e.message().contains("already claimed")).findFirst()
                .orElseThrow(() -> new AssertionError(errors.toString()));
        assertTrue(twice.message().startsWith("user \"pbx\" in realm \"gw.example\" is already claimed by the peer in"),
                twice.toString());
        assertEquals(1, errors.size(), errors.toString());
    }

    @Test
    void aPeerWithCredentialsMayShareANetworkAndNeedsNoAllowAnySource() throws Exception {
        files.write("peers/plain.conf", "id = plain\nmatch.sources = [\"192.0.2.0/24\"]\n");
        files.write("peers/pbx.conf", "id = pbx\nmatch.sources = [\"192.0.2.0/24\"]\n"
                + "match.credentials { user = pbx, realm = gw.example, password = x }\n");
        files.write("peers/roaming.conf", "id = roaming\nmatch.sources = [\"0.0.0.0/0\"]\n"
                + "match.credentials { user = roaming, realm = gw.example, password = x }\n");

        assertEquals(3, files.load().peers().size());
    }
}

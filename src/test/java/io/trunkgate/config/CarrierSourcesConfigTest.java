package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A carrier's match.sources: the addresses that speak for it in its dialogs besides those its URI resolves to. */
class CarrierSourcesConfigTest {

    private static final String CARRIER = "id = carrier-a\nuri = \"sip:gw.a.example\"\ncps = 10\n";

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void noneWhenLeftOut() throws Exception {
        files.write("carriers/a.conf", CARRIER);

        assertEquals(List.of(), files.load().carriers().get("carrier-a").sources());
    }

    @Test
    void addressesAndNetworksAsWritten() throws Exception {
        files.write("carriers/a.conf", CARRIER + "match.sources = [\"192.0.2.7\", \"198.51.100.0/24\", \"2001:db8::/32\"]\n");

        assertEquals(List.of(Cidr.parse("192.0.2.7"), Cidr.parse("198.51.100.0/24"), Cidr.parse("2001:db8::/32")),
                files.load().carriers().get("carrier-a").sources());
    }

    @Test
    void mistakesAreReportedWithFileLineAndKey() {
        files.write("carriers/a.conf", CARRIER + "match {\n  sources = [\"192.0.2.7\",\n  \"300.1.1.1\"]\n}\n");
        files.write("carriers/b.conf", "id = carrier-b\nuri = \"sip:gw.b.example\"\ncps = 10\nmatch.sources = []\n");
        files.write("carriers/c.conf", "id = carrier-c\nuri = \"sip:gw.c.example\"\ncps = 10\nmatch.sources = \"192.0.2.9\"\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("carriers/a.conf"), 6, "match.sources[1]", "300.1.1.1");
        assertError(errors, files.path("carriers/b.conf"), 4, "match.sources", "must list at least one");
        assertError(errors, files.path("carriers/c.conf"), 4, "match.sources", "expected a list");
        assertEquals(3, errors.size(), errors.toString());
    }
}

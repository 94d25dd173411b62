package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigErrorTest {

    @Test
    void showsFileLineKeyAndMessage() {
        assertEquals("conf/peers/acme.conf:7: limits[1].window: bad duration \"1x\"",
                new ConfigError(Path.of("conf/peers/acme.conf"), 7, "limits[1].window", "bad duration \"1x\"").toString());
    }

    @Test
    void leavesOutAnUnknownLineAndAnEmptyKey() {
        assertEquals("conf/peers/acme.conf: id: required key missing",
                new ConfigError(Path.of("conf/peers/acme.conf"), 0, "id", "required key missing").toString());
        assertEquals("conf/routes.conf:3: unbalanced brackets",
                new ConfigError(Path.of("conf/routes.conf"), 3, "", "unbalanced brackets").toString());
    }

    @Test
    void exceptionMessageListsEveryError() {
        ConfigException e = new ConfigException(List.of(
                new ConfigError(Path.of("a.conf"), 1, "x", "bad"), new ConfigError(Path.of("b.conf"), 2, "y", "worse")));

        assertEquals("2 configuration errors:\n  a.conf:1: x: bad\n  b.conf:2: y: worse", e.getMessage());
    }
}

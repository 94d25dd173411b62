package io.trunkgate.config;

import com.typesafe.config.ConfigOrigin;
import java.nio.file.Path;

/** Where a key was written, for an error message. */
record Location(Path file, int line, String key) {

    /**
     * The location of a value from its HOCON origin. The origin names the file when the value was read
     * from one (possibly an included file); a value from an environment variable has neither file nor
     * line, so the fallbacks are used.
     */
    static Location of(ConfigOrigin origin, Path fallbackFile, int fallbackLine, String key) {
        if (origin == null || origin.filename() == null) {
            return new Location(fallbackFile, fallbackLine, key);
        }
        return new Location(Path.of(origin.filename()), Math.max(0, origin.lineNumber()), key);
    }

    Location withKey(String key) {
        return new Location(file, line, key);
    }

    ConfigError error(String message) {
        return new ConfigError(file, line, key, message);
    }
}

package io.trunkgate.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Parses one HOCON file and resolves its substitutions, environment variables included. */
final class HoconFile {

    private HoconFile() {
    }

    /** The file as a section to read, or empty after reporting why it could not be parsed or resolved. */
    static Optional<ConfigSection> read(Path file, List<ConfigError> errors) {
        try {
            Config config = ConfigFactory.parseFile(file.toFile(),
                    ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false)).resolve();
            return Optional.of(ConfigSection.ofFile(file, config, errors));
        } catch (com.typesafe.config.ConfigException e) {
            errors.add(Location.of(e.origin(), file, 0, "").error(withoutOrigin(e)));
            return Optional.empty();
        }
    }

    /** Typesafe Config starts its messages with "file: line: ", which the ConfigError already shows. */
    private static String withoutOrigin(com.typesafe.config.ConfigException e) {
        String message = e.getMessage();
        String origin = e.origin() == null ? null : e.origin().description() + ": ";
        return origin != null && message.startsWith(origin) ? message.substring(origin.length()) : message;
    }
}

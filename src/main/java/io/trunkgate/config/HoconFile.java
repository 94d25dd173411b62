package io.trunkgate.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigParseable;
import com.typesafe.config.ConfigSyntax;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Parses one HOCON file and resolves its substitutions, environment variables included. */
final class HoconFile {

    /**
     * Includes must exist. HOCON reads a missing include as an empty file, so a typo in a file name would
     * silently drop every setting that file holds.
     */
    private static final class RequiredIncludes implements ConfigIncluder {
        @Override
        public ConfigIncluder withFallback(ConfigIncluder fallback) {
            return this;
        }

        @Override
        public ConfigObject include(ConfigIncludeContext context, String what) {
            ConfigParseable included = context.relativeTo(what);
            if (included == null) {
                throw new com.typesafe.config.ConfigException.Generic("include \"" + what + "\": no such file");
            }
            Optional.ofNullable(included.origin().filename()).map(Path::of).flatMap(HoconFile::overLimit)
                    .ifPresent(tooBig -> {
                        throw new com.typesafe.config.ConfigException.Generic("include \"" + what + "\": " + tooBig);
                    });
            try {
                return included.parse(context.parseOptions().setAllowMissing(false));
            } catch (com.typesafe.config.ConfigException.IO missing) {
                throw new com.typesafe.config.ConfigException.Generic("include \"" + what + "\": no such file");
            }
        }
    }

    private HoconFile() {
    }

    /** The file as a section to read, or empty after reporting why it could not be parsed or resolved. */
    static Optional<ConfigSection> read(Path file, List<ConfigError> errors) {
        Optional<String> tooBig = overLimit(file);
        if (tooBig.isPresent()) {
            errors.add(new ConfigError(file, 0, "", tooBig.get()));
            return Optional.empty();
        }
        try {
            // An absolute path: includes are looked up next to the file.
            Config config = ConfigFactory.parseFile(file.toAbsolutePath().toFile(),
                    ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false)
                            .setIncluder(new RequiredIncludes())).resolve();
            return Optional.of(ConfigSection.ofFile(file, config, errors));
        } catch (com.typesafe.config.ConfigException e) {
            errors.add(Location.of(e.origin(), file, 0, "").error(withoutOrigin(e)));
            return Optional.empty();
        } catch (StackOverflowError e) {
            // The parser recurses once per nesting level: thousands of levels are an attack or a broken file.
            errors.add(new ConfigError(file, 0, "", "nested too deeply to read"));
            return Optional.empty();
        }
    }

    /** Why {@code file} is too big to parse, if it is (a file that cannot be sized is left to the parser). */
    private static Optional<String> overLimit(Path file) {
        try {
            long size = Files.size(file);
            return size <= ConfigBounds.MAX_FILE_BYTES ? Optional.empty() : Optional.of(size + " bytes, over the limit"
                    + " of " + ConfigBounds.MAX_FILE_BYTES + " bytes (16 MiB) per configuration file; not read");
        } catch (IOException e) {
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

package io.trunkgate.config;

import java.nio.file.Path;

/**
 * One problem found in the configuration.
 *
 * @param file    the file it is in, as the loader was given it (relative paths stay relative)
 * @param line    the line in that file, 0 if unknown (for instance a required key that is missing)
 * @param key     the key path, e.g. {@code limits[1].window} (list indexes count from 0); empty for a
 *                problem of the whole file such as a syntax error
 * @param message what is wrong, for an operator
 */
public record ConfigError(Path file, int line, String key, String message) {

    /** "file:line: key: message"; the line is left out when unknown and the key when empty. */
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + (key.isEmpty() ? "" : key + ": ") + message;
    }
}

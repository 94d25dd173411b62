package io.trunkgate.config;

import java.util.List;
import java.util.stream.Collectors;

/** The configuration was refused; {@link #errors()} holds every problem found, not only the first. */
public class ConfigException extends Exception {

    private final List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(errors.size() + (errors.size() == 1 ? " configuration error:" : " configuration errors:")
                + errors.stream().map(e -> "\n  " + e).collect(Collectors.joining()));
        this.errors = List.copyOf(errors);
    }

    public List<ConfigError> errors() {
        return errors;
    }
}

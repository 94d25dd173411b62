package io.trunkgate.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One HOCON object being read: a whole file, or an object inside a list (such as one of a peer's limits).
 * It hands out {@link Field}s by key, remembers every key asked for, and afterwards reports each key
 * in the file that nobody asked for, so that a typo is an error rather than a silently ignored setting.
 */
final class ConfigSection {

    private final Path file;
    private final Config config;
    private final String prefix;
    private final int line;
    private final List<ConfigError> errors;
    private final Set<String> known = new LinkedHashSet<>();
    private final List<ConfigSection> children = new ArrayList<>();

    private ConfigSection(Path file, Config config, String prefix, int line, List<ConfigError> errors) {
        this.file = file;
        this.config = config;
        this.prefix = prefix;
        this.line = line;
        this.errors = errors;
    }

    static ConfigSection ofFile(Path file, Config config, List<ConfigError> errors) {
        return new ConfigSection(file, config, "", 0, errors);
    }

    /** Whether the section holds no setting at all. */
    boolean isEmpty() {
        return config.root().isEmpty();
    }

    /** A key that may be left out; its converters return empty when it is. */
    Field optional(String key) {
        known.add(key);
        Optional<ConfigValue> value = config.hasPathOrNull(key) && !config.getIsNull(key)
                ? Optional.of(config.getValue(key)) : Optional.empty();
        return new Field(this, displayKey(key), value, whereAbsent(key));
    }

    /** A key that must be present; its absence is reported at once. */
    Field required(String key) {
        Field field = optional(key);
        if (!field.isPresent()) {
            field.error("required key missing");
        }
        return field;
    }

    /** Reports the keys of this section, and of the sections within it, that no reader asked for. */
    void reportUnknownKeys() {
        reportUnknownKeys(config.root(), List.of());
        children.forEach(ConfigSection::reportUnknownKeys);
    }

    ConfigSection child(ConfigObject object, String key) {
        ConfigSection child = new ConfigSection(file, object.toConfig(), key, lineOf(object), errors);
        children.add(child);
        return child;
    }

    Location locate(ConfigValue value, String key) {
        return Location.of(value.origin(), file, line, key);
    }

    /** Where a missing key belongs: the innermost object on its path that is there (redis { ... }). */
    private Location whereAbsent(String key) {
        List<String> path = ConfigUtil.splitPath(key);
        for (int length = path.size() - 1; length > 0; length--) {
            String parent = ConfigUtil.joinPath(path.subList(0, length));
            if (config.hasPath(parent) && config.getValue(parent) instanceof ConfigObject object) {
                return locate(object, displayKey(key));
            }
        }
        return new Location(file, line, displayKey(key));
    }

    void report(ConfigError error) {
        errors.add(error);
    }

    private void reportUnknownKeys(ConfigObject object, List<String> parentPath) {
        for (Map.Entry<String, ConfigValue> entry : object.entrySet()) {
            List<String> path = new ArrayList<>(parentPath);
            path.add(entry.getKey());
            String joined = ConfigUtil.joinPath(path);
            if (known.contains(joined)) {
                continue;
            }
            Set<String> expectedInside = keysUnder(path);
            Location at = locate(entry.getValue(), displayKey(joined));
            if (expectedInside.isEmpty()) {
                errors.add(at.error("unknown key (expected here: " + String.join(", ", keysUnder(parentPath)) + ")"));
            } else if (entry.getValue() instanceof ConfigObject inner) {
                reportUnknownKeys(inner, path);
            } else {
                errors.add(at.error("expected an object with the keys " + String.join(", ", expectedInside)));
            }
        }
    }

    /** The next path element of every known key below {@code path}. */
    private Set<String> keysUnder(List<String> path) {
        Set<String> keys = new LinkedHashSet<>();
        for (String key : known) {
            List<String> elements = ConfigUtil.splitPath(key);
            if (elements.size() > path.size() && elements.subList(0, path.size()).equals(path)) {
                keys.add(elements.get(path.size()));
            }
        }
        return keys;
    }

    private String displayKey(String key) {
        return prefix.isEmpty() ? key : prefix + "." + key;
    }

    private static int lineOf(ConfigValue value) {
        return Math.max(0, value.origin().lineNumber());
    }
}

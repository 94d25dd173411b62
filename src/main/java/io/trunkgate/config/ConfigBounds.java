package io.trunkgate.config;

import java.util.List;

/**
 * What one configuration may hold at most, so that check-config and a live reload refuse a configuration too big
 * to run (or to load at all) with the limit it is over, rather than running out of memory while reading it. Far
 * above what a deployment needs; conf/README.md ("Bounds") lists them.
 */
final class ConfigBounds {

    /** Bytes of one file, included files too, checked before it is parsed (routes.conf is the big one). */
    static final long MAX_FILE_BYTES = 16L * 1024 * 1024;
    /** Files in the peers, groups and carriers directories, each. */
    static final int MAX_FILES_PER_DIRECTORY = 10_000;
    /** Limits of one peer or one group. */
    static final int MAX_LIMITS = 64;
    /** Entries of routes.conf's {@code routes}. */
    static final int MAX_ROUTES = 200_000;

    private ConfigBounds() {
    }

    /** Reports {@code field}'s list when it has more than {@code max} elements; the elements to read, else none. */
    static List<Field> atMost(Field field, int max, String what) {
        List<Field> elements = field.elements().orElse(List.of());
        if (elements.size() > max) {
            field.error(elements.size() + " " + what + ", over the limit of " + max);
            return List.of();
        }
        return elements;
    }
}

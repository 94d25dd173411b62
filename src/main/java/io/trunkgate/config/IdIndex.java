package io.trunkgate.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ids of one kind (peer, group or carrier) across all files: reports duplicates as they are defined,
 * and references to ids never defined once every file has been read.
 */
final class IdIndex {

    private record Reference(String id, Location at) {
    }

    private final String kind;
    private final List<ConfigError> errors;
    private final Map<String, Location> defined = new LinkedHashMap<>();
    private final List<Reference> references = new ArrayList<>();

    IdIndex(String kind, List<ConfigError> errors) {
        this.kind = kind;
        this.errors = errors;
    }

    void define(String id, Location at) {
        Location first = defined.putIfAbsent(id, at);
        if (first != null) {
            errors.add(at.error("duplicate " + kind + " id \"" + id + "\" (already defined at " + place(first) + ")"));
        }
    }

    /** Where {@code id} was defined (the first time). */
    Location definedAt(String id) {
        return defined.get(id);
    }

    void refer(String id, Location at) {
        references.add(new Reference(id, at));
    }

    void reportUnknownReferences() {
        String known = defined.isEmpty() ? "none are defined" : "known: " + String.join(", ", defined.keySet());
        for (Reference reference : references) {
            if (!defined.containsKey(reference.id())) {
                errors.add(reference.at().error("unknown " + kind + " \"" + reference.id() + "\" (" + known + ")"));
            }
        }
    }

    static String place(Location at) {
        return at.file() + (at.line() > 0 ? ":" + at.line() : "");
    }
}

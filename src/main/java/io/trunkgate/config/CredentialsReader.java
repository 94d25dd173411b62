package io.trunkgate.config;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** A peer file's {@code match.credentials}: user, realm, password or HA1 hashes, and the algorithms offered. */
final class CredentialsReader {

    private static final String TEXT_RULE = "must be printable ASCII without '\"' or '\\\\', not empty";

    private CredentialsReader() {
    }

    /** The credentials {@code section} (the value of {@code field}) describes, or empty after reporting its errors. */
    static Optional<PeerCredentials> read(ConfigSection section, Field field) {
        Optional<String> user = section.required("user").string(CredentialsReader::quotable, TEXT_RULE);
        Optional<String> realm = section.required("realm").string(CredentialsReader::quotable, TEXT_RULE);
        Field passwordField = section.optional("password");
        Optional<String> password = passwordField.string(p -> !p.isEmpty(), "must not be empty");
        Map<DigestAlgorithm, Field> ha1Fields = new EnumMap<>(DigestAlgorithm.class);
        ha1Fields.put(DigestAlgorithm.MD5, section.optional("ha1-md5"));
        ha1Fields.put(DigestAlgorithm.SHA_256, section.optional("ha1-sha256"));
        Map<DigestAlgorithm, String> ha1 = new EnumMap<>(DigestAlgorithm.class);
        ha1Fields.forEach((algorithm, ha1Field) -> ha1Field.string().ifPresent(hex -> {
            if (isHex(hex, algorithm.hexLength())) {
                ha1.put(algorithm, hex.toLowerCase(Locale.ROOT));
            } else {
                // not quoted: an HA1 is as good as the password for this realm
                ha1Field.error("must be " + algorithm.hexLength() + " hex digits, the " + algorithm.token()
                        + " hash of user:realm:password (got " + hex.length() + " characters)");
            }
        }));
        boolean ha1Given = ha1Fields.values().stream().anyMatch(Field::isPresent);
        if (passwordField.isPresent() && ha1Given) {
            passwordField.error("give password or ha1-md5/ha1-sha256, not both");
            return Optional.empty();
        }
        if (!passwordField.isPresent() && !ha1Given) {
            field.error("needs password, or ha1-md5 and/or ha1-sha256");
            return Optional.empty();
        }
        Field algorithmsField = section.optional("algorithms");
        List<DigestAlgorithm> algorithms = algorithmsField.isPresent() ? algorithms(algorithmsField)
                : List.of(ha1Given && !ha1Fields.get(DigestAlgorithm.MD5).isPresent() ? DigestAlgorithm.SHA_256
                        : DigestAlgorithm.MD5);
        boolean complete = !algorithms.isEmpty();
        if (ha1Given) {
            for (DigestAlgorithm algorithm : algorithms) {
                if (!ha1Fields.get(algorithm).isPresent()) {
                    algorithmsField.error(algorithm.token() + " is offered but ha1-" + keyOf(algorithm)
                            + " is not given");
                    complete = false;
                }
            }
            for (Map.Entry<DigestAlgorithm, Field> given : ha1Fields.entrySet()) {
                if (given.getValue().isPresent() && !algorithms.contains(given.getKey())) {
                    given.getValue().error("not used: " + given.getKey().token() + " is not in algorithms (offered: "
                            + algorithms.stream().map(DigestAlgorithm::token).toList() + ")");
                    complete = false;
                }
            }
        }
        if (!complete || user.isEmpty() || realm.isEmpty() || (passwordField.isPresent() && password.isEmpty())
                || (ha1Given && !ha1.keySet().containsAll(algorithms))) {
            return Optional.empty();
        }
        return Optional.of(password.isPresent()
                ? PeerCredentials.withPassword(user.get(), realm.get(), password.get(), algorithms)
                : new PeerCredentials(user.get(), realm.get(), algorithms, ha1));
    }

    /** The algorithms listed, most preferred first: at least one, none twice. */
    private static List<DigestAlgorithm> algorithms(Field field) {
        List<Field> elements = field.elements().orElse(List.of());
        if (elements.isEmpty()) {
            if (field.elements().isPresent()) {
                field.error("must list at least one algorithm: MD5, SHA-256");
            }
            return List.of();
        }
        List<DigestAlgorithm> algorithms = new ArrayList<>();
        for (Field element : elements) {
            Optional<DigestAlgorithm> algorithm = element.string().flatMap(text -> {
                Optional<DigestAlgorithm> known = DigestAlgorithm.of(text);
                if (known.isEmpty()) {
                    element.error("must be MD5 or SHA-256 (got \"" + text + "\")");
                }
                return known;
            });
            if (algorithm.isPresent() && algorithms.contains(algorithm.get())) {
                element.error(algorithm.get().token() + " is listed twice");
            } else {
                algorithm.ifPresent(algorithms::add);
            }
        }
        return algorithms.size() == elements.size() ? algorithms : List.of();
    }

    private static String keyOf(DigestAlgorithm algorithm) {
        return algorithm == DigestAlgorithm.MD5 ? "md5" : "sha256";
    }

    /** What a quoted-string of a challenge carries as it is: printable ASCII but the quote and the backslash. */
    private static boolean quotable(String text) {
        return !text.isEmpty() && text.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\');
    }

    private static boolean isHex(String text, int length) {
        if (text.length() != length) {
            return false;
        }
        try {
            HexFormat.of().parseHex(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}

package io.trunkgate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/** One file of the peers directory. */
final class PeerFileReader {

    private PeerFileReader() {
    }

    /** {@code groupLimits}: the limits of each group read, by id, weighed with the peer's in each decision. */
    static Optional<PeerConfig> read(ConfigSection file, IdIndex peers, IdIndex groups, SourceClaims claims,
                                     Map<String, List<Limit>> groupLimits) {
        Field idField = file.required("id");
        Optional<String> id = idField.id();
        id.ifPresent(value -> peers.define(value, idField.at()));

        Field sourcesField = file.optional("match.sources");
        Field certificatesField = file.optional("match.certificates");
        Field credentialsField = file.optional("match.credentials");
        List<Written<Cidr>> sources = listed(sourcesField, "source address or network", PeerFileReader::source);
        List<Written<CertificateMatch>> certificates = listed(certificatesField, "certificate",
                PeerFileReader::certificate);
        Optional<PeerCredentials> credentials = credentialsField.object()
                .flatMap(section -> CredentialsReader.read(section, credentialsField));
        if (!sourcesField.isPresent() && !certificatesField.isPresent() && !credentialsField.isPresent()) {
            sourcesField.error("required key missing: a peer is matched by match.sources, match.certificates,"
                    + " match.credentials or several of them");
        }
        if (credentials.isPresent()) {
            claims.claim(credentials.get(), credentialsField.at());
        } else {
            claim(claims, sources, certificates);
        }

        Field groupField = file.optional("group");
        Optional<String> group = groupField.id();
        group.ifPresent(value -> groups.refer(value, groupField.at()));

        LimitMode mode = LimitsReader.mode(file);
        List<Limit> limits = LimitsReader.read(file, mode);
        LimitsReader.checkDecisionBound(file, limits, group.map(groupLimits::get).orElse(List.of()),
                "group " + group.orElse(""));
        OptionalInt maxConcurrent = MaxConcurrent.read(file);
        boolean anySourceAllowed = file.optional("allow-any-source").bool().orElse(false);
        Optional<String> everyAddress = certificates.isEmpty() && !credentialsField.isPresent()
                ? Cidr.coveredFamily(Written.values(sources)) : Optional.empty();
        if (everyAddress.isPresent() && !anySourceAllowed) {
            sourcesField.error("covers every " + everyAddress.get() + " address, so this peer would take in calls"
                    + " from anyone (no unknown-source 403 any more); list the peer's networks, or set"
                    + " allow-any-source = true if that is meant");
        }
        if (sources.isEmpty() && certificates.isEmpty() && credentials.isEmpty()) {
            return Optional.empty();
        }
        return id.map(value -> new PeerConfig(value, Written.values(sources), group, limits, maxConcurrent,
                Written.values(certificates), mode, credentials));
    }

    /**
     * Each network, each certificate, or each pair of them when the peer lists both, may identify one peer only:
     * two peers may share a network when their certificates differ. A peer with credentials is identified by them
     * (its networks and certificates only narrow where they are accepted from), so it claims those alone.
     */
    private static void claim(SourceClaims claims, List<Written<Cidr>> sources,
                              List<Written<CertificateMatch>> certificates) {
        if (certificates.isEmpty()) {
            sources.forEach(source -> claims.claim(Optional.of(source.value()), Optional.empty(), source.at()));
        } else if (sources.isEmpty()) {
            certificates.forEach(match -> claims.claim(Optional.empty(), Optional.of(match.value()), match.at()));
        } else {
            for (Written<Cidr> source : sources) {
                certificates.forEach(match -> claims.claim(Optional.of(source.value()), Optional.of(match.value()),
                        match.at()));
            }
        }
    }

    /** A list that, when written, must not be empty; its valid elements (the invalid ones are reported). */
    private static <T> List<Written<T>> listed(Field field, String what, Function<Field, Optional<T>> read) {
        List<Field> elements = field.elements().orElse(List.of());
        if (field.isPresent() && elements.isEmpty()) {
            field.error("must list at least one " + what);
        }
        List<Written<T>> values = new ArrayList<>();
        for (Field element : elements) {
            read.apply(element).ifPresent(value -> values.add(new Written<>(value, element.at())));
        }
        return values;
    }

    /** A value read from the file, with where it was written. */
    private record Written<T>(T value, Location at) {
        static <T> List<T> values(List<Written<T>> written) {
            return written.stream().map(Written::value).toList();
        }
    }

    private static Optional<Cidr> source(Field element) {
        return element.parsed(Cidr::parse);
    }


    /** { sha256 = "..." }, { san = "..." } or { subject = "..." }: exactly one key. */
    private static Optional<CertificateMatch> certificate(Field element) {
        return element.object().flatMap(item -> {
            Field sha256 = item.optional("sha256");
            Field san = item.optional("san");
            Field subject = item.optional("subject");
            int given = (sha256.isPresent() ? 1 : 0) + (san.isPresent() ? 1 : 0) + (subject.isPresent() ? 1 : 0);
            if (given != 1) {
                element.error("must have exactly one of sha256, san and subject (got " + given + ")");
                return Optional.empty();
            }
            if (sha256.isPresent()) {
                return sha256.parsed(CertificateMatch.Sha256::parse);
            }
            return san.isPresent() ? san.parsed(CertificateMatch.SubjectAltName::parse)
                    : subject.parsed(CertificateMatch.Subject::parse);
        });
    }
}

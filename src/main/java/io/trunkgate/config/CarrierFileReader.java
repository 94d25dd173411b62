package io.trunkgate.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/** One file of the carriers directory. */
final class CarrierFileReader {

    /** Kamailio's fr_inv_timer default: calls ring for up to two minutes before the proxy gives up on them. */
    private static final Duration DEFAULT_RING_TIMEOUT = Duration.ofMinutes(2);

    private static final String TIMEOUT = "timeout";
    private static final Duration ONE_MILLI = Duration.ofMillis(1);

    private CarrierFileReader() {
    }

    static Optional<CarrierConfig> read(ConfigSection file, IdIndex carriers, Path baseDir, TlsFileCheck tlsFiles) {
        Field idField = file.required("id");
        Optional<String> id = idField.id();
        id.ifPresent(value -> carriers.define(value, idField.at()));

        Optional<SipUri> uri = file.required("uri").parsed(SipUri::parse);
        Optional<Double> cps = file.required("cps").number(n -> n > 0 && Double.isFinite(n), "must be greater than 0");
        int burst = file.optional("burst").integer(1, Integer.MAX_VALUE).orElse(1);
        Duration maxWait = file.optional("max-wait").duration(Duration.ZERO).orElse(Duration.ofSeconds(2));

        Failover failover = Failover.read(file.optional("failover-on"));

        List<String> alternates = new ArrayList<>();
        for (Field element : file.optional("alternates").elements().orElse(List.of())) {
            element.id().ifPresent(alternate -> {
                if (id.isPresent() && alternate.equals(id.get())) {
                    element.error("a carrier cannot be its own alternate");
                } else {
                    carriers.refer(alternate, element.at());
                    alternates.add(alternate);
                }
            });
        }

        int maxHeld = file.optional("max-held").integer(1, Integer.MAX_VALUE).orElse(1000);
        Duration answerTimeout = file.optional("answer-timeout").duration(ONE_MILLI).orElse(Duration.ofSeconds(8));
        Duration ringTimeout = file.optional("ring-timeout").duration(Duration.ofSeconds(1)).orElse(DEFAULT_RING_TIMEOUT);

        OptionalInt maxConcurrent = MaxConcurrent.read(file);
        LimitMode pacingMode = file.optional("pacing-mode").choice(LimitMode.class).orElse(LimitMode.ENFORCE);
        LimitMode maxConcurrentMode = file.optional("max-concurrent-mode").choice(LimitMode.class)
                .orElse(LimitMode.ENFORCE);
        Optional<ProbeSettings> probe = file.optional("probe").object().flatMap(CarrierFileReader::probe);
        CallFailures callFailures = file.optional("call-failures").object().map(CarrierFileReader::callFailures)
                .orElse(CallFailures.DEFAULTS);

        Optional<Optional<CarrierTls>> tls = tls(file, uri, baseDir, tlsFiles);
        List<Cidr> sources = sources(file.optional("match.sources"));

        if (id.isEmpty() || uri.isEmpty() || cps.isEmpty() || tls.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CarrierConfig(id.get(), uri.get(), cps.get(), burst, maxWait, failover.codes(),
                failover.onTimeout(), alternates, maxHeld, answerTimeout, ringTimeout, maxConcurrent, probe,
                tls.get(), pacingMode, maxConcurrentMode, sources, callFailures));
    }

    /**
     * match.sources: the addresses and networks the carrier may send in-dialog requests from besides those its URI
     * resolves to (none when left out; a list written empty is a mistake). Unlike a peer's, they admit no call:
     * nothing but a dialog's requests is taken from a carrier.
     */
    private static List<Cidr> sources(Field field) {
        Optional<List<Field>> elements = field.elements();
        if (elements.filter(List::isEmpty).isPresent()) {
            field.error("must list at least one source address or network");
        }
        List<Cidr> sources = new ArrayList<>();
        for (Field element : elements.orElse(List.of())) {
            element.parsed(Cidr::parse).ifPresent(sources::add);
        }
        return sources;
    }

    /**
     * tls { ca-file }: only for a carrier reached over TLS, which without it trusts the system CAs. Empty when the
     * block is in error; else the carrier's TLS settings, themselves empty for a UDP or TCP carrier.
     */
    private static Optional<Optional<CarrierTls>> tls(ConfigSection file, Optional<SipUri> uri, Path baseDir,
                                                      TlsFileCheck tlsFiles) {
        Field caField = file.optional("tls.ca-file");
        boolean overTls = uri.filter(u -> u.transport() == Transport.TLS).isPresent();
        if (!overTls) {
            if (caField.isPresent() && uri.isPresent()) {
                caField.error("only a carrier reached over TLS takes it (its uri " + uri.get().text() + " is "
                        + uri.get().transport().sipName() + "; use sips: or ;transport=tls)");
            }
            return Optional.of(Optional.empty());
        }
        Optional<Path> caFile = caField.readableFile(baseDir);
        if (caField.isPresent() && caFile.isEmpty()) {
            return Optional.empty();
        }
        Optional<TlsFileCheck.Problem> problem = caFile.flatMap(tlsFiles::caFile);
        problem.ifPresent(p -> caField.error(p.message()));
        return problem.isPresent() ? Optional.empty() : Optional.of(Optional.of(new CarrierTls(caFile)));
    }

    /** probe { interval, timeout, down-after, up-after, fail-codes }: every key has a default. */
    private static Optional<ProbeSettings> probe(ConfigSection probe) {
        Duration interval = probe.optional("interval").duration(Duration.ofMillis(10)).orElse(Duration.ofSeconds(10));
        Field timeoutField = probe.optional("timeout");
        Duration timeout = timeoutField.duration(ONE_MILLI).orElse(Duration.ofSeconds(2));
        int downAfter = probe.optional("down-after").integer(1, 100).orElse(3);
        int upAfter = probe.optional("up-after").integer(1, 100).orElse(2);
        Set<Integer> failCodes = new HashSet<>();
        Optional<List<Field>> codes = probe.optional("fail-codes").elements();
        for (Field code : codes.orElse(List.of())) {
            code.integer(300, 699).ifPresent(failCodes::add);
        }
        if (timeout.compareTo(interval) > 0) {
            timeoutField.error("must not be longer than the probe interval (" + interval.toMillis() + "ms)");
            return Optional.empty();
        }
        return Optional.of(new ProbeSettings(interval, timeout, downAfter, upAfter,
                codes.isPresent() ? failCodes : Set.of(503)));
    }

    /** call-failures { down-after, codes, down-for }: every key has a default. */
    private static CallFailures callFailures(ConfigSection failures) {
        CallFailures defaults = CallFailures.DEFAULTS;
        int downAfter = failures.optional("down-after").integer(0, 100).orElse(defaults.downAfter());
        Set<Integer> codes = new HashSet<>();
        Optional<List<Field>> listed = failures.optional("codes").elements();
        for (Field code : listed.orElse(List.of())) {
            code.integer(300, 699).ifPresent(codes::add);
        }
        Duration downFor = failures.optional("down-for").duration(Duration.ofSeconds(1)).orElse(defaults.downFor());
        return new CallFailures(downAfter, listed.isPresent() ? codes : defaults.codes(), downFor);
    }

    /** The failover-on list: final response codes, and "timeout" for no final answer in time. */
    private record Failover(Set<Integer> codes, boolean onTimeout) {

        private static final Pattern CODE = Pattern.compile("[3-6][0-9][0-9]");

        static Failover read(Field field) {
            Optional<List<Field>> entries = field.elements();
            if (entries.isEmpty()) {
                return new Failover(Set.of(503, 408), true);
            }
            Set<Integer> codes = new HashSet<>();
            boolean onTimeout = false;
            for (Field entry : entries.get()) {
                Optional<String> text = entry.string().map(String::trim);
                if (text.filter(TIMEOUT::equalsIgnoreCase).isPresent()) {
                    onTimeout = true;
                } else if (text.filter(CODE.asMatchPredicate()).isPresent()) {
                    codes.add(Integer.parseInt(text.get()));
                } else if (text.isPresent()) {
                    entry.error("must be a SIP status code 300..699 or \"timeout\" (got " + entry.written() + ")");
                }
            }
            return new Failover(codes, onTimeout);
        }
    }
}

package io.trunkgate.dns.internal;

import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierTargets;
import io.trunkgate.dns.CarrierTargets.Target;
import io.trunkgate.dns.UnresolvedException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.NAPTRRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;
import org.xbill.DNS.lookup.LookupSession;
import org.xbill.DNS.lookup.NoSuchDomainException;
import org.xbill.DNS.lookup.NoSuchRRSetException;

/**
 * RFC 3263 §4 for a carrier's URI, on dnsjava (which follows CNAMEs and speaks the protocol; nothing is cached
 * here, {@link CachingResolver} keeps the answers):
 * <ul>
 *   <li>an IP address: itself, no lookup;</li>
 *   <li>a name with a port: its A and AAAA records, at that port;</li>
 *   <li>a name with a transport but no port: SRV {@code _sip._udp} or {@code _sip._tcp}, else A/AAAA at 5060;</li>
 *   <li>a bare name: NAPTR, taking the most preferred {@code SIP+D2U} or {@code SIP+D2T} record whose SRV has
 *       targets; without any, SRV {@code _sip._udp} then {@code _sip._tcp}; else A/AAAA over UDP at 5060.</li>
 * </ul>
 * A lookup that times out or fails on the server fails the whole answer (so the last good one is kept); a name
 * that does not exist, or has no records of a type, just moves on to the next step.
 */
public final class Rfc3263Lookup {

    private static final int DEFAULT_PORT = 5060;
    /** Answers from the hosts file carry no TTL of their own. */
    private static final Duration NO_TTL = Duration.ofDays(1);

    private final LookupSession session;

    public Rfc3263Lookup(DnsSettings settings) {
        Resolver resolver = settings.resolver().<Resolver>map(SimpleResolver::new).orElseGet(ExtendedResolver::new);
        resolver.setTimeout(settings.timeout());
        LookupSession.LookupSessionBuilder builder = LookupSession.builder().resolver(resolver).clearCaches();
        if (settings.resolver().isEmpty()) {
            builder.defaultHostsFileParser(); // as the system's own resolver would for A/AAAA
        }
        this.session = builder.build();
    }

    /** The URI's one address when its host is an IP address. */
    public static Optional<CarrierTargets> literal(SipUri uri) {
        if (!uri.hostIsAddress()) {
            return Optional.empty();
        }
        String host = uri.host().startsWith("[") ? uri.host().substring(1, uri.host().length() - 1) : uri.host();
        try {
            String ip = InetAddress.getByName(host).getHostAddress(); // a literal: no lookup
            return Optional.of(CarrierTargets.of(new CarrierAddress(ip, uri.port(), uri.transport()), NO_TTL));
        } catch (java.net.UnknownHostException e) {
            return Optional.empty();
        }
    }

    public CompletionStage<CarrierTargets> lookup(SipUri uri) {
        Optional<CarrierTargets> literal = literal(uri);
        if (literal.isPresent()) {
            return CompletableFuture.completedFuture(literal.get());
        }
        Name host;
        try {
            host = Name.fromString(uri.host(), Name.root);
        } catch (TextParseException e) {
            return CompletableFuture.failedFuture(new UnresolvedException("not a host name: " + uri.host()));
        }
        CompletionStage<CarrierTargets> found;
        if (uri.portGiven()) {
            found = hostAddresses(host, uri.port(), uri.transport());
        } else if (uri.transportGiven()) {
            found = srvOrHost(host, uri.transport());
        } else if (uri.secure()) {
            // a sips URI is reached over TLS only (RFC 3263 §4.1): its NAPTR records for TLS, else its SRV for TLS
            found = naptr(host, true).thenCompose(viaNaptr -> viaNaptr.isPresent()
                    ? CompletableFuture.completedFuture(viaNaptr.get())
                    : srvOrHost(host, Transport.TLS));
        } else {
            found = naptr(host, false).thenCompose(viaNaptr -> viaNaptr.isPresent()
                    ? CompletableFuture.completedFuture(viaNaptr.get())
                    : srv(host, Transport.UDP).thenCompose(udp -> udp.isPresent()
                            ? CompletableFuture.completedFuture(udp.get())
                            : srv(host, Transport.TCP).thenCompose(tcp -> tcp.isPresent()
                                    ? CompletableFuture.completedFuture(tcp.get())
                                    : hostAddresses(host, DEFAULT_PORT, Transport.UDP))));
        }
        return found.thenApply(targets -> {
            if (targets.addresses().isEmpty()) {
                throw new UnresolvedException(uri.host() + " has no NAPTR, SRV, A or AAAA records");
            }
            return targets;
        });
    }

    /** SRV for the transport, else the host's own addresses at 5060, 5061 for TLS (possibly none). */
    private CompletionStage<CarrierTargets> srvOrHost(Name host, Transport transport) {
        return srv(host, transport).thenCompose(found -> found.isPresent()
                ? CompletableFuture.completedFuture(found.get())
                : hostAddresses(host, transport.defaultPort(), transport));
    }

    /**
     * The targets of the most preferred usable NAPTR record, of TLS only when {@code secure} and of UDP or TCP
     * otherwise (a sip URI is not moved to TLS by DNS: the carrier's certificate would be checked against a name
     * the operator never configured for TLS); empty when there is none.
     */
    private CompletionStage<Optional<CarrierTargets>> naptr(Name host, boolean secure) {
        return records(host, Type.NAPTR).thenCompose(records -> {
            List<NAPTRRecord> usable = new ArrayList<>();
            for (Record record : records) {
                if (record instanceof NAPTRRecord naptr && "s".equalsIgnoreCase(naptr.getFlags())
                        && transport(naptr).filter(t -> (t == Transport.TLS) == secure).isPresent()) {
                    usable.add(naptr);
                }
            }
            usable.sort(Comparator.comparingInt(NAPTRRecord::getOrder).thenComparingInt(NAPTRRecord::getPreference));
            long ttl = records.stream().mapToLong(Record::getTTL).min().orElse(Long.MAX_VALUE);
            return firstWithTargets(usable, 0, ttl);
        });
    }

    private CompletionStage<Optional<CarrierTargets>> firstWithTargets(List<NAPTRRecord> naptrs, int index, long ttl) {
        if (index == naptrs.size()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        NAPTRRecord naptr = naptrs.get(index);
        return srvAt(naptr.getReplacement(), transport(naptr).orElseThrow()).thenCompose(found -> found.isPresent()
                ? CompletableFuture.completedFuture(found.map(targets -> withTtlAtMost(targets, ttl)))
                : firstWithTargets(naptrs, index + 1, ttl));
    }

    private static Optional<Transport> transport(NAPTRRecord naptr) {
        return switch (naptr.getService().toUpperCase(Locale.ROOT)) {
            case "SIP+D2U" -> Optional.of(Transport.UDP);
            case "SIP+D2T" -> Optional.of(Transport.TCP);
            case "SIPS+D2T" -> Optional.of(Transport.TLS);
            default -> Optional.empty();
        };
    }

    private CompletionStage<Optional<CarrierTargets>> srv(Name host, Transport transport) {
        try {
            // TLS is "_sips._tcp" (RFC 3263 §4.1)
            String service = transport == Transport.TLS ? "_sips._tcp" : "_sip._" + transport.sipName();
            return srvAt(Name.concatenate(Name.fromString(service), host), transport);
        } catch (TextParseException | org.xbill.DNS.NameTooLongException e) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
    }

    /** The targets of the SRV records at {@code name}, each with its addresses; empty when none has any. */
    private CompletionStage<Optional<CarrierTargets>> srvAt(Name name, Transport transport) {
        return records(name, Type.SRV).thenCompose(records -> {
            List<CompletableFuture<Optional<CarrierTargets>>> targets = new ArrayList<>();
            for (Record record : records) {
                if (record instanceof SRVRecord srv && !srv.getTarget().equals(Name.root)) {
                    targets.add(hostAddresses(srv.getTarget(), srv.getPort(), transport).thenApply(found ->
                            found.targets().isEmpty() ? Optional.<CarrierTargets>empty() : Optional.of(
                                    new CarrierTargets(List.of(new Target(srv.getTarget().toString(true),
                                            srv.getPriority(), srv.getWeight(), found.addresses())),
                                            shorter(found.ttl(), Duration.ofSeconds(srv.getTTL())))))
                            .toCompletableFuture());
                }
            }
            return CompletableFuture.allOf(targets.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<Target> all = new ArrayList<>();
                Duration ttl = NO_TTL;
                for (CompletableFuture<Optional<CarrierTargets>> target : targets) {
                    Optional<CarrierTargets> found = target.join();
                    if (found.isPresent()) {
                        all.addAll(found.get().targets());
                        ttl = shorter(ttl, found.get().ttl());
                    }
                }
                return all.isEmpty() ? Optional.<CarrierTargets>empty() : Optional.of(new CarrierTargets(all, ttl));
            });
        });
    }

    /**
     * The name's A and AAAA records as one target at {@code port}; no target when it has neither. One of the two
     * lookups failing is enough only when the other found nothing (servers that refuse AAAA exist).
     */
    private CompletionStage<CarrierTargets> hostAddresses(Name name, int port, Transport transport) {
        CompletableFuture<List<Record>> v4 = records(name, Type.A).toCompletableFuture();
        CompletableFuture<List<Record>> v6 = records(name, Type.AAAA).toCompletableFuture();
        return v4.handle((a, error) -> a).thenCombine(v6.handle((aaaa, error) -> aaaa), (a, aaaa) -> {
            List<CarrierAddress> addresses = new ArrayList<>();
            Duration ttl = NO_TTL;
            for (Record record : concat(a, aaaa)) {
                InetAddress address = record instanceof ARecord ar ? ar.getAddress()
                        : record instanceof AAAARecord aaaaRecord ? aaaaRecord.getAddress() : null;
                if (address != null) {
                    addresses.add(new CarrierAddress(address.getHostAddress(), port, transport));
                    ttl = shorter(ttl, Duration.ofSeconds(record.getTTL()));
                }
            }
            if (addresses.isEmpty() && (a == null || aaaa == null)) {
                Throwable failed = (a == null ? v4 : v6).handle((r, error) -> cause(error)).join();
                throw failed instanceof UnresolvedException unresolved ? unresolved
                        : new UnresolvedException("address lookup of " + name + " failed: " + failed);
            }
            return addresses.isEmpty() ? new CarrierTargets(List.of(), ttl)
                    : new CarrierTargets(List.of(new Target(name.toString(true), 0, 1, addresses)), ttl);
        });
    }

    /** The records of one type; none when the name or the type does not exist. Other failures fail the stage. */
    private CompletionStage<List<Record>> records(Name name, int type) {
        return session.lookupAsync(name, type).handle((result, error) -> {
            if (error == null) {
                return result.getRecords();
            }
            Throwable cause = cause(error);
            if (cause instanceof NoSuchDomainException || cause instanceof NoSuchRRSetException) {
                return List.of();
            }
            throw new UnresolvedException(Type.string(type) + " lookup of " + name + " failed: " + cause);
        });
    }

    private static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Both lists, a failed lookup (null) counting as none. */
    private static List<Record> concat(List<Record> first, List<Record> second) {
        List<Record> all = new ArrayList<>(first == null ? List.of() : first);
        all.addAll(second == null ? List.of() : second);
        return all;
    }

    private static CarrierTargets withTtlAtMost(CarrierTargets targets, long seconds) {
        return new CarrierTargets(targets.targets(), shorter(targets.ttl(), Duration.ofSeconds(seconds)));
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}

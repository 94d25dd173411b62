package io.trunkgate.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Reads and validates gateway.conf and the peer, group and carrier files and routes.conf next to it.
 * Every problem in every file is collected before giving up, so an operator fixes them in one pass.
 */
public final class ConfigLoader {

    private final List<ConfigError> errors = new ArrayList<>();
    private final IdIndex peerIds = new IdIndex("peer", errors);
    private final IdIndex groupIds = new IdIndex("group", errors);
    private final IdIndex carrierIds = new IdIndex("carrier", errors);
    private final SourceClaims sourceClaims = new SourceClaims(errors);

    private final TlsFileCheck tlsFiles;

    private ConfigLoader(TlsFileCheck tlsFiles) {
        this.tlsFiles = tlsFiles;
    }

    /**
     * Loads the configuration rooted at {@code gatewayConf}, with each TLS listener's and carrier's certificate,
     * key and CA files read through {@code tlsFiles}, so that a file that would not load is an error here.
     *
     * @throws ConfigException listing every error found, each with file, line and key
     */
    public static GatewayConfig load(Path gatewayConf, TlsFileCheck tlsFiles) throws ConfigException {
        return new ConfigLoader(tlsFiles).loadAll(gatewayConf);
    }

    /**
     * Loads the configuration rooted at {@code gatewayConf} without reading the TLS files it names: for callers that
     * only read its settings. The gateway and check-config use {@link #load(Path, TlsFileCheck)}.
     *
     * @throws ConfigException listing every error found, each with file, line and key
     */
    public static GatewayConfig load(Path gatewayConf) throws ConfigException {
        return load(gatewayConf, TlsFileCheck.NONE);
    }

    /**
     * Where the configuration rooted at {@code gatewayConf} is read from: gateway.conf, the peer, group and
     * carrier directories and routes.conf (as gateway.conf places them, else the defaults). For watching
     * them; problems in gateway.conf are left to {@link #load}.
     */
    public static List<Path> sources(Path gatewayConf) {
        Path baseDir = Optional.ofNullable(gatewayConf.getParent()).orElse(Path.of(""));
        FileLayout layout = HoconFile.read(gatewayConf, new ArrayList<>()).map(file -> FileLayout.read(file, baseDir))
                .orElseGet(() -> FileLayout.defaults(baseDir));
        return List.of(gatewayConf, layout.peersDir(), layout.groupsDir(), layout.carriersDir(), layout.routesFile());
    }

    private GatewayConfig loadAll(Path gatewayConf) throws ConfigException {
        if (!Files.isRegularFile(gatewayConf)) {
            throw new ConfigException(List.of(new ConfigError(gatewayConf, 0, "", "file not found")));
        }
        Path baseDir = Optional.ofNullable(gatewayConf.getParent()).orElse(Path.of(""));
        Optional<ConfigSection> gatewayFile = HoconFile.read(gatewayConf, errors);
        Optional<GatewaySettings> settings = gatewayFile.map(file -> GatewayFileReader.read(file, baseDir, tlsFiles));
        // Without a readable gateway.conf the default layout is still checked, to report all errors at once.
        FileLayout layout = gatewayFile.map(file -> FileLayout.read(file, baseDir))
                .orElseGet(() -> FileLayout.defaults(baseDir));
        gatewayFile.ifPresent(ConfigSection::reportUnknownKeys);
        gatewayFile.filter(ConfigSection::isEmpty).ifPresent(empty -> errors.add(new ConfigError(gatewayConf, 0, "",
                "no settings at all (an empty or truncated file?); every key has a default, but an empty"
                        + " gateway.conf is refused so that a truncated one never runs")));

        List<GroupConfig> groups = readDirectory(layout.groupsDir(), file -> GroupFileReader.read(file, groupIds));
        Map<String, List<Limit>> groupLimits = new HashMap<>();
        groups.forEach(group -> groupLimits.putIfAbsent(group.id(), group.limits()));
        List<PeerConfig> peers = readDirectory(layout.peersDir(),
                file -> PeerFileReader.read(file, peerIds, groupIds, sourceClaims, groupLimits));
        List<CarrierConfig> carriers = readDirectory(layout.carriersDir(),
                file -> CarrierFileReader.read(file, carrierIds, baseDir, tlsFiles));
        List<RouteConfig> routes = Files.exists(layout.routesFile())
                ? readFile(layout.routesFile(), file -> Optional.of(RoutesFileReader.read(file, carrierIds)))
                        .orElse(List.of())
                : List.of();
        groupIds.reportUnknownReferences();
        carrierIds.reportUnknownReferences();
        reportAlternateLoops(carriers);
        settings.ifPresent(s -> reportCarriersWithoutListener(carriers, s.sip()));
        settings.ifPresent(s -> reportNamesWithoutClientCa(peers, s.sip()));

        if (!errors.isEmpty() || settings.isEmpty()) {
            errors.sort(Comparator.comparing((ConfigError e) -> e.file().toString()).thenComparingInt(ConfigError::line));
            throw new ConfigException(errors);
        }
        GatewaySettings s = settings.get();
        return new GatewayConfig(gatewayConf, s.instanceId(), s.fleetSize(), s.sip(), s.redis(), s.admission(),
                s.admin(), byId(peers, PeerConfig::id), byId(groups, GroupConfig::id),
                byId(carriers, CarrierConfig::id), routes, s.rerouteHook(), s.records(), s.reroute(), s.dns(),
                s.capture());
    }

    /** A carrier is reached over its URI's transport, which needs a listener of that transport to send from. */
    private void reportCarriersWithoutListener(List<CarrierConfig> carriers, SipSettings sip) {
        for (CarrierConfig carrier : carriers) {
            Transport transport = carrier.uri().transport();
            if (sip.listeners().stream().noneMatch(listener -> listener.transport() == transport)) {
                errors.add(carrierIds.definedAt(carrier.id()).withKey("uri").error("transport "
                        + transport.sipName() + " has no listener in sip.listeners: nothing could be sent to it"));
            }
        }
    }

    /**
     * A peer matched by the san or subject of its certificate needs a listener that verifies client certificates
     * (client-ca): an unverified certificate can claim any name, so such a peer could never be matched.
     */
    private void reportNamesWithoutClientCa(List<PeerConfig> peers, SipSettings sip) {
        boolean verifying = sip.listeners().stream()
                .anyMatch(listener -> listener.tls().flatMap(TlsListenerSettings::clientCa).isPresent());
        for (PeerConfig peer : peers) {
            if (!verifying && peer.certificates().stream().anyMatch(CertificateMatch::needsClientCa)) {
                errors.add(peerIds.definedAt(peer.id()).withKey("match.certificates").error("san and subject match"
                        + " only a certificate verified against a client CA, and no tls listener in sip.listeners"
                        + " has client-ca (or match this peer by sha256)"));
            }
        }
    }

    /** A carrier whose alternates lead back to it (a -> b -> a) would offer a call to the same carriers again. */
    private void reportAlternateLoops(List<CarrierConfig> carriers) {
        Map<String, CarrierConfig> byId = byId(carriers, CarrierConfig::id);
        for (CarrierConfig start : carriers) {
            List<String> path = new ArrayList<>(List.of(start.id()));
            if (leadsBack(start.id(), start, byId, path, new java.util.HashSet<>())) {
                errors.add(carrierIds.definedAt(start.id()).withKey("alternates")
                        .error("alternates loop back to this carrier: " + String.join(" -> ", path)));
            }
        }
    }

    private static boolean leadsBack(String target, CarrierConfig from, Map<String, CarrierConfig> byId,
                                     List<String> path, java.util.Set<String> seen) {
        for (String next : from.alternates()) {
            path.add(next);
            if (next.equals(target)) {
                return true;
            }
            CarrierConfig carrier = byId.get(next);
            if (carrier != null && seen.add(next) && leadsBack(target, carrier, byId, path, seen)) {
                return true;
            }
            path.remove(path.size() - 1);
        }
        return false;
    }

    private <T> List<T> readDirectory(Path dir, Function<ConfigSection, Optional<T>> reader) {
        List<T> read = new ArrayList<>();
        for (Path file : confFiles(dir)) {
            readFile(file, reader).ifPresent(read::add);
        }
        return read;
    }

    private <T> Optional<T> readFile(Path path, Function<ConfigSection, Optional<T>> reader) {
        Optional<ConfigSection> file = HoconFile.read(path, errors);
        Optional<T> read = file.flatMap(reader);
        file.ifPresent(ConfigSection::reportUnknownKeys);
        return read;
    }

    /** The *.conf files of a directory in name order; a directory that does not exist holds none. */
    private List<Path> confFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            List<Path> files = entries.filter(p -> p.getFileName().toString().endsWith(".conf")
                    && Files.isRegularFile(p)).limit(ConfigBounds.MAX_FILES_PER_DIRECTORY + 1L).sorted().toList();
            if (files.size() > ConfigBounds.MAX_FILES_PER_DIRECTORY) {
                errors.add(new ConfigError(dir, 0, "", "more than " + ConfigBounds.MAX_FILES_PER_DIRECTORY
                        + " .conf files, over the limit of " + ConfigBounds.MAX_FILES_PER_DIRECTORY
                        + " per directory (none of them is read)"));
                return List.of();
            }
            return files;
        } catch (IOException e) {
            errors.add(new ConfigError(dir, 0, "", "cannot list the directory: " + e.getMessage()));
            return List.of();
        }
    }

    private static <T> Map<String, T> byId(List<T> configs, Function<T, String> id) {
        Map<String, T> map = new LinkedHashMap<>();
        configs.forEach(config -> map.put(id.apply(config), config));
        return map;
    }
}

package io.trunkgate.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/** Where the peer, group and carrier directories and routes.conf are, relative to gateway.conf. */
record FileLayout(Path peersDir, Path groupsDir, Path carriersDir, Path routesFile) {

    static FileLayout defaults(Path baseDir) {
        return new FileLayout(baseDir.resolve("peers"), baseDir.resolve("groups"), baseDir.resolve("carriers"),
                baseDir.resolve("routes.conf"));
    }

    /**
     * Missing default locations just mean "none"; a location set explicitly must exist, since a
     * mistyped path would otherwise silently load no peers or routes.
     */
    static FileLayout read(ConfigSection gateway, Path baseDir) {
        FileLayout defaults = defaults(baseDir);
        return new FileLayout(
                directory(gateway.optional("peers-dir"), baseDir, defaults.peersDir),
                directory(gateway.optional("groups-dir"), baseDir, defaults.groupsDir),
                directory(gateway.optional("carriers-dir"), baseDir, defaults.carriersDir),
                path(gateway.optional("routes-file"), baseDir, Files::isRegularFile, "no such file", defaults.routesFile));
    }

    private static Path directory(Field field, Path baseDir, Path defaultPath) {
        return path(field, baseDir, Files::isDirectory, "no such directory", defaultPath);
    }

    private static Path path(Field field, Path baseDir, Predicate<Path> exists, String problem, Path defaultPath) {
        Path path = field.nonEmptyString().map(baseDir::resolve).orElse(defaultPath);
        if (field.isPresent() && !exists.test(path)) {
            field.error(problem + ": " + path);
        }
        return path;
    }
}

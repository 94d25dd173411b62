package io.trunkgate.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * The admin token a gateway without admin.token makes at start (admin.token-file): 32 random bytes, written
 * readable by its owner only, for the CLI run beside it to read. A new one at every start.
 */
public final class AdminTokenFile {

    private static final SecureRandom RANDOM = new SecureRandom();

    private AdminTokenFile() {
    }

    /** A new token, written to {@code file} (owner read/write only; replacing what was there); the token. */
    public static String create(Path file) throws IOException {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Path parent = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(parent, ".admin-token", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(temp, token + "\n", StandardCharsets.UTF_8);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        return token;
    }

    /** The token in {@code file}, if it exists and holds one. */
    public static Optional<String> read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip()).filter(t -> !t.isEmpty());
    }
}

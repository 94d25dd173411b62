package io.trunkgate.tls;

import java.nio.file.Path;

/** A certificate, key or CA file that does not load; the message names the file and what is wrong with it. */
public class TlsMaterialException extends Exception {

    private final Path file;
    private final boolean password;

    public TlsMaterialException(Path file, String message) {
        this(file, false, message);
    }

    /** @param password whether the key's password is at fault (wrong, or missing for an encrypted key) */
    public TlsMaterialException(Path file, boolean password, String message) {
        super(message);
        this.file = file;
        this.password = password;
    }

    /** The file at fault. */
    public Path file() {
        return file;
    }

    public boolean password() {
        return password;
    }
}

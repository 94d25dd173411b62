package io.trunkgate.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads the certificate, key and CA files that TLS settings name, so that a file that would not load is a
 * configuration error (file, line and key of the setting) rather than a failure at start or a reload. Implemented
 * by {@code io.trunkgate.tls.TlsFiles}: the configuration sits below the TLS code and cannot call it itself.
 */
public interface TlsFileCheck {

    /** Checks nothing: for callers that only read settings, such as the admin command's address. */
    TlsFileCheck NONE = new TlsFileCheck() {
        @Override
        public Optional<Problem> listener(TlsListenerSettings settings) {
            return Optional.empty();
        }

        @Override
        public Optional<Problem> caFile(Path caFile) {
            return Optional.empty();
        }
    };

    /** Empty when the listener's certificate, key and client CA file load and fit together. */
    Optional<Problem> listener(TlsListenerSettings settings);

    /** Empty when {@code caFile} is a readable PEM bundle of CA certificates. */
    Optional<Problem> caFile(Path caFile);

    /**
     * Why TLS material would not load.
     *
     * @param file     the file at fault
     * @param password whether the fault is the key's password (wrong, or missing for an encrypted key)
     * @param message  what is wrong, naming the file, for an operator
     */
    record Problem(Path file, boolean password, String message) {
    }
}

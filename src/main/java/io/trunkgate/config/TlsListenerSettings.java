package io.trunkgate.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The files and choices of one TLS listener (gateway.conf, {@code sip.listeners[i]} with {@code transport = tls}).
 * Paths are resolved against the directory of gateway.conf.
 *
 * @param certificate        PEM file: the listener's certificate first, then the intermediate CAs
 * @param privateKey         PEM file: the certificate's private key (PKCS#1, PKCS#8, SEC1 EC; encrypted or not)
 * @param privateKeyPassword the password of an encrypted key
 * @param ciphers            the cipher suites offered, in order of preference; empty = the default set (TLS 1.3
 *                           suites and TLS 1.2's ECDHE suites with AES-GCM or ChaCha20-Poly1305)
 * @param clientCa           PEM file of the CAs a client certificate is verified against; a peer matched by the
 *                           {@code san} or {@code subject} of its certificate needs one
 */
public record TlsListenerSettings(Path certificate, Path privateKey, Optional<String> privateKeyPassword,
                                  List<String> ciphers, Optional<Path> clientCa) {
    public TlsListenerSettings {
        ciphers = List.copyOf(ciphers);
    }

    /** The password never reaches a log line or the status page. */
    @Override
    public String toString() {
        return "TlsListenerSettings[certificate=" + certificate + ", privateKey=" + privateKey
                + ", privateKeyPassword=" + (privateKeyPassword.isPresent() ? "(set)" : "(none)")
                + ", ciphers=" + ciphers + ", clientCa=" + clientCa + "]";
    }
}

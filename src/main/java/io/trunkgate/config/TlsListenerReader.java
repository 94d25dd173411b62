package io.trunkgate.config;

import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;

/** The TLS keys of gateway.conf: a TLS listener's files and ciphers, and {@code sip.tls}. */
final class TlsListenerReader {

    private TlsListenerReader() {
    }

    /**
     * The certificate, key and cipher keys of a TLS listener, each refused on UDP and TCP, and the files loaded
     * through {@code tlsFiles}, whose problem is reported at the key naming the file at fault.
     */
    static Optional<TlsListenerSettings> read(ConfigSection item, Transport transport, Path baseDir,
                                              TlsFileCheck tlsFiles) {
        boolean tls = transport == Transport.TLS;
        Field certificateField = tls ? item.required("certificate") : item.optional("certificate");
        Field keyField = tls ? item.required("private-key") : item.optional("private-key");
        Field passwordField = item.optional("private-key-password");
        Field ciphersField = item.optional("ciphers");
        Field clientCaField = item.optional("client-ca");
        if (!tls) {
            for (Field field : List.of(certificateField, keyField, passwordField, ciphersField, clientCaField)) {
                if (field.isPresent()) {
                    field.error("only a tls listener takes it (this one is " + transport.sipName() + ")");
                }
            }
            return Optional.empty();
        }
        Optional<Path> certificate = certificateField.readableFile(baseDir);
        Optional<Path> key = keyField.readableFile(baseDir);
        Optional<String> password = passwordField.string().filter(p -> !p.isEmpty());
        Optional<Path> clientCa = clientCaField.readableFile(baseDir);
        List<String> ciphers = ciphers(ciphersField);
        if (certificate.isEmpty() || key.isEmpty() || (clientCaField.isPresent() && clientCa.isEmpty())) {
            return Optional.empty();
        }
        TlsListenerSettings settings = new TlsListenerSettings(certificate.get(), key.get(), password, ciphers,
                clientCa);
        Optional<TlsFileCheck.Problem> problem = tlsFiles.listener(settings);
        problem.ifPresent(p -> {
            Field at = p.password() ? (passwordField.isPresent() ? passwordField : keyField)
                    : p.file().equals(key.get()) ? keyField
                    : clientCa.filter(p.file()::equals).isPresent() ? clientCaField : certificateField;
            at.error(p.message());
        });
        return problem.isEmpty() ? Optional.of(settings) : Optional.empty();
    }

    /** Cipher suite names the JDK supports, in the order written; empty = the default set. */
    private static List<String> ciphers(Field field) {
        Optional<List<Field>> elements = field.elements();
        if (elements.isEmpty()) {
            return List.of();
        }
        if (elements.get().isEmpty()) {
            field.error("must list at least one cipher suite (leave it out for the default set)");
        }
        Set<String> supported = supportedCipherSuites();
        List<String> ciphers = new ArrayList<>();
        for (Field element : elements.get()) {
            element.nonEmptyString().map(String::trim).ifPresent(name -> {
                if (!supported.contains(name)) {
                    element.error("unknown cipher suite \"" + name + "\" (this JVM supports e.g."
                            + " TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384)");
                } else if (ciphers.contains(name)) {
                    element.error("cipher suite " + name + " is listed twice");
                } else {
                    ciphers.add(name);
                }
            });
        }
        return ciphers;
    }

    private static Set<String> supportedCipherSuites() {
        try {
            return Set.of(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no TLS implementation", e);
        }
    }

    /** sip.tls: the gateway-wide TLS settings. */
    static TlsSettings settings(ConfigSection file) {
        return new TlsSettings(file.optional("sip.tls.handshake-timeout").duration(Duration.ofMillis(100))
                .orElse(TlsSettings.DEFAULTS.handshakeTimeout()));
    }
}

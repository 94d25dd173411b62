package io.trunkgate.tls.internal;

import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLContext;

/** The cipher suites a listener offers when its configuration names none. */
public final class CipherSuites {

    private CipherSuites() {
    }

    /**
     * TLS 1.3's suites and TLS 1.2's ECDHE suites with an AEAD cipher (AES-GCM, ChaCha20-Poly1305): forward secrecy
     * and no CBC. In the JDK's order of preference, those the JDK supports.
     */
    public static List<String> defaults() {
        return Arrays.stream(jdkDefaults()).filter(CipherSuites::safe).toList();
    }

    static boolean safe(String suite) {
        boolean tls13 = suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_");
        boolean ecdheAead = suite.startsWith("TLS_ECDHE_")
                && (suite.contains("_GCM_") || suite.contains("_CHACHA20_POLY1305_"));
        return tls13 || ecdheAead;
    }

    private static String[] jdkDefaults() {
        try {
            return SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no TLS implementation", e);
        }
    }
}

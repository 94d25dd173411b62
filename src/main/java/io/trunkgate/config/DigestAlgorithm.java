package io.trunkgate.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/** A hash of HTTP digest authentication as SIP uses it: MD5 (RFC 2617) or SHA-256 (RFC 7616, RFC 8760). */
public enum DigestAlgorithm {
    MD5("MD5", "MD5"),
    SHA_256("SHA-256", "SHA-256");

    private final String token;
    private final String jcaName;

    DigestAlgorithm(String token, String jcaName) {
        this.token = token;
        this.jcaName = jcaName;
    }

    /** As the {@code algorithm} parameter of a challenge and of credentials writes it. */
    public String token() {
        return token;
    }

    /** The algorithm named {@code token} in any case ("md5", "SHA-256"), or empty. */
    public static Optional<DigestAlgorithm> of(String token) {
        return Arrays.stream(values()).filter(a -> a.token.equalsIgnoreCase(token.trim())).findFirst();
    }

    /** How many hex digits its hashes have: an HA1 of this algorithm is that long. */
    public int hexLength() {
        return this == MD5 ? 32 : 64;
    }

    /** The hash of {@code text} (UTF-8) in lowercase hex, as digest authentication writes every hash. */
    public String hash(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(jcaName)
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has " + jcaName, e);
        }
    }
}

package io.trunkgate.auth.internal;

import io.trunkgate.config.DigestAlgorithm;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/** The digest a client computes for {@code qop=auth} (RFC 7616 §3.4.1; RFC 2617 §3.2.2.1 for MD5). */
public final class Digests {

    private Digests() {
    }

    /**
     * {@code H(HA1:nonce:nc:cnonce:qop:H(method:uri))}, every part as the client wrote it; {@code ha1} is
     * {@code H(user:realm:password)} (algorithms without {@code -sess}).
     */
    public static String response(DigestAlgorithm algorithm, String ha1, String nonce, String nonceCount,
                                  String cnonce, String qop, String method, String uri) {
        String ha2 = algorithm.hash(method + ":" + uri);
        return algorithm.hash(ha1 + ":" + nonce + ":" + nonceCount + ":" + cnonce + ":" + qop + ":" + ha2);
    }

    /** Whether two hex digests are the same, in any case, in time that does not depend on where they differ. */
    public static boolean same(String expected, String given) {
        return MessageDigest.isEqual(expected.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII),
                given.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
    }
}

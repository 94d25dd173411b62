package io.trunkgate.limit.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The sliding-log member for a call: 16 characters derived from its key (Call-ID, From tag, CSeq). Call-IDs run
 * to 40 bytes and more; a fixed short member bounds the memory of a window, and the same call always maps to the
 * same member, which is what makes a copy of a call a duplicate. A collision (about 2^-48 for a window of a
 * million calls) would only make one call be refused as a copy of another.
 */
final class CallMember {

    /** One per thread, reset by each digest: replaces a look-up of the algorithm among the JDK's providers per call. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });
    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private CallMember() {
    }

    static String of(String callKey) {
        byte[] digest = SHA_256.get().digest(callKey.getBytes(StandardCharsets.UTF_8));
        return BASE64.encodeToString(Arrays.copyOf(digest, 12));
    }
}

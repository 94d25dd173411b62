package io.trunkgate.limit.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The sliding-log member for a call: 16 characters derived from its Call-ID. Call-IDs run to 40 bytes and
 * more; a fixed short member bounds the memory of a window, and the same call always maps to the same
 * member, which is what makes retransmissions count once. A collision (about 2^-48 for a window of a
 * million calls) would only make one call count as a retransmission of another.
 */
final class CallMember {

    private CallMember() {
    }

    static String of(String callId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(callId.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 12));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

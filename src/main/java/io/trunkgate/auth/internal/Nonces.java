package io.trunkgate.auth.internal;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Nonces that check themselves: base64url of the time they were issued (milliseconds since the epoch, 8 bytes),
 * 8 random bytes, and the first 16 bytes of an HMAC-SHA256 of those under the {@link FleetSecret}. Any gateway of the
 * fleet tells its own from a forged or altered one, and its age, without keeping anything. Gateway clocks may differ:
 * a nonce is fresh while its age is within the lifetime either way.
 */
public final class Nonces {

    private static final int TIME_BYTES = 8;
    private static final int RANDOM_BYTES = 8;
    private static final int MAC_BYTES = 16;
    private static final int BYTES = TIME_BYTES + RANDOM_BYTES + MAC_BYTES;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final FleetSecret secret;
    private final Clock clock;
    private final SecureRandom random;

    public Nonces(FleetSecret secret, Clock clock, SecureRandom random) {
        this.secret = secret;
        this.clock = clock;
        this.random = random;
    }

    /** A new nonce, issued now. */
    public String issue() {
        byte[] nonce = new byte[BYTES];
        ByteBuffer.wrap(nonce).putLong(clock.millis());
        byte[] randomPart = new byte[RANDOM_BYTES];
        random.nextBytes(randomPart);
        System.arraycopy(randomPart, 0, nonce, TIME_BYTES, RANDOM_BYTES);
        System.arraycopy(mac(secret.current(), nonce), 0, nonce, TIME_BYTES + RANDOM_BYTES, MAC_BYTES);
        return ENCODER.encodeToString(nonce);
    }

    /**
     * Whether {@code nonce} was issued by the fleet (under its key now or the one before) within {@code lifetime} of
     * now. A nonce written in any other way than {@link #issue} writes it is not the fleet's: one nonce has one
     * spelling, so it has one key in the record of nonces used.
     */
    public boolean fresh(String nonce, Duration lifetime) {
        byte[] bytes;
        try {
            bytes = DECODER.decode(nonce);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (bytes.length != BYTES || !ENCODER.encodeToString(bytes).equals(nonce)) {
            return false;
        }
        byte[] given = Arrays.copyOfRange(bytes, TIME_BYTES + RANDOM_BYTES, BYTES);
        boolean signed = false;
        for (byte[] key : secret.accepted()) {
            signed |= MessageDigest.isEqual(given, Arrays.copyOf(mac(key, bytes), MAC_BYTES));
        }
        long age = clock.millis() - ByteBuffer.wrap(bytes).getLong();
        return signed && Math.abs(age) <= lifetime.toMillis();
    }

    /** The HMAC of the nonce's time and random part. */
    private static byte[] mac(byte[] key, byte[] nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(nonce, 0, TIME_BYTES + RANDOM_BYTES);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }
}

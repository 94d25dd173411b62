package io.trunkgate.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.ListIterator;
import javax.sip.header.ProxyAuthenticateHeader;
import javax.sip.message.Response;

/**
 * A caller's side of digest authentication, written from RFC 7616 for the tests (not the gateway's code): reads the
 * challenges of a 407 and computes the credentials that answer one.
 */
public final class DigestClient {

    /** One Proxy-Authenticate of a 407, its parameters unquoted; {@code stale} false when absent. */
    public record Challenge(String realm, String nonce, String algorithm, String qop, boolean stale) {
    }

    private DigestClient() {
    }

    /** The challenges of {@code response}, in order. */
    public static List<Challenge> challenges(Response response) {
        List<Challenge> challenges = new ArrayList<>();
        for (ListIterator<?> it = response.getHeaders(ProxyAuthenticateHeader.NAME); it.hasNext(); ) {
            ProxyAuthenticateHeader header = (ProxyAuthenticateHeader) it.next();
            challenges.add(new Challenge(header.getRealm(), header.getNonce(), header.getAlgorithm(),
                    header.getQop(), "true".equalsIgnoreCase(header.getParameter("stale"))));
        }
        return challenges;
    }

    /**
     * The value of a Proxy-Authorization answering {@code challenge} for an INVITE to {@code uri}, with qop=auth,
     * nonce-count {@code nc} and a fixed cnonce.
     */
    public static String answer(Challenge challenge, String user, String password, String uri, int nc) {
        return answer(challenge.realm(), challenge.nonce(), challenge.algorithm(), user, password, uri, nc);
    }

    /** As above, for any realm, nonce and algorithm ("MD5", "SHA-256"). */
    public static String answer(String realm, String nonce, String algorithm, String user, String password,
                                String uri, int nc) {
        String count = String.format("%08x", nc);
        String cnonce = "0a4f113b";
        String ha1 = hash(algorithm, user + ":" + realm + ":" + password);
        String ha2 = hash(algorithm, "INVITE:" + uri);
        String response = hash(algorithm, ha1 + ":" + nonce + ":" + count + ":" + cnonce + ":auth:" + ha2);
        return "Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + nonce + "\", uri=\"" + uri
                + "\", response=\"" + response + "\", algorithm=" + algorithm + ", cnonce=\"" + cnonce
                + "\", qop=auth, nc=" + count;
    }

    private static String hash(String algorithm, String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm)
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalArgumentException(algorithm, e);
        }
    }
}

package io.trunkgate.config;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A peer's {@code match.credentials}: the user name and realm its INVITEs authenticate with by HTTP digest (RFC 3261
 * §22), and its HA1 for each algorithm it may use ({@code H(user:realm:password)}; the password itself is not kept).
 *
 * @param algorithms the algorithms offered in a challenge for it, most preferred first; each has its HA1
 * @param ha1        by algorithm, in lowercase hex
 */
public record PeerCredentials(String user, String realm, List<DigestAlgorithm> algorithms,
                              Map<DigestAlgorithm, String> ha1) {

    public PeerCredentials {
        algorithms = List.copyOf(algorithms);
        ha1 = Map.copyOf(ha1);
        if (algorithms.isEmpty() || !ha1.keySet().containsAll(algorithms)) {
            throw new IllegalArgumentException("credentials of " + user + "@" + realm + " need an HA1 for each of "
                    + algorithms);
        }
    }

    /** Credentials from the password, offering {@code algorithms} in this order. */
    public static PeerCredentials withPassword(String user, String realm, String password,
                                               List<DigestAlgorithm> algorithms) {
        Map<DigestAlgorithm, String> ha1 = new EnumMap<>(DigestAlgorithm.class);
        for (DigestAlgorithm algorithm : algorithms) {
            ha1.put(algorithm, algorithm.hash(user + ":" + realm + ":" + password));
        }
        return new PeerCredentials(user, realm, algorithms, ha1);
    }

    /** The HA1 hashes are secrets: never in a log line, an error message or a test's failure. */
    @Override
    public String toString() {
        return "credentials " + user + "@" + realm + " " + algorithms.stream().map(DigestAlgorithm::token).toList();
    }
}

package io.trunkgate.auth;

import java.util.Optional;

/**
 * The parameters of one {@code Proxy-Authorization: Digest ...} header as written, unquoted (RFC 7616 §3.4); empty for
 * those the header does not carry.
 */
public record DigestResponse(String username, String realm, Optional<String> nonce, Optional<String> uri,
                             Optional<String> response, Optional<String> algorithm, Optional<String> cnonce,
                             Optional<String> nonceCount, Optional<String> qop) {
}

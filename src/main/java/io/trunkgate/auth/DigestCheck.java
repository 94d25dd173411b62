package io.trunkgate.auth;

/** What {@link DigestAuthentication#check} made of credentials answering one of the gateway's challenges. */
public sealed interface DigestCheck {

    /**
     * The response is right and the nonce is the fleet's and fresh: the credentials are good once this (nonce,
     * nonce-count) turns out to be used for the first time ({@link DigestAuthentication#firstUse}).
     *
     * @param nonceCount the nc parameter, lowercase
     */
    record Accepted(String nonce, String nonceCount) implements DigestCheck {
    }

    /**
     * The response is right for the nonce, but the nonce was not issued by the fleet or is past its lifetime: the
     * caller knows the password and is challenged again with {@code stale=true} (RFC 7616 §3.3).
     */
    record Stale() implements DigestCheck {
    }

    /** The response is not the one the password gives. */
    record WrongPassword() implements DigestCheck {
    }

    /**
     * The credentials cannot be checked as they are: a parameter missing or of a wrong form, a qop other than
     * {@code auth}, an algorithm not offered for them.
     */
    record Malformed(String why) implements DigestCheck {
    }
}

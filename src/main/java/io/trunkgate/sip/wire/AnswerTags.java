package io.trunkgate.sip.wire;

import java.util.concurrent.ThreadLocalRandom;

/** The To tags of the answers this package writes without the stack. */
final class AnswerTags {

    private AnswerTags() {
    }

    /** A new tag: 56 random bits in hex (a tag only has to be unique, RFC 3261 §19.3). */
    static String next() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 8);
    }
}

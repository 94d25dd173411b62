package io.trunkgate.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.PeerCredentials;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The digest arithmetic against the examples of the RFCs (RFC 8760 names RFC 7616's for SIP). */
class DigestsTest {

    @Test
    void rfc2617Section3_5() {
        PeerCredentials mufasa = PeerCredentials.withPassword("Mufasa", "testrealm@host.com", "Circle Of Life",
                List.of(DigestAlgorithm.MD5));
        assertEquals("939e7578ed9e3c518a452acee763bce9", mufasa.ha1().get(DigestAlgorithm.MD5));
        assertEquals("6629fae49393a05397450978507c4ef1", Digests.response(DigestAlgorithm.MD5,
                mufasa.ha1().get(DigestAlgorithm.MD5), "dcd98b7102dd2f0e8b11d0f600bfb0c093", "00000001", "0a4f113b",
                "auth", "GET", "/dir/index.html"));
    }

    @Test
    void rfc7616Section3_9_1WithMd5AndSha256() {
        PeerCredentials mufasa = PeerCredentials.withPassword("Mufasa", "http-auth@example.org", "Circle of Life",
                List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5));
        String nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
        String cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", Digests.response(DigestAlgorithm.MD5,
                mufasa.ha1().get(DigestAlgorithm.MD5), nonce, "00000001", cnonce, "auth", "GET", "/dir/index.html"));
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
                Digests.response(DigestAlgorithm.SHA_256, mufasa.ha1().get(DigestAlgorithm.SHA_256), nonce,
                        "00000001", cnonce, "auth", "GET", "/dir/index.html"));
    }

    @Test
    void responsesCompareInAnyCaseAndNotByPrefix() {
        assertTrue(Digests.same("6629fae49393a05397450978507c4ef1", "6629FAE49393A05397450978507C4EF1"));
        assertFalse(Digests.same("6629fae49393a05397450978507c4ef1", "6629fae49393a05397450978507c4ef"));
        assertFalse(Digests.same("6629fae49393a05397450978507c4ef1", "6629fae49393a05397450978507c4ef2"));
    }
}

package io.trunkgate.tls.internal;

import io.trunkgate.tls.TlsMaterialException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A certificate chain and the private key of its first certificate, checked to belong together.
 *
 * @param files the two files and their state when read, to tell when they change
 */
public record KeyMaterial(List<X509Certificate> chain, PrivateKey key, FileStamps files) {

    public KeyMaterial {
        chain = List.copyOf(chain);
    }

    public static KeyMaterial load(Path certificateFile, Path keyFile, Optional<String> password)
            throws TlsMaterialException {
        // stamped before reading: a file replaced while being read is read again at the next check
        FileStamps stamps = FileStamps.of(certificateFile, keyFile);
        List<X509Certificate> chain = PemFiles.certificates(certificateFile);
        PrivateKey key = PemFiles.privateKey(keyFile, password);
        if (!belongTogether(key, chain.get(0).getPublicKey())) {
            throw new TlsMaterialException(keyFile, keyFile + ": does not match the certificate in " + certificateFile
                    + " (" + chain.get(0).getSubjectX500Principal().getName() + ")");
        }
        return new KeyMaterial(chain, key, stamps);
    }

    public X509Certificate leaf() {
        return chain.get(0);
    }

    public Instant notAfter() {
        return leaf().getNotAfter().toInstant();
    }

    /** An RSA key by its modulus; any other by a signature the certificate's key verifies. */
    private static boolean belongTogether(PrivateKey key, PublicKey publicKey) {
        if (key instanceof RSAKey rsa && publicKey instanceof RSAKey rsaPublic) {
            return rsa.getModulus().equals(rsaPublic.getModulus());
        }
        if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
            return false;
        }
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            default -> key.getAlgorithm(); // EdDSA, Ed25519, Ed448
        };
        try {
            byte[] probe = "trunkgate key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}

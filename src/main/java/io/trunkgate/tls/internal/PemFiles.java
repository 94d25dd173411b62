package io.trunkgate.tls.internal;

import io.trunkgate.tls.TlsMaterialException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.pkcs.PKCSException;

/**
 * Reads certificates and private keys from PEM files, with BouncyCastle's parser (the JDK reads neither PEM nor
 * OpenSSL's encrypted keys) and the JDK's own key and certificate objects, which JSSE uses.
 */
public final class PemFiles {

    /**
     * BouncyCastle's provider as an object, never installed in the JVM (JSSE keeps the JDK's providers): the key
     * encryptions of PEM files use cipher names only it knows ("AES/CBC/PKCS7Padding").
     */
    private static final Provider BOUNCY_CASTLE = new BouncyCastleProvider();

    private PemFiles() {
    }

    /** Every certificate of a PEM file, in file order; other PEM blocks (a key in the same file) are skipped. */
    public static List<X509Certificate> certificates(Path file) throws TlsMaterialException {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object block : blocks(file)) {
            if (block instanceof X509CertificateHolder holder) {
                try {
                    certificates.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw new TlsMaterialException(file, file + ": a certificate in it cannot be read: " + e.getMessage());
                }
            }
        }
        if (certificates.isEmpty()) {
            throw new TlsMaterialException(file, file + ": no certificate in it (expected a PEM block"
                    + " \"-----BEGIN CERTIFICATE-----\")");
        }
        return certificates;
    }

    /**
     * The private key of a PEM file: PKCS#1 (RSA), SEC1 (EC) or PKCS#8, either unencrypted or encrypted (OpenSSL's
     * "Proc-Type: 4,ENCRYPTED" or an "ENCRYPTED PRIVATE KEY").
     */
    public static PrivateKey privateKey(Path file, Optional<String> password) throws TlsMaterialException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        for (Object block : blocks(file)) {
            try {
                if (block instanceof PEMKeyPair pair) {
                    return converter.getKeyPair(pair).getPrivate();
                }
                if (block instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (block instanceof PEMEncryptedKeyPair encrypted) {
                    char[] secret = secret(file, password);
                    return converter.getKeyPair(encrypted.decryptKeyPair(
                            new JcePEMDecryptorProviderBuilder().setProvider(BOUNCY_CASTLE).build(secret))).getPrivate();
                }
                if (block instanceof PKCS8EncryptedPrivateKeyInfo encrypted) {
                    char[] secret = secret(file, password);
                    return converter.getPrivateKey(encrypted.decryptPrivateKeyInfo(
                            new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider(BOUNCY_CASTLE).build(secret)));
                }
            } catch (PKCSException | IOException e) {
                throw new TlsMaterialException(file, true, file + ": cannot decrypt the key: wrong"
                        + " private-key-password, or a damaged file (" + e.getMessage() + ")");
            } catch (OperatorCreationException e) {
                throw new TlsMaterialException(file, file + ": the key's encryption is not supported by this JVM ("
                        + e.getMessage() + ")");
            }
        }
        throw new TlsMaterialException(file, file + ": no private key in it (expected a PEM block such as"
                + " \"-----BEGIN PRIVATE KEY-----\")");
    }

    private static char[] secret(Path file, Optional<String> password) throws TlsMaterialException {
        return password.map(String::toCharArray).orElseThrow(() -> new TlsMaterialException(file, true,
                file + ": the key is encrypted and private-key-password is not set"));
    }

    /** The PEM blocks of a file, parsed; refuses a file that holds none. */
    private static List<Object> blocks(Path file) throws TlsMaterialException {
        List<Object> blocks = new ArrayList<>();
        // ISO-8859-1 reads any byte: text around the blocks (openssl's "Bag Attributes") may be in any charset
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1);
             PEMParser parser = new PEMParser(reader)) {
            for (Object block = parser.readObject(); block != null; block = parser.readObject()) {
                blocks.add(block);
            }
        } catch (IOException e) {
            if (!Files.isReadable(file)) {
                throw new TlsMaterialException(file, file + ": cannot read it (" + e.getMessage() + ")");
            }
            throw notPem(file, "a malformed PEM block (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            // BouncyCastle throws unchecked exceptions for some malformed base64 or ASN.1
            throw notPem(file, "a malformed PEM block (" + e.getMessage() + ")");
        }
        if (blocks.isEmpty()) {
            throw notPem(file, looksLikeDer(file)
                    ? "it holds binary data, DER perhaps (openssl x509 -inform der -outform pem converts it)"
                    : "no \"-----BEGIN ...-----\" block in it");
        }
        return blocks;
    }

    /** DER starts with an ASN.1 SEQUENCE tag. */
    private static boolean looksLikeDer(Path file) {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x30;
        } catch (IOException e) {
            return false;
        }
    }

    private static TlsMaterialException notPem(Path file, String why) {
        return new TlsMaterialException(file, file + ": not a PEM file: " + why);
    }
}

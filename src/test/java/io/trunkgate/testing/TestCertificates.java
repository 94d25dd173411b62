package io.trunkgate.testing;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates and keys made at test time, written as PEM files into a test's directory: CAs, server and client
 * certificates for names and addresses, expired and self-signed ones, RSA and EC keys, encrypted keys.
 * <pre>
 * TestCertificates certs = new TestCertificates(tempDir);
 * TestCertificates.Issued ca = certs.certificate("Test CA").ca().write("ca");
 * TestCertificates.Issued server = certs.certificate("carrier").dns("carrier.example").issuedBy(ca).write("server");
 * </pre>
 */
public final class TestCertificates {

    public enum KeyType { RSA, EC }

    private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime());
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final java.security.Provider BOUNCY_CASTLE = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A new certificate with subject "CN=commonName" (EC key, valid from an hour ago for a year, self-signed). */
    public Builder certificate(String commonName) {
        return new Builder("CN=" + commonName);
    }

    public final class Builder {
        private String subject;
        private final List<GeneralName> names = new ArrayList<>();
        private KeyType keyType = KeyType.EC;
        private Issued issuer;
        private boolean ca;
        private Instant notBefore = Instant.now().minus(Duration.ofHours(1));
        private Instant notAfter = Instant.now().plus(Duration.ofDays(365));

        private Builder(String subject) {
            this.subject = subject;
        }

        /** The whole subject, e.g. "CN=acme trunk,O=Acme". */
        public Builder subject(String distinguishedName) {
            this.subject = distinguishedName;
            return this;
        }

        public Builder dns(String... dnsNames) {
            for (String name : dnsNames) {
                names.add(new GeneralName(GeneralName.dNSName, name));
            }
            return this;
        }

        public Builder uri(String... uris) {
            for (String uri : uris) {
                names.add(new GeneralName(GeneralName.uniformResourceIdentifier, uri));
            }
            return this;
        }

        public Builder ip(String... addresses) {
            for (String address : addresses) {
                names.add(new GeneralName(GeneralName.iPAddress, address));
            }
            return this;
        }

        public Builder key(KeyType type) {
            this.keyType = type;
            return this;
        }

        public Builder issuedBy(Issued authority) {
            this.issuer = authority;
            return this;
        }

        /** A CA: basic constraints cA, key usage keyCertSign. */
        public Builder ca() {
            this.ca = true;
            return this;
        }

        public Builder validity(Instant from, Instant until) {
            this.notBefore = from;
            this.notAfter = until;
            return this;
        }

        /** Expired a day ago. */
        public Builder expired() {
            return validity(Instant.now().minus(Duration.ofDays(30)), Instant.now().minus(Duration.ofDays(1)));
        }

        /** Writes {@code <name>.pem} (the certificate, then its issuers but the root) and {@code <name>.key}. */
        public Issued write(String name) {
            try {
                KeyPair keys = keys(keyType);
                // through X500Principal: RDNs in the order an RFC 2253 string means, as the gateway's config reads them
                X500Name subjectName = X500Name.getInstance(new X500Principal(subject).getEncoded());
                X500Name issuerName = issuer == null ? subjectName
                        : X500Name.getInstance(issuer.certificate().getSubjectX500Principal().getEncoded());
                X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName,
                        BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(notBefore), Date.from(notAfter),
                        subjectName, keys.getPublic());
                JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
                builder.addExtension(Extension.subjectKeyIdentifier, false,
                        extensions.createSubjectKeyIdentifier(keys.getPublic()));
                if (issuer != null) {
                    builder.addExtension(Extension.authorityKeyIdentifier, false,
                            extensions.createAuthorityKeyIdentifier(issuer.certificate()));
                }
                builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(ca
                        ? KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature
                        : KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
                if (!names.isEmpty()) {
                    builder.addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(new GeneralName[0])));
                }
                KeyPair signer = issuer == null ? keys : issuer.keys();
                String algorithm = signer.getPrivate().getAlgorithm().equals("EC") ? "SHA256withECDSA"
                        : "SHA256withRSA";
                X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                        builder.build(new JcaContentSignerBuilder(algorithm).build(signer.getPrivate())));
                List<X509Certificate> chain = new ArrayList<>();
                chain.add(certificate);
                if (issuer != null && !issuer.isRoot()) {
                    chain.addAll(issuer.chain());
                }
                Path certificateFile = dir.resolve(name + ".pem");
                Path keyFile = dir.resolve(name + ".key");
                writePem(certificateFile, chain.toArray());
                writePem(keyFile, new JcaPKCS8Generator(keys.getPrivate(), null));
                return new Issued(certificate, keys, chain, certificateFile, keyFile, dir);
            } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
                throw new IllegalStateException("cannot make the test certificate " + subject, e);
            }
        }
    }

    /**
     * A certificate and its key, as written.
     *
     * @param chain           the certificate, then its issuers up to but not including the root
     * @param certificateFile PEM: the chain
     * @param keyFile         PEM: the key, unencrypted PKCS#8
     */
    public record Issued(X509Certificate certificate, KeyPair keys, List<X509Certificate> chain,
                         Path certificateFile, Path keyFile, Path dir) {

        boolean isRoot() {
            return certificate.getSubjectX500Principal().equals(certificate.getIssuerX500Principal());
        }

        /** The key as an encrypted PKCS#8 file ("ENCRYPTED PRIVATE KEY", AES-256-CBC). */
        public Path encryptedKey(String fileName, String password) {
            try {
                Path file = dir.resolve(fileName);
                writePem(file, new JcaPKCS8Generator(keys.getPrivate(),
                        new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC).setProvider(BOUNCY_CASTLE).setRandom(RANDOM)
                                .setPassword(password.toCharArray()).build()));
                return file;
            } catch (OperatorCreationException | IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The key in OpenSSL's traditional format ("RSA PRIVATE KEY" / "EC PRIVATE KEY"), AES-128-CBC encrypted. */
        public Path opensslEncryptedKey(String fileName, String password) {
            Path file = dir.resolve(fileName);
            try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
                 JcaPEMWriter pem = new JcaPEMWriter(writer)) {
                pem.writeObject(keys.getPrivate(), new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BOUNCY_CASTLE).setSecureRandom(RANDOM)
                        .build(password.toCharArray()));
                return file;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The key in OpenSSL's traditional format, unencrypted (PKCS#1 for RSA, SEC1 for EC). */
        public Path traditionalKey(String fileName) {
            Path file = dir.resolve(fileName);
            try {
                writePem(file, keys.getPrivate());
                return file;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** SHA-256 of the certificate, uppercase hex pairs joined by colons. */
        public String sha256() {
            try {
                return HexFormat.ofDelimiter(":").withUpperCase()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static KeyPair keys(KeyType type) throws GeneralSecurityException {
        if (type == KeyType.RSA) {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, RANDOM);
            return generator.generateKeyPair();
        }
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static void writePem(Path file, Object... objects) throws IOException {
        // written to a temporary file and moved, as a renewal tool does: a reader never sees half a file
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (Writer writer = Files.newBufferedWriter(partial, StandardCharsets.US_ASCII);
             JcaPEMWriter pem = new JcaPEMWriter(writer)) {
            for (Object object : objects) {
                pem.writeObject(object);
            }
        }
        Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}

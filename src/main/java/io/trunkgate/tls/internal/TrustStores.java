package io.trunkgate.tls.internal;

import io.trunkgate.tls.TlsMaterialException;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** The JDK's PKIX trust manager over the CAs of a PEM bundle, or over the system CAs. */
public final class TrustStores {

    private TrustStores() {
    }

    /** Every certificate of {@code caFile} as a trust anchor. */
    public static X509ExtendedTrustManager pkix(Path caFile) throws TlsMaterialException {
        List<X509Certificate> cas = PemFiles.certificates(caFile);
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            return fromStore(store);
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsMaterialException(caFile, caFile + ": cannot use its certificates as CAs: " + e.getMessage());
        }
    }

    /** The system CAs (the JDK's cacerts, or javax.net.ssl.trustStore when set). */
    public static X509ExtendedTrustManager system() {
        try {
            return fromStore(null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK's trust store cannot be read", e);
        }
    }

    public static X509ExtendedTrustManager pkix(Optional<Path> caFile) throws TlsMaterialException {
        return caFile.isPresent() ? pkix(caFile.get()) : system();
    }

    private static X509ExtendedTrustManager fromStore(KeyStore store) throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(store);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509ExtendedTrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JDK's PKIX TrustManagerFactory made no X509ExtendedTrustManager");
    }
}

package io.trunkgate.tls.internal;

import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.tls.TlsMaterialException;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presents one certificate and key, and reads them again when their files change: when a handshake asks for them,
 * at most once a second on the clock, the files' stamps are compared with those of the material in use. A renewal
 * that does not load leaves the material in use, and is logged once per distinct failure.
 *
 * <p>Each loaded generation has an alias of its own, so a handshake that chose one alias keeps getting that
 * generation's chain and key even if a reload happens between JSSE's calls.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {

    private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);
    private static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);
    private static final String ALIAS_PREFIX = "trunkgate-";

    private record Generation(String alias, KeyMaterial material) {
    }

    private final TlsListenerSettings settings;
    private final Clock clock;
    private volatile Generation current;
    private volatile Generation previous;
    private volatile Optional<String> lastReloadError = Optional.empty();
    private Instant nextCheck;
    private int generations;

    public ReloadingKeyManager(TlsListenerSettings settings, Clock clock, KeyMaterial initial) {
        this.settings = settings;
        this.clock = clock;
        this.current = new Generation(ALIAS_PREFIX + 0, initial);
        this.previous = current;
        this.nextCheck = clock.instant().plus(CHECK_INTERVAL);
    }

    public KeyMaterial material() {
        return current.material();
    }

    public Optional<String> lastReloadError() {
        return lastReloadError;
    }

    /** Re-reads the files if they changed since the material in use was read, at most once per second. */
    public synchronized void reloadIfChanged() {
        Instant now = clock.instant();
        if (now.isBefore(nextCheck)) {
            return;
        }
        nextCheck = now.plus(CHECK_INTERVAL);
        FileStamps stamps = FileStamps.of(settings.certificate(), settings.privateKey());
        if (stamps.equals(current.material().files())) {
            return;
        }
        try {
            KeyMaterial loaded = KeyMaterial.load(settings.certificate(), settings.privateKey(),
                    settings.privateKeyPassword());
            generations++;
            previous = current;
            current = new Generation(ALIAS_PREFIX + generations, loaded);
            lastReloadError = Optional.empty();
            LOG.info("TLS certificate {} reloaded: {}, expires {}", settings.certificate(),
                    loaded.leaf().getSubjectX500Principal().getName(), loaded.notAfter());
        } catch (TlsMaterialException e) {
            if (!lastReloadError.equals(Optional.of(e.getMessage()))) {
                LOG.warn("TLS certificate {} changed but does not load, still using the one expiring {}: {}",
                        settings.certificate(), current.material().notAfter(), e.getMessage());
            }
            lastReloadError = Optional.of(e.getMessage());
        }
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return chooseServerAlias(keyType, issuers, null);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        reloadIfChanged();
        return aliasFor(keyType);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return chooseClientAlias(keyTypes, issuers, null);
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        reloadIfChanged();
        for (String keyType : keyTypes) {
            String alias = aliasFor(keyType);
            if (alias != null) {
                return alias;
            }
        }
        return null;
    }

    /**
     * The current alias when its key can serve {@code keyType}: "RSA", "EC", "RSASSA-PSS", or TLS 1.2's
     * "EC_RSA"-style key exchange types, whose first part is the key's algorithm.
     */
    private String aliasFor(String keyType) {
        Generation generation = current;
        String algorithm = generation.material().key().getAlgorithm();
        String wanted = keyType.contains("_") ? keyType.substring(0, keyType.indexOf('_')) : keyType;
        boolean fits = algorithm.equals(wanted) || (algorithm.equals("RSA") && wanted.equals("RSASSA-PSS"))
                || (algorithm.equals("EdDSA") && wanted.startsWith("Ed"));
        return fits ? generation.alias() : null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        String alias = aliasFor(keyType);
        return alias == null ? null : new String[] {alias};
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return getServerAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return generation(alias).map(g -> g.material().chain().toArray(new X509Certificate[0])).orElse(null);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return generation(alias).map(g -> g.material().key()).orElse(null);
    }

    private Optional<Generation> generation(String alias) {
        Generation now = current;
        Generation before = previous;
        if (now.alias().equals(alias)) {
            return Optional.of(now);
        }
        return before.alias().equals(alias) ? Optional.of(before) : Optional.empty();
    }
}

package io.trunkgate.tls;

import io.trunkgate.config.TlsFileCheck;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.tls.internal.TrustStores;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/** Loads the TLS files a configuration names, for the configuration loader: see {@link TlsFileCheck}. */
public final class TlsFiles implements TlsFileCheck {

    /** Loads them as the gateway would at start. */
    public static final TlsFileCheck CHECK = new TlsFiles();

    private TlsFiles() {
    }

    @Override
    public Optional<Problem> listener(TlsListenerSettings settings) {
        try {
            ServerTls.load(settings, Clock.systemUTC());
            return Optional.empty();
        } catch (TlsMaterialException e) {
            return Optional.of(new Problem(e.file(), e.password(), e.getMessage()));
        }
    }

    @Override
    public Optional<Problem> caFile(Path caFile) {
        try {
            TrustStores.pkix(caFile);
            return Optional.empty();
        } catch (TlsMaterialException e) {
            return Optional.of(new Problem(e.file(), e.password(), e.getMessage()));
        }
    }
}

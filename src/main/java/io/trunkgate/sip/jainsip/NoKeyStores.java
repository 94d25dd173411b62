package io.trunkgate.sip.jainsip;

import io.trunkgate.tls.TlsEngines;
import gov.nist.core.net.SecurityManagerProvider;
import java.util.Properties;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * The stack's security manager provider (gov.nist.javax.sip.SECURITY_MANAGER_PROVIDER): none. JAIN-SIP's own reads
 * key stores from the stack's properties for its TLS listeners, which the gateway does not use (its TLS comes from
 * {@link TlsEngines}); left to itself it would warn at every start that "TLS server settings will be inactive".
 */
public final class NoKeyStores implements SecurityManagerProvider {

    @Override
    public void init(Properties properties) {
    }

    @Override
    public KeyManager[] getKeyManagers(boolean client) {
        return null;
    }

    @Override
    public TrustManager[] getTrustManagers(boolean client) {
        return null;
    }
}

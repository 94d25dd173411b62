package io.trunkgate.gateway;

import io.trunkgate.config.ConfigException;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.tls.TlsFiles;
import java.nio.file.Path;

/**
 * The configuration as the gateway runs it: {@link ConfigLoader} with every TLS listener's and carrier's certificate,
 * key and CA files read, so that {@code run} and {@code check-config} refuse a file that would not load.
 */
public final class GatewayConfigLoader {

    private GatewayConfigLoader() {
    }

    public static GatewayConfig load(Path gatewayConf) throws ConfigException {
        return ConfigLoader.load(gatewayConf, TlsFiles.CHECK);
    }
}

package io.trunkgate.cli;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.WritablePaths;
import io.trunkgate.gateway.CarrierHostCheck;
import io.trunkgate.gateway.GatewayConfigLoader;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Validates gateway.conf and every peer, group, carrier and route file; prints each error with file, line and key.
 * Carrier host names that do not resolve now, and files the gateway could not write, are printed as warnings (exit
 * code 0): see {@link CarrierHostCheck} and {@link WritablePaths}.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true,
        description = "Validate the configuration; exit 0 when valid, 1 otherwise.")
final class CheckConfigCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "path to gateway.conf")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        try {
            GatewayConfig loaded = GatewayConfigLoader.load(config);
            for (String warning : CarrierHostCheck.warnings(loaded)) {
                System.err.println(config + ": warning: " + warning);
            }
            for (String warning : WritablePaths.warnings(loaded)) {
                System.err.println(config + ": warning: " + warning);
            }
            System.out.printf("%s: OK (%d peers, %d groups, %d carriers, %d routes)%n", config,
                    loaded.peers().size(), loaded.groups().size(), loaded.carriers().size(), loaded.routes().size());
            return 0;
        } catch (ConfigException e) {
            for (ConfigError error : e.errors()) {
                System.err.println(error);
            }
            System.err.printf("%s: %d error(s)%n", config, e.errors().size());
            return 1;
        }
    }
}

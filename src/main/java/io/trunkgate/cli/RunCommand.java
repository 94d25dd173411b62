package io.trunkgate.cli;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.gateway.Gateway;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs the gateway until SIGTERM or SIGINT, then shuts it down in order. */
@Command(name = "run", description = "Run the gateway.")
final class RunCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "path to gateway.conf")
    Path config;

    @Override
    public Integer call() throws Exception {
        Gateway gateway;
        try {
            gateway = Gateway.start(ConfigLoader.load(config));
        } catch (ConfigException e) {
            e.errors().stream().map(ConfigError::toString).forEach(System.err::println);
            System.err.printf("%s: %d error(s); not started%n", config, e.errors().size());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
        return 0;
    }
}

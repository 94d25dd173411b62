package io.trunkgate.cli;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.gateway.GatewayConfigLoader;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Runs the gateway until SIGTERM or SIGINT, then drains it (calls in progress go on up to
 * shutdown.drain-timeout) and shuts it down in order; a second signal ends the drain at once. SIGHUP reopens the
 * call records file.
 */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run the gateway.")
final class RunCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "path to gateway.conf")
    Path config;

    @Option(names = "--warm-up-only", description = "start, run the warm-up and stop, taking no call: the run "
            + "bin/trunkgate records the JVM's start cache from (Java 25 or newer)")
    boolean warmUpOnly;

    @Override
    public Integer call() throws Exception {
        Gateway gateway;
        try {
            if (warmUpOnly) {
                Gateway.warmUpAndStop(GatewayConfigLoader.load(config));
                return 0;
            }
            gateway = Gateway.start(GatewayConfigLoader.load(config));
        } catch (ConfigException e) {
            e.errors().stream().map(ConfigError::toString).forEach(System.err::println);
            System.err.printf("%s: %d error(s); not started%n", config, e.errors().size());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger signals = new AtomicInteger();
        SignalHandler onSignal = signal -> {
            if (signals.incrementAndGet() == 1) {
                Thread shutdown = new Thread(() -> {
                    gateway.close();
                    stopped.countDown();
                }, "shutdown");
                shutdown.start();
            } else {
                gateway.endDrain();
            }
        };
        // Handled here rather than in a shutdown hook: a second SIGTERM must end the drain, and the JVM ignores
        // signals once its shutdown hooks run.
        Signal.handle(new Signal("TERM"), onSignal);
        Signal.handle(new Signal("INT"), onSignal);
        // SIGHUP: the call records file was rotated (logrotate's postrotate); records go to a new file at its path.
        Signal.handle(new Signal("HUP"), signal -> gateway.reopenRecords());
        stopped.await();
        return 0;
    }
}

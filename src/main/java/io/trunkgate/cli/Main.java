package io.trunkgate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The trunkgate command line: {@code run} and {@code check-config}. */
@Command(name = "trunkgate", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "SIP call-admission gateway: fleet-wide CPS limits and carrier pacing in Redis.",
        subcommands = {RunCommand.class, CheckConfigCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"trunkgate " + (version == null ? "(development build)" : version)};
        }
    }
}

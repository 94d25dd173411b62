package io.trunkgate.cli;

import io.trunkgate.config.BuildInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The trunkgate command line: {@code run} and {@code check-config}, and the commands that ask a running gateway
 * through its admin API ({@link AdminCommands}). Without a command it prints its usage and exits 2.
 */
@Command(name = "trunkgate", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "SIP call-admission gateway: fleet-wide CPS limits and carrier pacing in Redis.",
        subcommands = {RunCommand.class, CheckConfigCommand.class, WhatIfCommand.class, AdminCommands.Status.class,
                AdminCommands.Peers.class, AdminCommands.Carriers.class, AdminCommands.Block.class,
                AdminCommands.Unblock.class, AdminCommands.CarrierDown.class, AdminCommands.CarrierUp.class,
                AdminCommands.Drain.class, AdminCommands.Resume.class, AdminCommands.Calls.class,
                AdminCommands.Hangup.class, AdminCommands.Reload.class, CommandLine.HelpCommand.class},
        footer = {"", "The admin commands find the gateway with --admin URL or --config FILE (default "
                + AdminOptions.DEFAULT_ADMIN + ") and send the token of " + AdminOptions.TOKEN_VARIABLE
                + " or --token-file.", "Run 'trunkgate COMMAND --help' for a command's options."})
public final class Main implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return new CommandLine(new Main());
    }

    /** No command given: the usage, on stderr, and the exit code of a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return CliFailure.USAGE;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            BuildInfo build = BuildInfo.current();
            return new String[] {"trunkgate " + build.version() + " (commit " + build.commit() + ")"};
        }
    }
}

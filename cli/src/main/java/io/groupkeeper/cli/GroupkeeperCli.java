package io.groupkeeper.cli;

import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.OutcomeUnknownException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code groupkeeper} command: administration of groupkeeper consumer groups in ZooKeeper.
 *
 * <p>Exit codes: 0 success; 1 the operation failed or was refused (one line on stderr, nothing written);
 * 2 bad usage (one line on stderr); 3 the connection was lost after a write was sent and whether it applied cannot be
 * told (look before running it again). Set {@code GROUPKEEPER_DEBUG=1} for stack traces.
 */
@Command(
        name = "groupkeeper",
        mixinStandardHelpOptions = true,
        versionProvider = GroupkeeperCli.Version.class,
        description = "Administers groupkeeper consumer groups in ZooKeeper: inspect groups and lag, reset offsets "
                + "while groups run, export/import offsets, migrate offsets from Storm or Kafka, monitor groups "
                + "(Prometheus metrics and a status page).",
        subcommands = {
            GroupsCommand.class,
            OffsetsCommand.class,
            MigrateCommand.class,
            MonitorCommand.class,
            SandboxCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Exit codes: 0 ok, 1 failed or refused (nothing written), 2 bad usage, 3 connection lost after a "
                    + "write was sent and its outcome unknown (look before re-running). Docs: docs/admin.md"
        })
public final class GroupkeeperCli implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(), "missing command: groups, offsets, migrate, monitor or sandbox");
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = run(out, err, args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Runs one command line with the given streams; returns the exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return commandLine(out, err).execute(args);
    }

    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new GroupkeeperCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> usageError(ex.getCommandLine(), ex.getMessage(), ex));
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof ParameterException pe) {
                return usageError(pe.getCommandLine(), pe.getMessage(), pe);
            }
            if (ex instanceof IllegalArgumentException) {
                return usageError(commandLine, ex.getMessage(), ex);
            }
            String message = ex instanceof AdminException ae
                    ? AdminMessages.of(ae)
                    : ex.getMessage() == null ? ex.toString() : ex.getMessage();
            // 3: the write's reply was lost and ZooKeeper's nodes do not tell whether it applied; the operator looks
            // before running it again (a relative reset would apply twice). Every other failure wrote nothing.
            return fail(commandLine, message, ex, ex instanceof OutcomeUnknownException ? 3 : 1);
        });
        return cl;
    }

    private static int usageError(CommandLine cl, String message, Exception e) {
        if (message != null && message.startsWith("Error: ")) {
            message = message.substring("Error: ".length()); // picocli's own prefix; we add "error: "
        }
        return fail(cl, message + " (see '" + cl.getCommandSpec().qualifiedName() + " --help')", e, 2);
    }

    private static int fail(CommandLine cl, String message, Exception e, int code) {
        PrintWriter err = cl.getErr();
        err.println("error: " + message.replaceAll("\\s*\\R\\s*", " ").strip());
        if (System.getenv("GROUPKEEPER_DEBUG") != null) {
            e.printStackTrace(err);
        }
        err.flush();
        cl.getOut().flush();
        return code;
    }

    /** Reads the version from the jar manifest ("dev" when run from classes). */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = GroupkeeperCli.class.getPackage().getImplementationVersion();
            return new String[] {"groupkeeper " + (v == null ? "dev" : v)};
        }
    }

    /** Base for commands that only group subcommands. */
    abstract static class Parent implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            throw new ParameterException(
                    spec.commandLine(),
                    "missing subcommand: "
                            + String.join(
                                    ", ",
                                    spec.subcommands().keySet().stream()
                                            .filter(s -> !s.equals("help"))
                                            .toList()));
        }
    }
}

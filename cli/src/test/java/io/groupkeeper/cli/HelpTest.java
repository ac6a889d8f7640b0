package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every command answers --help (exit 0, usage on stdout); leaf commands document the common options. */
class HelpTest {

    private static final List<String> COMMANDS = List.of(
            "",
            "groups",
            "groups list",
            "groups describe",
            "groups delete",
            "offsets",
            "offsets reset",
            "offsets export",
            "offsets import",
            "offsets delete",
            "migrate",
            "migrate storm-kafka",
            "migrate kafka-zk",
            "migrate kafka-native",
            "monitor",
            "sandbox");
    private static final List<String> WITH_COMMON_OPTIONS = List.of(
            "groups list",
            "groups describe",
            "groups delete",
            "offsets reset",
            "offsets export",
            "offsets import",
            "offsets delete",
            "migrate storm-kafka",
            "migrate kafka-zk",
            "migrate kafka-native",
            "monitor");

    private static String[] run(String command, String option) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] args = command.isEmpty() ? new String[] {option} : concat(command.split(" "), option);
        int code = GroupkeeperCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new String[] {String.valueOf(code), out.toString(), err.toString()};
    }

    private static String[] concat(String[] a, String b) {
        String[] all = Arrays.copyOf(a, a.length + 1);
        all[a.length] = b;
        return all;
    }

    @Test
    void everyCommandHasHelp() {
        for (String c : COMMANDS) {
            String[] r = run(c, "--help");
            assertThat(r[0]).as("exit of %s --help", c).isEqualTo("0");
            assertThat(r[2]).as("stderr of %s --help", c).isEmpty();
            assertThat(r[1]).as("usage of %s", c).startsWith("Usage: groupkeeper" + (c.isEmpty() ? "" : " " + c));
        }
    }

    @Test
    void leafCommandsDocumentTheCommonOptions() {
        for (String c : WITH_COMMON_OPTIONS) {
            assertThat(run(c, "--help")[1])
                    .as(c)
                    .contains("--zk=", "--namespace=", "--bootstrap=", "--output=", "table, json");
        }
    }

    @Test
    void resetHelpListsEverySpec() {
        assertThat(run("offsets reset", "--help")[1])
                .contains(
                        "--to-earliest",
                        "--to-latest",
                        "--to-current",
                        "--to-offset=N",
                        "--shift-by=+-N",
                        "--to-datetime=ISO",
                        "--by-duration=PnDTnHnM",
                        "--from-file=FILE",
                        "--dry-run",
                        "--execute",
                        "--all-topics",
                        "--topic=T[:p,p...]");
    }

    @Test
    void groupsDeleteHelpSaysItIsADryRunUnlessExecute() {
        assertThat(run("groups delete", "--help")[1])
                .contains("deletes nothing unless --execute", "--dry-run", "--execute", "--force");
    }

    @Test
    void monitorHelpNamesItsEndpointsAndOptions() {
        assertThat(run("monitor", "--help")[1])
                .contains(
                        "/metrics",
                        "/health",
                        "/group/<name>",
                        "--port=PORT",
                        "--interval=DURATION",
                        "--max-lag-time=DURATION",
                        "--history=DURATION",
                        "--bind=ADDRESS");
    }

    @Test
    void version() {
        String[] r = run("", "--version");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).startsWith("groupkeeper ");
    }
}

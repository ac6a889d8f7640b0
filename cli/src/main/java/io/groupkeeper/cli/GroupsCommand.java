package io.groupkeeper.cli;

import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code groupkeeper groups list|describe|delete}. */
@Command(
        name = "groups",
        mixinStandardHelpOptions = true,
        description = "List, describe and delete groups.",
        subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.Describe.class, GroupsCommand.Delete.class})
public final class GroupsCommand extends GroupkeeperCli.Parent {

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Every group: state, live members, generation, elected leader, topics.")
    static final class ListGroups implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Override
        public Integer call() {
            try (CommonOptions.Session s = common.open()) {
                new Printer(spec.commandLine().getOut(), common.json())
                        .groups(s.admin().listGroups());
            }
            return 0;
        }
    }

    @Command(
            name = "describe",
            mixinStandardHelpOptions = true,
            description = {
                "Members (id, instance id, host, rack, partitions), generation, leader, state; per partition the "
                        + "owner, committed offset, log-end offset, lag and lag in time (LAG-TIME: now minus the timestamp "
                        + "of the next record to process; 0s when caught up).",
                "A consumer that completes records out of order (the listener container's KEY or UNORDERED "
                        + "ordering) commits its low-water mark as the offset and records what is done above it: "
                        + "DONE-ABOVE counts those offsets (shown when any partition has some; JSON: doneAbove).",
                "Log-end offsets, lag and lag time need --bootstrap."
            })
    static final class Describe implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(
                names = "--status",
                description = "Also judge each partition and the group: OK, WARN (lag growing, "
                        + "or its consumer's handler failing on every record), STALL (same offset committed while lagging), "
                        + "STOP (no commit within the window while lagging, or stopped by its consumer: a poison record), "
                        + "REWIND (offset moved back). Judged from the last commits kept in each offset node and the marks "
                        + "its consumer writes there.")
        boolean status;

        @Option(
                names = "--status-window",
                paramLabel = "DURATION",
                defaultValue = "PT5M",
                description = "The window the status is judged over (ISO-8601 duration; default: ${DEFAULT-VALUE}).")
        Duration statusWindow;

        @Option(
                names = "--max-lag-time",
                paramLabel = "DURATION",
                description =
                        "With --status: a partition whose lag in time (now minus the timestamp of the next record "
                                + "to process) exceeds this is at least WARN (ISO-8601 duration, e.g. PT5M; needs --bootstrap).")
        Duration maxLagTime;

        @Override
        public Integer call() {
            if (maxLagTime != null && (maxLagTime.isNegative() || maxLagTime.isZero())) {
                throw new IllegalArgumentException("--max-lag-time must be positive, was " + maxLagTime);
            }
            if (maxLagTime != null && !status) {
                throw new IllegalArgumentException("--max-lag-time needs --status");
            }
            try (CommonOptions.Session s = common.open()) {
                Optional<Duration> max = Optional.ofNullable(maxLagTime);
                GroupDescription d;
                GroupStatus st = null;
                if (status) {
                    GroupAdmin.Inspection i = s.admin().inspect(group, statusWindow, max);
                    d = i.description();
                    st = i.status();
                } else {
                    d = s.admin().describe(group);
                }
                new Printer(spec.commandLine().getOut(), common.json()).describe(d, st, max);
            }
            return 0;
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = {
                "Deletes a group and everything below it (members, ownership, offsets) in one transaction.",
                "Prints what it would delete and deletes nothing unless --execute. Refused while the group has "
                        + "live members, unless --force."
            },
            footer = {
                "",
                "Examples:",
                "  groupkeeper groups delete --group app              dry run: what would be deleted",
                "  groupkeeper groups delete --group app --execute"
            })
    static final class Delete implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(
                names = "--force",
                description = "Delete even with live members (they lose their partitions and must " + "be restarted).")
        boolean force;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        /** {@code --dry-run} (default) or {@code --execute}, as {@code offsets reset}. */
        static final class Mode {
            @Option(names = "--dry-run", description = "Print what would be deleted, delete nothing (the default).")
            boolean dryRun;

            @Option(names = "--execute", description = "Delete, in one ZooKeeper transaction.")
            boolean execute;
        }

        @Override
        public Integer call() {
            boolean execute = mode != null && mode.execute;
            try (CommonOptions.Session s = common.open()) {
                Printer out = new Printer(spec.commandLine().getOut(), common.json());
                if (execute) {
                    out.deleted(s.admin().deleteGroup(group, force));
                } else {
                    out.wouldDelete(s.admin().planDeleteGroup(group, force));
                }
            }
            return 0;
        }
    }
}

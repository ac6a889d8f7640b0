package io.groupkeeper.cli;

import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.OffsetsFile;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code groupkeeper offsets reset|export|import|delete}. */
@Command(
        name = "offsets",
        mixinStandardHelpOptions = true,
        description = "Reset, export, import and delete committed offsets, also while the group runs.",
        subcommands = {
            OffsetsCommand.Reset.class,
            OffsetsCommand.Export.class,
            OffsetsCommand.Import.class,
            OffsetsCommand.Delete.class
        })
public final class OffsetsCommand extends GroupkeeperCli.Parent {

    /** {@code --dry-run} (default) or {@code --execute}. */
    static final class Mode {
        @Option(names = "--dry-run", description = "Print the plan, write nothing (the default).")
        boolean dryRun;

        @Option(names = "--execute", description = "Write the plan, in one ZooKeeper transaction.")
        boolean execute;
    }

    @Command(
            name = "reset",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Moves a group's committed offsets, also while its members run: each owner adopts the new "
                        + "offset (it never overwrites it with an older position).",
                "Prints the plan (current -> new per partition) and writes nothing unless --execute. Targets "
                        + "outside the log are clamped to it (with --bootstrap) and the clamp is shown."
            },
            footer = {
                "",
                "Examples:",
                "  groupkeeper offsets reset --group app --all-topics --to-earliest --bootstrap kafka:9092",
                "  groupkeeper offsets reset --group app --topic orders:0,2 --shift-by -100 --execute",
                "  groupkeeper offsets reset --group app --topic orders --to-datetime 2026-11-29T10:00:00.000 "
                        + "--bootstrap kafka:9092"
            })
    static final class Reset implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(
                names = "--all-topics",
                description = "Every topic of the group (members' subscriptions, owners, offsets).")
        boolean allTopics;

        @Option(
                names = "--topic",
                paramLabel = "T[:p,p...]",
                description = "A topic, or some of its partitions; repeatable.")
        List<String> topics = new ArrayList<>();

        @ArgGroup(exclusive = true, multiplicity = "1", heading = "%nTarget (exactly one):%n")
        Target target;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        @Mixin
        CommonOptions common;

        static final class Target {
            @Option(names = "--to-earliest", description = "The log start (needs --bootstrap).")
            boolean earliest;

            @Option(names = "--to-latest", description = "The log end (needs --bootstrap).")
            boolean latest;

            @Option(
                    names = "--to-current",
                    description = "The committed offset (clamped into the log); owners continue from it.")
            boolean current;

            @Option(names = "--to-offset", paramLabel = "N", description = "Offset N (>= 0).")
            Long offset;

            @Option(
                    names = "--shift-by",
                    paramLabel = "+-N",
                    description = "The committed offset plus N (may be negative).")
            Long shift;

            @Option(
                    names = "--to-datetime",
                    paramLabel = "ISO",
                    description =
                            "The first record at or after this time, e.g. 2026-11-29T10:00:00.000 (local time) or "
                                    + "2026-11-29T10:00:00Z (needs --bootstrap).")
            String datetime;

            @Option(
                    names = "--by-duration",
                    paramLabel = "PnDTnHnM",
                    description = "As --to-datetime for now minus this duration, e.g. PT1H (needs --bootstrap).")
            String duration;

            @Option(
                    names = "--from-file",
                    paramLabel = "FILE",
                    description = "Offsets from a CSV (topic,partition,offset) or JSON file; --topic then filters it.")
            Path file;
        }

        @Override
        public Integer call() {
            ResetSpec resetSpec = spec();
            PartitionSelection selection = selection(resetSpec instanceof ResetSpec.FromOffsets);
            boolean execute = mode != null && mode.execute;
            try (CommonOptions.Session s = common.open()) {
                ResetPlan plan = execute
                        ? s.admin().executeReset(group, selection, resetSpec)
                        : s.admin().planReset(group, selection, resetSpec);
                new Printer(spec.commandLine().getOut(), common.json()).plan(plan);
            }
            return 0;
        }

        private PartitionSelection selection(boolean optional) {
            if (allTopics && !topics.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--all-topics and --topic are mutually exclusive");
            }
            if (allTopics) {
                return PartitionSelection.allTopics();
            }
            if (topics.isEmpty()) {
                if (optional) {
                    return null;
                }
                throw new ParameterException(
                        spec.commandLine(), "select the partitions: --all-topics or --topic T[:p,p...]");
            }
            try {
                return PartitionSelection.parse(topics);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--topic " + e.getMessage());
            }
        }

        private ResetSpec spec() {
            try {
                if (target.earliest) {
                    return new ResetSpec.ToEarliest();
                } else if (target.latest) {
                    return new ResetSpec.ToLatest();
                } else if (target.current) {
                    return new ResetSpec.ToCurrent();
                } else if (target.offset != null) {
                    if (target.offset < 0) { // checked here to say it in the CLI's words; the spec checks too
                        throw new IllegalArgumentException("--to-offset must be >= 0, was " + target.offset);
                    }
                    return new ResetSpec.ToOffset(target.offset);
                } else if (target.shift != null) {
                    return new ResetSpec.ShiftBy(target.shift);
                } else if (target.datetime != null) {
                    return new ResetSpec.ToDatetime(parseDatetime(target.datetime));
                } else if (target.duration != null) {
                    return new ResetSpec.ByDuration(parseDuration(target.duration)); // parse refuses negatives
                } else {
                    return new ResetSpec.FromOffsets(OffsetsFile.read(target.file));
                }
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
    }

    /** Parses {@code 2026-11-29T10:00:00.000} (local time, as Kafka's tool), or with a zone: {@code ...Z}, {@code ...+01:00}. */
    static Instant parseDatetime(String text) {
        String s = text.strip();
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return ZonedDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return LocalDateTime.parse(s).atZone(ZoneId.systemDefault()).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--to-datetime '" + text + "' is not a date-time like "
                    + "2026-11-29T10:00:00.000 (local time) or 2026-11-29T10:00:00Z");
        }
    }

    static Duration parseDuration(String text) {
        Duration d;
        try {
            d = Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "--by-duration '" + text + "' is not an ISO-8601 duration like PT1H or P1DT2H30M");
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("--by-duration must not be negative, was " + text);
        }
        return d;
    }

    @Command(
            name = "export",
            mixinStandardHelpOptions = true,
            description = {
                "Prints a group's committed offsets as CSV (topic,partition,offset; the default) or JSON.",
                "offsets import reads it back exactly."
            })
    static final class Export implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(
                names = "--format",
                paramLabel = "csv|json",
                defaultValue = "csv",
                description = "File format (default: ${DEFAULT-VALUE}).")
        String format;

        @Option(names = "--file", paramLabel = "FILE", description = "Write to this file instead of standard output.")
        Path file;

        @Override
        public Integer call() throws IOException {
            OffsetsFile.Format f;
            try {
                f = OffsetsFile.format(format);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--format: " + e.getMessage());
            }
            if (common.json()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--output does not apply to export: the file format is " + "--format csv|json");
            }
            try (CommonOptions.Session s = common.open()) {
                SourceOffsets offsets = s.admin().exportOffsets(group);
                if (offsets.offsets().isEmpty()) {
                    // An empty backup would report success and then be refused by import.
                    throw new AdminException("group " + group + " has no committed offsets; nothing exported");
                }
                String text = OffsetsFile.write(f, group, offsets.offsets());
                if (file != null) {
                    writeWhole(file, text);
                } else {
                    spec.commandLine().getOut().print(text);
                    spec.commandLine().getOut().flush();
                }
            }
            return 0;
        }

        /**
         * Writes beside the file, then moves it into place: a failed or interrupted write leaves the previous backup
         * as it was, never a truncated one.
         */
        private static void writeWhole(Path file, String text) {
            Path dir = file.toAbsolutePath().getParent();
            Path tmp = null;
            try {
                tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                try {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                if (tmp != null) {
                    try {
                        Files.deleteIfExists(tmp);
                    } catch (IOException ignored) {
                        // the failure below is what matters
                    }
                }
                throw new AdminException("cannot write --file " + file + ": " + reason(e), e);
            }
        }
    }

    /** An I/O failure in words: Java's file exceptions carry only the path as their message. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException n) {
            return "no such file or directory: " + n.getFile();
        }
        if (e instanceof AccessDeniedException a) {
            return "permission denied: " + a.getFile();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + ": " + fs.getFile();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Command(
            name = "import",
            mixinStandardHelpOptions = true,
            description = {
                "Writes offsets from a file (as written by offsets export: CSV or JSON) exactly as given, in "
                        + "one transaction; creates the group if it does not exist.",
                "Prints the plan and writes nothing unless --execute. A malformed line writes nothing."
            })
    static final class Import implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(names = "--from-file", required = true, paramLabel = "FILE", description = "CSV or JSON offsets file.")
        Path file;

        @Option(
                names = "--from-group",
                paramLabel = "GROUP",
                description = "Import a JSON export of this other group "
                        + "(its \"group\" field) into --group; without it, such a file is refused.")
        String fromGroup;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        @Override
        public Integer call() {
            SourceOffsets offsets = OffsetsFile.read(file);
            String exportedFrom = offsets.group().orElse(group);
            if (fromGroup != null && !fromGroup.equals(exportedFrom)) {
                throw new AdminException(file
                        + (offsets.group().isPresent()
                                ? " holds the offsets of group " + exportedFrom
                                : " names no group (only a JSON export does)")
                        + ", not --from-group " + fromGroup);
            }
            if (!exportedFrom.equals(group) && !exportedFrom.equals(fromGroup)) {
                // Groups often read the same topics: a backup of the wrong one would fit and overwrite silently.
                throw new AdminException(
                        file + " holds the offsets of group " + exportedFrom + " (its \"group\" field), " + "not of "
                                + group + ": pass --from-group " + exportedFrom + " to import them into " + group);
            }
            boolean execute = mode != null && mode.execute;
            try (CommonOptions.Session s = common.open()) {
                ResetPlan plan = execute
                        ? s.admin().executeImport(group, offsets)
                        : s.admin().planImport(group, offsets);
                new Printer(spec.commandLine().getOut(), common.json()).plan(plan);
            }
            return 0;
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = {
                "Deletes the committed offsets of one topic of a group, in one transaction.",
                "Refused while the topic is in use (a member owns, is assigned or subscribes to it), unless "
                        + "--force."
            })
    static final class Delete implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
        String topic;

        @Option(
                names = "--force",
                description = "Delete even while members own partitions of the topic (they "
                        + "continue from their start position).")
        boolean force;

        @Override
        public Integer call() {
            try (CommonOptions.Session s = common.open()) {
                new Printer(spec.commandLine().getOut(), common.json())
                        .deleted(s.admin().deleteOffsets(group, topic, force));
            }
            return 0;
        }
    }
}

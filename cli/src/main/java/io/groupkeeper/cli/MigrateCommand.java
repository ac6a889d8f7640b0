package io.groupkeeper.cli;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.kafka.KafkaGroupOffsets;
import io.groupkeeper.cli.kafka.KafkaLogBounds;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.KafkaZkOffsets;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import io.groupkeeper.zkprotocol.admin.StormKafkaOffsets;
import io.groupkeeper.zkprotocol.admin.ZkSource;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code groupkeeper migrate storm-kafka|kafka-zk|kafka-native}. */
@Command(
        name = "migrate",
        mixinStandardHelpOptions = true,
        description = {
            "Copies committed offsets from another system into a groupkeeper group (dry run by default).",
            "Targets outside the log are clamped to it when --bootstrap is given (old systems left offsets past "
                    + "the log end; kafka-native --to-kafka always clamps); the group is created if it does not "
                    + "exist."
        },
        subcommands = {MigrateCommand.StormKafka.class, MigrateCommand.KafkaZk.class, MigrateCommand.KafkaNative.class})
public final class MigrateCommand extends GroupkeeperCli.Parent {

    @Command(
            name = "storm-kafka",
            mixinStandardHelpOptions = true,
            description = {
                "From Storm's old KafkaSpout (storm-kafka): <zk-root>/<spout-id>/partition_N, or "
                        + "<zk-root>/<spout-id>/<topic>/partition_N, JSON bodies like "
                        + "{\"topology\":{...},\"offset\":8,\"partition\":0,\"broker\":{...},\"topic\":\"t\"}."
            },
            footer = {
                "",
                "Example:",
                "  groupkeeper migrate storm-kafka --storm-zk zk:2181 --zk-root /kafka-offset "
                        + "--spout-id onetest --group onetest --bootstrap kafka:9092 --execute"
            })
    static final class StormKafka implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(
                names = "--storm-zk",
                required = true,
                paramLabel = "HOST:PORT[,...]",
                description = "Storm's ZooKeeper.")
        String stormZk;

        @Option(
                names = "--zk-root",
                required = true,
                paramLabel = "PATH",
                description = "The spout's zkRoot, e.g. /kafka-offset.")
        String zkRoot;

        @Option(names = "--spout-id", required = true, paramLabel = "ID", description = "The spout's id.")
        String spoutId;

        @Option(
                names = "--group",
                required = true,
                paramLabel = "GROUP",
                description = "The groupkeeper group to write.")
        String group;

        @Option(names = "--topic", paramLabel = "TOPIC", description = "Migrate only this topic.")
        String topic;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        OffsetsCommand.Mode mode;

        @Override
        public Integer call() {
            SourceOffsets source;
            try (ZkSource zk = ZooKeeperAdmin.source(stormZk, common.timeout())) {
                source = StormKafkaOffsets.read(zk, zkRoot, spoutId, Optional.ofNullable(topic));
            }
            return migrate(spec, common, mode, group, "storm-kafka", source);
        }
    }

    @Command(
            name = "kafka-zk",
            mixinStandardHelpOptions = true,
            description = "From Kafka's old ZooKeeper consumer: /consumers/<kafka-group>/offsets/<topic>/<partition> "
                    + "(plain numbers).")
    static final class KafkaZk implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(
                names = "--kafka-zk",
                paramLabel = "HOST:PORT[,...][/chroot]",
                description = "The ZooKeeper holding /consumers (default: --zk).")
        String kafkaZk;

        @Option(
                names = "--kafka-group",
                paramLabel = "GROUP",
                description = "The old consumer group (default: --group).")
        String kafkaGroup;

        @Option(
                names = "--group",
                required = true,
                paramLabel = "GROUP",
                description = "The groupkeeper group to write.")
        String group;

        @Option(names = "--topic", paramLabel = "TOPIC", description = "Migrate only this topic.")
        String topic;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        OffsetsCommand.Mode mode;

        @Override
        public Integer call() {
            SourceOffsets source;
            try (ZkSource zk = ZooKeeperAdmin.source(kafkaZk != null ? kafkaZk : common.zk, common.timeout())) {
                source = KafkaZkOffsets.read(zk, kafkaGroup != null ? kafkaGroup : group, Optional.ofNullable(topic));
            }
            return migrate(spec, common, mode, group, "kafka-zk", source);
        }
    }

    @Command(
            name = "kafka-native",
            mixinStandardHelpOptions = true,
            description = {
                "From a Kafka consumer group's committed offsets (Kafka Admin), or with --to-kafka the other "
                        + "way: the groupkeeper group's offsets into the Kafka consumer group (Kafka refuses while that "
                        + "group has active members).",
                "Needs --bootstrap."
            })
    static final class KafkaNative implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Option(
                names = "--kafka-group",
                required = true,
                paramLabel = "GROUP",
                description = "The Kafka consumer group.")
        String kafkaGroup;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The groupkeeper group.")
        String group;

        @Option(names = "--to-kafka", description = "Copy from the groupkeeper group to the Kafka consumer group.")
        boolean toKafka;

        @Option(names = "--topic", paramLabel = "TOPIC", description = "Migrate only this topic.")
        String topic;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        OffsetsCommand.Mode mode;

        @Override
        public Integer call() {
            if (!common.hasBootstrap()) {
                throw new picocli.CommandLine.ParameterException(
                        spec.commandLine(), "migrate kafka-native needs --bootstrap");
            }
            if (!toKafka) {
                SourceOffsets source;
                try (KafkaLogBounds kafka = common.kafka()) {
                    source = filter(
                            new KafkaGroupOffsets(kafka.admin(), common.bootstrap, common.timeout()).read(kafkaGroup));
                }
                if (source.offsets().isEmpty()) {
                    throw new AdminException("Kafka consumer group '" + kafkaGroup + "' has no committed offsets"
                            + (topic != null ? " for topic " + topic : "") + " at " + common.bootstrap);
                }
                return migrate(spec, common, mode, group, "kafka-native", source);
            }
            boolean execute = mode != null && mode.execute;
            try (CommonOptions.Session s = common.open()) {
                SourceOffsets ours = filter(s.admin().exportOffsets(group));
                if (ours.offsets().isEmpty()) {
                    throw new AdminException("group " + group + " has no committed offsets"
                            + (topic != null ? " for topic " + topic : ""));
                }
                KafkaLogBounds kafka = s.kafka();
                Map<String, Integer> counts = kafka.partitionCounts(new TreeSet<>(ours.offsets().keySet().stream()
                        .map(TopicPartition::topic)
                        .toList()));
                for (TopicPartition tp : ours.offsets().keySet()) {
                    Integer n = counts.get(tp.topic());
                    if (n == null || tp.partition() >= n) {
                        throw new AdminException("unknown partition " + tp + " in " + kafka.describe()
                                + (n == null ? " (no such topic)" : " (topic has " + n + " partitions)"));
                    }
                }
                KafkaGroupOffsets target = new KafkaGroupOffsets(kafka.admin(), common.bootstrap, common.timeout());
                SortedMap<TopicPartition, Long> current =
                        target.read(kafkaGroup).offsets();
                Map<TopicPartition, Long> start = kafka.earliest(ours.offsets().keySet());
                Map<TopicPartition, Long> end = kafka.latest(ours.offsets().keySet());
                List<ResetPlan.Entry> entries = new ArrayList<>();
                SortedMap<TopicPartition, Long> written = new TreeMap<>();
                ours.offsets().forEach((tp, o) -> {
                    Long cur = current.get(tp);
                    Long s0 = start.get(tp);
                    Long e0 = end.get(tp);
                    // Clamped as the other direction clamps: a Kafka consumer would otherwise meet auto.offset.reset
                    // and skip or replay its whole partition.
                    long t = o;
                    ResetPlan.Clamp clamp = ResetPlan.Clamp.NONE;
                    String note = "";
                    if (s0 != null && o < s0) {
                        t = s0;
                        clamp = ResetPlan.Clamp.LOG_START;
                        note = "clamped from " + o + " to log start " + s0;
                    } else if (e0 != null && o > e0) {
                        t = e0;
                        clamp = ResetPlan.Clamp.LOG_END;
                        note = "clamped from " + o + " to log end " + e0;
                    }
                    written.put(tp, t);
                    entries.add(new ResetPlan.Entry(
                            tp,
                            cur == null ? OptionalLong.empty() : OptionalLong.of(cur),
                            OptionalLong.of(o),
                            OptionalLong.of(t),
                            clamp,
                            opt(s0),
                            opt(e0),
                            Optional.empty(),
                            note,
                            -1));
                });
                if (execute) {
                    target.write(kafkaGroup, written);
                }
                ResetPlan plan = new ResetPlan(
                        kafkaGroup,
                        "migrate to kafka-native",
                        "from group " + group,
                        false,
                        entries,
                        List.of("writes Kafka consumer group '" + kafkaGroup + "' at " + common.bootstrap
                                + " in one OffsetCommit request; Kafka refuses while that group has active members"),
                        Optional.of(kafka.describe()),
                        execute,
                        1,
                        new TreeSet<>());
                new Printer(spec.commandLine().getOut(), common.json()).plan(plan, "one Kafka OffsetCommit request");
            }
            return 0;
        }

        private SourceOffsets filter(SourceOffsets s) {
            if (topic == null) {
                return s;
            }
            SortedMap<TopicPartition, Long> kept = new TreeMap<>(s.offsets());
            kept.keySet().removeIf(tp -> !tp.topic().equals(topic));
            return new SourceOffsets(s.source(), kept, s.origins());
        }

        private static OptionalLong opt(Long v) {
            return v == null ? OptionalLong.empty() : OptionalLong.of(v);
        }
    }

    static int migrate(
            CommandSpec spec,
            CommonOptions common,
            OffsetsCommand.Mode mode,
            String group,
            String label,
            SourceOffsets source) {
        boolean execute = mode != null && mode.execute;
        try (CommonOptions.Session s = common.open()) {
            ResetPlan plan = execute
                    ? s.admin().executeMigration(group, label, source)
                    : s.admin().planMigration(group, label, source);
            new Printer(spec.commandLine().getOut(), common.json()).plan(plan);
        }
        return 0;
    }
}

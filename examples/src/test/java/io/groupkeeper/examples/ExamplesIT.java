package io.groupkeeper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.embedded.EmbeddedServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The runnable examples stay runnable: the founding story against running servers (the {@code --zk/--bootstrap}
 * path; the no-argument path differs only in starting the same servers itself), produce + consume by hand, the
 * non-Kafka batch, and the zombie whose late write a fenced sink refuses.
 */
class ExamplesIT {

    static EmbeddedServers servers;

    @BeforeAll
    static void start() {
        servers = EmbeddedServers.startDefault();
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void theFoundingStoryHoldsEveryStep() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        boolean held = new FoundingStory(out, servers.zkConnectString(), servers.bootstrapServers(), "story").run();
        String text = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(held).as(text).isTrue();
        List<String> summary = text.lines().filter(l -> l.startsWith("  [")).collect(Collectors.toList());
        assertThat(summary).hasSize(6).allMatch(l -> l.startsWith("  [held]"));
        assertThat(text).contains("Every step held.").doesNotContain("NOT HELD");
    }

    @Test
    void produceThenConsumeByHandPrintsOneJsonLinePerRecord() {
        assertThat(new CommandLine(new ProduceCommand())
                        .execute(
                                "--bootstrap",
                                servers.bootstrapServers(),
                                "--topic",
                                "by-hand",
                                "--count",
                                "12",
                                "--partitions",
                                "2"))
                .isZero();
        PrintStream stdout = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            exit = new CommandLine(new ConsumeCommand())
                    .execute(
                            "--zk",
                            servers.zkConnectString(),
                            "--bootstrap",
                            servers.bootstrapServers(),
                            "--group",
                            "hand",
                            "--topic",
                            "by-hand",
                            "--start",
                            "earliest",
                            "--max-records",
                            "12");
        } finally {
            System.setOut(stdout);
        }
        assertThat(exit).isZero();
        List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertThat(lines)
                .hasSize(12)
                .allMatch(l -> l.startsWith("{\"group\":\"hand\",\"member\":\"")
                        && l.contains("\"topic\":\"by-hand\"")
                        && l.contains("\"offset\":")
                        && l.contains("\"key\":\"key-")
                        && l.contains("\"value\":\"record-"));
    }

    @Test
    void consumeWithKeyOrderingAndParallelismPrintsEachRecordOnceWhenItsHandlerFinished() {
        assertThat(new CommandLine(new ProduceCommand())
                        .execute(
                                "--bootstrap",
                                servers.bootstrapServers(),
                                "--topic",
                                "keyed",
                                "--count",
                                "40",
                                "--partitions",
                                "2"))
                .isZero();
        PrintStream stdout = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            exit = new CommandLine(new ConsumeCommand())
                    .execute(
                            "--zk",
                            servers.zkConnectString(),
                            "--bootstrap",
                            servers.bootstrapServers(),
                            "--group",
                            "keyed",
                            "--topic",
                            "keyed",
                            "--start",
                            "earliest",
                            "--max-records",
                            "40",
                            "--ordering",
                            "key",
                            "--parallelism",
                            "8",
                            "--handler-ms",
                            "5");
        } finally {
            System.setOut(stdout);
        }
        assertThat(exit).isZero();
        List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertThat(lines)
                .hasSize(40)
                .doesNotHaveDuplicates()
                .allMatch(l -> l.startsWith("{\"group\":\"keyed\"," + "\"member\":\"")
                        && !l.contains("\"member\":\"?\"")
                        && l.contains("\"value\":\"record-"));
        assertThat(new CommandLine(new ConsumeCommand())
                        .execute(
                                "--zk",
                                servers.zkConnectString(),
                                "--bootstrap",
                                servers.bootstrapServers(),
                                "--group",
                                "keyed",
                                "--topic",
                                "keyed",
                                "--ordering",
                                "sideways"))
                .isEqualTo(2);
    }

    @Test
    void consumeWithMirrorOffsetsAlsoLeavesTheOffsetsInKafkasGroupOffsets() throws Exception {
        assertThat(new CommandLine(new ProduceCommand())
                        .execute(
                                "--bootstrap",
                                servers.bootstrapServers(),
                                "--topic",
                                "mirrored",
                                "--count",
                                "6",
                                "--partitions",
                                "2"))
                .isZero();
        PrintStream stdout = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            exit = new CommandLine(new ConsumeCommand())
                    .execute(
                            "--zk",
                            servers.zkConnectString(),
                            "--bootstrap",
                            servers.bootstrapServers(),
                            "--group",
                            "mirror-hand",
                            "--topic",
                            "mirrored",
                            "--start",
                            "earliest",
                            "--max-records",
                            "6",
                            "--mirror-offsets");
        } finally {
            System.setOut(stdout);
        }
        assertThat(exit).isZero();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
            // The mirror writes in transactions: their commit markers land a moment after commitTransaction returned.
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .untilAsserted(() -> {
                        Map<TopicPartition, OffsetAndMetadata> inKafka = admin.listConsumerGroupOffsets("mirror-hand")
                                .partitionsToOffsetAndMetadata()
                                .get(30, TimeUnit.SECONDS);
                        assertThat(inKafka.values().stream()
                                        .mapToLong(OffsetAndMetadata::offset)
                                        .sum())
                                .isEqualTo(6);
                        assertThat(inKafka.keySet())
                                .extracting(TopicPartition::topic)
                                .containsOnly("mirrored");
                    });
        }
    }

    @Test
    void consumeWithEventsAlsoPrintsMembershipEventsAndProcessingTimes() {
        assertThat(new CommandLine(new ProduceCommand())
                        .execute(
                                "--bootstrap",
                                servers.bootstrapServers(),
                                "--topic",
                                "with-events",
                                "--count",
                                "6",
                                "--partitions",
                                "2"))
                .isZero();
        PrintStream stdout = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        long before = System.currentTimeMillis();
        int exit;
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            exit = new CommandLine(new ConsumeCommand())
                    .execute(
                            "--zk",
                            servers.zkConnectString(),
                            "--bootstrap",
                            servers.bootstrapServers(),
                            "--group",
                            "evented",
                            "--topic",
                            "with-events",
                            "--start",
                            "earliest",
                            "--max-records",
                            "6",
                            "--events",
                            "--session-timeout-ms",
                            "6000");
        } finally {
            System.setOut(stdout);
        }
        assertThat(exit).isZero();
        List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertThat(lines).hasSize(1 + 1 + 6 + 1);
        assertThat(lines.get(0))
                .startsWith("{\"event\":\"started\",\"group\":\"evented\",\"member\":\"")
                .contains("\"partitions\":[]");
        assertThat(lines.get(1))
                .startsWith("{\"event\":\"assigned\"")
                .contains("{\"topic\":\"with-events\",\"partition\":0}", "{\"topic\":\"with-events\",\"partition\":1}");
        assertThat(lines.subList(2, 8)).allMatch(l -> l.startsWith("{\"group\":\"evented\"") && l.contains("\"at\":"));
        assertThat(lines.get(8)).startsWith("{\"event\":\"revoked\"").contains("\"partition\":0", "\"partition\":1");
        long at = Long.parseLong(lines.get(8).replaceAll(".*\"at\":(\\d+).*", "$1"));
        assertThat(at).isBetween(before, System.currentTimeMillis());
    }

    @Test
    void theZombieExampleShowsTheSinkRefusingTheCutOffMembersLateWrite() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            exit = new CommandLine(new ZombieCommand()).execute(); // its own servers: it cuts a member off them
        } finally {
            System.setOut(stdout);
        }
        String text = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(exit).as(text).isZero();
        assertThat(text)
                .contains("stale writer refused: payments-0 is fenced at token ")
                .contains("The zombie's write was refused; every write of b stands.")
                .doesNotContain("NOT");
    }

    @Test
    void theShardedBatchProcessesEveryItemExactlyOnce() {
        int exit = new CommandLine(new ShardedBatchExample())
                .execute(
                        "--zk",
                        servers.zkConnectString(),
                        "--namespace",
                        "batch",
                        "--shards",
                        "6",
                        "--items",
                        "30",
                        "--item-ms",
                        "5");
        assertThat(exit).isZero();
    }
}

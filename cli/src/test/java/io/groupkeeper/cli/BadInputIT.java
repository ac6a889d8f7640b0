package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input writes nothing and exits non-zero with exactly one line on stderr (1: refused or failed, 2: bad usage).
 */
class BadInputIT extends CliTestSupport {

    private static String topic;
    private String group;
    private Map<String, String> before;

    @BeforeAll
    static void data() {
        topic = unique("bad");
        topic(topic, 3);
    }

    @BeforeEach
    void group() throws Exception {
        group = unique("bad");
        seed(group, Map.of(new TopicPartition(topic, 0), 5L, new TopicPartition(topic, 1), 6L));
        before = snapshot();
    }

    private void assertNothingWritten() throws Exception {
        assertThat(snapshot()).as("ZooKeeper is unchanged").isEqualTo(before);
    }

    @Test
    void unknownGroup() throws Exception {
        String[][] commands = {
            {"groups", "describe", "--group", "nope"},
            {"groups", "delete", "--group", "nope"},
            {"offsets", "reset", "--group", "nope", "--all-topics", "--to-offset", "1", "--execute"},
            {"offsets", "export", "--group", "nope"},
            {"offsets", "delete", "--group", "nope", "--topic", topic}
        };
        for (String[] c : commands) {
            assertThat(gkb(c).failed(1))
                    .as(String.join(" ", c))
                    .isEqualTo("error: unknown group 'nope' (no node " + ZkLayout.group("nope") + ")");
        }
        assertNothingWritten();
    }

    @Test
    void unknownTopic() throws Exception {
        assertThat(gkb("offsets", "reset", "--group", group, "--topic", "nope", "--to-offset", "1", "--execute")
                        .failed(1))
                .startsWith(
                        "error: unknown topic 'nope': not in Kafka at " + bootstrap() + ", not in the topic registry, "
                                + "and group " + group + " has no offsets, owners or members for it");
        assertThat(gk("offsets", "reset", "--group", group, "--topic", "nope", "--to-offset", "1", "--execute")
                        .failed(1))
                .endsWith("(pass --bootstrap to look it up in Kafka)");
        assertNothingWritten();
    }

    @Test
    void unknownPartition() throws Exception {
        assertThat(gkb("offsets", "reset", "--group", group, "--topic", topic + ":1,7", "--to-offset", "1", "--execute")
                        .failed(1))
                .isEqualTo("error: unknown partition " + topic + ":7: topic " + topic
                        + " has 3 partition(s) in Kafka at " + bootstrap());
        assertThat(gk("offsets", "reset", "--group", group, "--topic", topic + ":7", "--to-offset", "1", "--execute")
                        .failed(1))
                .isEqualTo("error: unknown partition " + topic + ":7: topic " + topic
                        + " has 3 partition(s) in the topic registry");
        assertNothingWritten();
    }

    @Test
    void negativeToOffset() throws Exception {
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics", "--to-offset", "-5", "--execute")
                        .failed(2))
                .isEqualTo("error: --to-offset must be >= 0, was -5 (see 'groupkeeper offsets reset --help')");
        assertNothingWritten();
    }

    @Test
    void twoResetSpecsAtOnce() throws Exception {
        assertThat(gkb(
                                "offsets",
                                "reset",
                                "--group",
                                group,
                                "--all-topics",
                                "--to-earliest",
                                "--to-offset",
                                "3",
                                "--execute")
                        .failed(2))
                .contains("--to-earliest", "--to-offset=N", "are mutually exclusive");
        assertNothingWritten();
    }

    @Test
    void noResetSpecOrNoPartitions() throws Exception {
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics").failed(2))
                .contains("Missing required argument");
        assertThat(gkb("offsets", "reset", "--group", group, "--to-latest").failed(2))
                .contains("select the partitions: --all-topics or --topic");
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics", "--topic", topic, "--to-latest")
                        .failed(2))
                .contains("--all-topics and --topic are mutually exclusive");
        assertNothingWritten();
    }

    @Test
    void aFileWithAMalformedLineNamesTheLineAndWritesNothing(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("offsets.csv");
        Files.writeString(csv, topic + ",0,1\n" + topic + ",1,2\n" + topic + ";2;3\n");
        assertThat(gkb("offsets", "import", "--group", group, "--from-file", csv.toString(), "--execute")
                        .failed(1))
                .isEqualTo("error: " + csv + " line 3: expected topic,partition,offset, found 1 field(s): '" + topic
                        + ";2;3'; nothing was written");
        assertThat(gkb("offsets", "reset", "--group", group, "--from-file", csv.toString(), "--execute")
                        .failed(1))
                .contains(csv + " line 3: expected topic,partition,offset");

        Path json = dir.resolve("offsets.json");
        Files.writeString(
                json,
                "{\"group\":\"x\",\"offsets\":[\n  {\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":1},\n"
                        + "  {\"topic\":\"" + topic + "\",\"partition\":1,\"offset\":-2}\n]}\n");
        assertThat(gkb("offsets", "import", "--group", group, "--from-file", json.toString(), "--execute")
                        .failed(1))
                .isEqualTo("error: " + json + " line 3: offset must be >= 0, was -2; nothing was written");

        Path unknown = dir.resolve("unknown.csv");
        Files.writeString(unknown, topic + ",0,1\n" + topic + ",9,2\n");
        assertThat(gkb("offsets", "import", "--group", group, "--from-file", unknown.toString(), "--execute")
                        .failed(1))
                .isEqualTo("error: unknown partition " + topic + ":9 (line 2 of " + unknown + "): topic " + topic
                        + " has 3 partition(s) in Kafka at " + bootstrap());
        assertThat(gkb(
                                "offsets",
                                "import",
                                "--group",
                                group,
                                "--from-file",
                                dir.resolve("missing.csv").toString())
                        .failed(1))
                .isEqualTo("error: cannot read " + dir.resolve("missing.csv") + ": no such file");
        assertNothingWritten();
    }

    @Test
    void specsThatNeedTheLogWithoutBootstrap() throws Exception {
        assertThat(gk("offsets", "reset", "--group", group, "--all-topics", "--to-earliest", "--execute")
                        .failed(1))
                .isEqualTo("error: --to-earliest needs the log bounds of " + topic + ":0: pass --bootstrap");
        assertThat(gk("offsets", "reset", "--group", group, "--all-topics", "--by-duration", "PT1H")
                        .failed(1))
                .contains("--by-duration needs the log bounds");
        assertNothingWritten();
    }

    @Test
    void badValues() throws Exception {
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics", "--to-datetime", "yesterday")
                        .failed(2))
                .contains("--to-datetime 'yesterday' is not a date-time like 2026-11-29T10:00:00.000");
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics", "--by-duration", "1h")
                        .failed(2))
                .contains("--by-duration '1h' is not an ISO-8601 duration");
        assertThat(gkb("offsets", "reset", "--group", group, "--all-topics", "--shift-by", "ten")
                        .failed(2))
                .contains("--shift-by");
        assertThat(gkb("offsets", "reset", "--group", group, "--topic", topic + ":x", "--to-latest")
                        .failed(2))
                .contains("'x' is not a partition number");
        assertThat(gkb("groups", "describe", "--group", "a b").failed(2)).contains("group id 'a b' contains");
        assertThat(gkb("groups", "list", "--output", "xml").failed(2)).contains("--output");
        assertThat(gkb("offsets", "export", "--group", group, "--format", "xml").failed(2))
                .contains("unknown format 'xml'");
        assertThat(cli("offsets").failed(2)).contains("missing subcommand: reset, export, import, delete");
        assertThat(cli("frobnicate").failed(2)).contains("Unmatched argument");
        assertNothingWritten();
    }

    @Test
    void zooKeeperUnreachable() {
        assertThat(cli("groups", "list", "--zk", "127.0.0.1:1", "--timeout", "1")
                        .failed(1))
                .isEqualTo(
                        "error: cannot connect to ZooKeeper at 127.0.0.1:1 within 1000 ms: 127.0.0.1:1: Connection refused");
    }

    @Test
    void kafkaUnreachable() throws Exception {
        assertThat(cli(
                                "groups",
                                "describe",
                                "--group",
                                group,
                                "--zk",
                                zk(),
                                "--bootstrap",
                                "127.0.0.1:1",
                                "--timeout",
                                "2")
                        .failed(1))
                .startsWith("error: Kafka at 127.0.0.1:1: ");
        assertNothingWritten();
    }

    @Test
    void aBootstrapValueKafkaCannotUseIsNamedWithKafkasReason() throws Exception {
        assertThat(cli("groups", "describe", "--group", group, "--zk", zk(), "--bootstrap", "kafka", "--timeout", "2")
                        .failed(1))
                .isEqualTo("error: --bootstrap 'kafka': Invalid url in bootstrap.servers: kafka");
        assertThat(cli(
                                "groups",
                                "describe",
                                "--group",
                                group,
                                "--zk",
                                zk(),
                                "--bootstrap",
                                "nosuchhost.invalid:9092",
                                "--timeout",
                                "2")
                        .failed(1))
                .isEqualTo("error: --bootstrap 'nosuchhost.invalid:9092': No resolvable bootstrap urls given in "
                        + "bootstrap.servers");
        assertNothingWritten();
    }

    @Test
    void nodesWithAclsAreRefusedNamingTheCredentialsFlag() throws Exception {
        // In a namespace of their own, so the other tests' snapshots of the default one can still read everything.
        String ns = unique("acl");
        String readable = unique("secured");
        String closed = unique("closed");
        for (String g : List.of(readable, closed)) {
            try (GroupKeeper gk = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString(zk())
                            .namespace(ns)
                            .digest("app:s3cret", g.equals(readable))
                            .build())
                    .build()
                    .start()) {
                gk.topics().ensureTopic(topic, 3);
                GroupMember m = gk.member(g).topics(topic).build();
                m.start();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> m.assignment().size() == 3);
                assertThat(m.commit(offsetsOf(topic, 1, 2, 3)).allCommitted()).isTrue();
            }
        }
        Map<String, String> secured = snapshot("/" + ns + "/groups/" + readable);
        assertThat(cli(
                                "offsets",
                                "reset",
                                "--group",
                                readable,
                                "--all-topics",
                                "--to-offset",
                                "0",
                                "--execute",
                                "--zk",
                                zk(),
                                "--namespace",
                                ns)
                        .failed(1))
                .isEqualTo("error: reset of group " + readable + " refused by ZooKeeper: not authorized (the group's "
                        + "nodes have ACLs): pass --zk-digest USER:PASSWORD (or set GROUPKEEPER_ZK_DIGEST)");
        assertThat(snapshot("/" + ns + "/groups/" + readable))
                .as("nothing written")
                .isEqualTo(secured);
        assertThat(cli("groups", "describe", "--group", closed, "--zk", zk(), "--namespace", ns)
                        .failed(1))
                .startsWith("error: read of /" + ns + "/groups/" + closed)
                .endsWith(" refused by ZooKeeper: not authorized (the group's nodes have ACLs): pass --zk-digest "
                        + "USER:PASSWORD (or set GROUPKEEPER_ZK_DIGEST)");
        assertThat(cli(
                                "offsets",
                                "reset",
                                "--group",
                                readable,
                                "--all-topics",
                                "--to-offset",
                                "0",
                                "--execute",
                                "--zk",
                                zk(),
                                "--namespace",
                                ns,
                                "--zk-digest",
                                "app:s3cret")
                        .ok())
                .contains("Wrote 3 offset(s)");
        assertNothingWritten();
    }
}

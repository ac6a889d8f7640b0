package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** offsets export then offsets import is exact, in CSV and JSON; the import is one transaction and dry by default. */
class ExportImportIT extends CliTestSupport {

    private static String topic;
    private static String source;

    /** A group whose offsets were committed by a real member, as in production. */
    @BeforeAll
    static void committedByAMember() {
        topic = unique("ex");
        topic(topic, 3);
        produce(topic, 0, 50, i -> System.currentTimeMillis());
        source = unique("source");
        try (GroupKeeper gk = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start()) {
            GroupMember m = gk.member(source).topics(topic).build();
            m.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 3);
            Map<TopicPartition, Long> offsets = new HashMap<>(offsetsOf(topic, 42, 7, 0));
            assertThat(m.commit(offsets).allCommitted()).isTrue();
            CommitResult again = m.commit(Map.of(new TopicPartition(topic, 0), 43L));
            assertThat(again.allCommitted()).isTrue();
        }
    }

    @Test
    void csvRoundTripIntoANewGroupIsExact(@TempDir Path dir) throws Exception {
        String csv = gk("offsets", "export", "--group", source).ok();
        assertThat(csv).isEqualTo(topic + ",0,43\n" + topic + ",1,7\n" + topic + ",2,0\n");
        Path file = dir.resolve("offsets.csv");
        Files.writeString(file, csv);

        String target = unique("copy");
        String dry = gkb("offsets", "import", "--group", target, "--from-file", file.toString())
                .ok();
        assertThat(dry)
                .contains("note: group " + target + " does not exist yet; it is created with the offsets")
                .contains("Dry run: nothing written. Add --execute to write 3 offset(s) in one ZooKeeper transaction.");
        assertThat(raw.checkExists().forPath(groupPath(target)))
                .as("the dry run wrote nothing")
                .isNull();
        assertThat(row(dry, topic, 0)).startsWith(topic, "0", "-", "43");

        String done = gkb("offsets", "import", "--group", target, "--from-file", file.toString(), "--execute")
                .ok();
        assertThat(done).contains("Wrote 3 offset(s) in one ZooKeeper transaction.");
        assertThat(gk("offsets", "export", "--group", target).ok()).isEqualTo(csv);
        assertThat(gk("groups", "describe", "--group", target).ok()).contains("admin:import");
    }

    @Test
    void jsonBackupAndRestoreOfTheSameGroupIsExact(@TempDir Path dir) throws Exception {
        String group = unique("restore");
        Path csv = dir.resolve("seed.csv");
        Files.writeString(csv, gk("offsets", "export", "--group", source).ok());
        gkb("offsets", "import", "--group", group, "--from-file", csv.toString(), "--execute")
                .ok();

        Path backup = dir.resolve("backup.json");
        gk("offsets", "export", "--group", group, "--format", "json", "--file", backup.toString())
                .ok();
        String json = Files.readString(backup);
        assertThat(json)
                .startsWith("{\"group\":\"" + group + "\",\"offsets\":[\n")
                .contains("{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":43}");

        gkb("offsets", "reset", "--group", group, "--all-topics", "--to-earliest", "--execute")
                .ok();
        assertThat(stored(group, new TopicPartition(topic, 0))).hasValue(0);

        String restored = gkb("offsets", "import", "--group", group, "--from-file", backup.toString(), "--execute")
                .ok();
        assertThat(row(restored, topic, 0)).startsWith(topic, "0", "0", "43");
        assertThat(gk("offsets", "export", "--group", group, "--format", "json").ok())
                .isEqualTo(json);
    }

    @Test
    void anImportOverAnExistingGroupShowsCurrentToNewAndTouchesOnlyListedPartitions(@TempDir Path dir)
            throws Exception {
        String group = unique("partial");
        seed(group, offsetsOf(topic, 1, 2, 3));
        Path file = dir.resolve("one.csv");
        Files.writeString(file, "topic,partition,offset\n" + topic + ",1,20\n");
        String out = gkb(
                        "offsets",
                        "import",
                        "--group",
                        group,
                        "--from-file",
                        file.toString(),
                        "--execute",
                        "--output",
                        "json")
                .ok();
        assertThat(out).contains("\"current\" : 2", "\"new\" : 20", "\"executed\" : true");
        assertThat(stored(group, new TopicPartition(topic, 0))).hasValue(1);
        assertThat(stored(group, new TopicPartition(topic, 1))).hasValue(20);
        assertThat(stored(group, new TopicPartition(topic, 2))).hasValue(3);
    }

    @Test
    void aNamespaceKeepsTenantsApart(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("o.csv");
        Files.writeString(csv, topic + ",0,5\n");
        String group = unique("tenant");
        gkb(
                        "offsets",
                        "import",
                        "--group",
                        group,
                        "--from-file",
                        csv.toString(),
                        "--namespace",
                        "tenants/a",
                        "--execute")
                .ok();
        assertThat(raw.checkExists().forPath("/tenants/a/groups/" + group + "/offsets/" + topic + "/0"))
                .isNotNull();
        assertThat(raw.checkExists().forPath(groupPath(group))).isNull();
        assertThat(gk("groups", "list", "--namespace", "tenants/a").ok()).contains(group);
        assertThat(gk("groups", "list").ok()).doesNotContain(group);
        assertThat(gk("offsets", "export", "--group", group).failed(1)).contains("unknown group");
    }

    @Test
    void aJsonBackupOfAnotherGroupIsRefusedUnlessItsGroupIsNamed(@TempDir Path dir) throws Exception {
        Path backup = dir.resolve("source.json");
        gk("offsets", "export", "--group", source, "--format", "json", "--file", backup.toString())
                .ok();
        String other = unique("other");
        assertThat(gkb("offsets", "import", "--group", other, "--from-file", backup.toString(), "--execute")
                        .failed(1))
                .isEqualTo(
                        "error: " + backup + " holds the offsets of group " + source + " (its \"group\" field), not of "
                                + other + ": pass --from-group " + source + " to import them into " + other);
        assertThat(raw.checkExists().forPath(groupPath(other)))
                .as("nothing written")
                .isNull();
        assertThat(gkb(
                                "offsets",
                                "import",
                                "--group",
                                other,
                                "--from-file",
                                backup.toString(),
                                "--from-group",
                                "nope",
                                "--execute")
                        .failed(1))
                .isEqualTo("error: " + backup + " holds the offsets of group " + source + ", not --from-group nope");
        gkb(
                        "offsets",
                        "import",
                        "--group",
                        other,
                        "--from-file",
                        backup.toString(),
                        "--from-group",
                        source,
                        "--execute")
                .ok();
        assertThat(gk("offsets", "export", "--group", other).ok())
                .isEqualTo(gk("offsets", "export", "--group", source).ok());
    }

    @Test
    void anExportThatCannotBeWrittenOrWouldBeEmptyFailsAndKeepsThePreviousBackup(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("no-such-dir").resolve("x.csv");
        assertThat(gk("offsets", "export", "--group", source, "--file", missing.toString())
                        .failed(1))
                .startsWith("error: cannot write --file " + missing + ": no such file or directory: "
                        + missing.getParent());
        assertThat(dir.resolve("no-such-dir")).doesNotExist();

        Path backup = dir.resolve("backup.csv");
        Files.writeString(backup, "previous\n");
        String empty = unique("empty");
        seed(empty, Map.of());
        assertThat(gk("offsets", "export", "--group", empty, "--file", backup.toString())
                        .failed(1))
                .isEqualTo("error: group " + empty + " has no committed offsets; nothing exported");
        assertThat(Files.readString(backup)).as("the previous backup is kept").isEqualTo("previous\n");
        assertThat(gk("offsets", "export", "--group", source, "--output", "json")
                        .failed(2))
                .startsWith("error: --output does not apply to export: the file format is --format csv|json");
    }
}

package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** groups list / describe / delete and offsets delete against a live group. */
class GroupsIT extends CliTestSupport {

    private static String topic;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void data() {
        topic = unique("gr");
        topic(topic, 4);
        for (int p = 0; p < 4; p++) {
            produce(topic, p, 10, i -> System.currentTimeMillis());
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    private GroupMember member(String group, String host, String instanceId) {
        return member(group, host, instanceId, null);
    }

    private GroupMember member(String group, String host, String instanceId, String rack) {
        GroupKeeper gk = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start();
        toClose.add(gk);
        GroupKeeper.MemberBuilder b = gk.member(group).topics(topic).host(host);
        if (instanceId != null) {
            b.instanceId(instanceId);
        }
        if (rack != null) {
            b.rack(rack);
        }
        GroupMember m = b.build();
        m.start();
        return m;
    }

    /** Two live members (a in rack-a, b without a rack), balanced, each having committed 3 + p for its partitions. */
    private List<GroupMember> liveGroup(String group) {
        GroupMember a = member(group, "host-a", null, "rack-a");
        GroupMember b = member(group, "host-b", "inst-" + group);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> a.assignment().size() == 2 && b.assignment().size() == 2);
        for (GroupMember m : List.of(a, b)) {
            for (TopicPartition tp : m.assignment()) {
                assertThat(m.commit(Map.of(tp, 3L + tp.partition())).allCommitted())
                        .isTrue();
            }
        }
        return List.of(a, b);
    }

    @Test
    void describeShowsMembersGenerationLeaderStateOwnersOffsetsAndLag() throws Exception {
        String group = unique("desc");
        List<GroupMember> members = liveGroup(group);
        GroupMember a = members.get(0);
        GroupMember b = members.get(1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> gk("groups", "describe", "--group", group).ok().contains("STATE       STABLE"));

        String plain = gk("groups", "describe", "--group", group).ok();
        assertThat(plain)
                .contains(
                        "GROUP       " + group,
                        "LEADER      " + (a.isLeader() ? a.memberId() : b.memberId()),
                        "ASSIGNOR    sticky",
                        "GENERATION  " + a.generation());
        assertThat(row(plain, a.memberId(), "-"))
                .containsExactly(a.memberId(), "-", "host-a", "rack-a", Printer.compact(a.assignment()));
        assertThat(row(plain, b.memberId(), b.memberId()))
                .containsExactly(b.memberId(), b.memberId(), "host-b", "-", Printer.compact(b.assignment()));
        for (int p = 0; p < 4; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            String owner = a.assignment().contains(tp) ? a.memberId() : b.memberId();
            assertThat(row(plain, topic, p))
                    .containsExactly(topic, String.valueOf(p), owner, String.valueOf(3 + p), "-", "-", "-", owner);
        }
        assertThat(plain).endsWith("log-end offsets and lag unknown: pass --bootstrap to read them from Kafka\n");

        String withLog = gkb("groups", "describe", "--group", group).ok();
        assertThat(row(withLog, topic, 1))
                .startsWith(
                        topic,
                        "1",
                        a.assignment().contains(new TopicPartition(topic, 1)) ? a.memberId() : b.memberId(),
                        "4",
                        "10",
                        "6");
        assertThat(withLog).doesNotContain("pass --bootstrap");

        JsonNode json = new ObjectMapper()
                .readTree(gkb("groups", "describe", "--group", group, "--output", "json")
                        .ok());
        assertThat(json.get("state").asText()).isEqualTo("STABLE");
        assertThat(json.get("members")).hasSize(2);
        assertThat(json.get("members").get(0).get("partitions")).hasSize(2);
        assertThat(json.get("members"))
                .extracting(m -> m.get("host").asText() + "=" + m.get("rack").asText())
                .containsExactlyInAnyOrder("host-a=rack-a", "host-b=null");
        assertThat(json.get("partitions")).hasSize(4);
        assertThat(json.get("partitions").get(3).get("lag").asLong()).isEqualTo(4);
        assertThat(json.get("partitions").get(3).get("logEnd").asLong()).isEqualTo(10);

        String list = gk("groups", "list").ok();
        assertThat(row(list, group, "STABLE"))
                .containsExactly(
                        group,
                        "STABLE",
                        "2",
                        String.valueOf(a.generation()),
                        a.isLeader() ? a.memberId() : b.memberId(),
                        topic);
        JsonNode listed = new ObjectMapper()
                .readTree(gk("groups", "list", "--output", "json").ok());
        assertThat(listed.findValuesAsText("group")).contains(group);
    }

    @Test
    void describeCountsTheOffsetsDoneAboveTheCommittedOneAndAResetOrAnImportClearsThem(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String group = unique("done");
        GroupMember m = member(group, "host-a", null);
        await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 4);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        TopicPartition p2 = new TopicPartition(topic, 2);
        assertThat(m.commit(
                                Map.of(p0, 3L, p1, 4L, p2, 5L),
                                Map.of(),
                                Map.of(),
                                Map.of(
                                        p0, "{\"from\":3,\"ranges\":[[5,7],[9,9]]}",
                                        p1, "{\"from\":2,\"ranges\":[[5,7]]}", // written with another offset:
                                        // cleared, counts nothing
                                        p2, "{\"from\":5,\"bits\":\"BQ==\"}"))
                        .allCommitted())
                .isTrue(); // bits 0 and 2: 6, 8

        String plain = gk("groups", "describe", "--group", group).ok();
        assertThat(plain).contains("COMMITTED  DONE-ABOVE  LOG-END");
        assertThat(row(plain, topic, 0)).startsWith(topic, "0", m.memberId(), "3", "4");
        assertThat(row(plain, topic, 1)).startsWith(topic, "1", m.memberId(), "4", "0");
        assertThat(row(plain, topic, 2)).startsWith(topic, "2", m.memberId(), "5", "2");
        JsonNode json = new ObjectMapper()
                .readTree(gk("groups", "describe", "--group", group, "--output", "json")
                        .ok());
        assertThat(json.get("partitions"))
                .extracting(p ->
                        p.get("partition").asInt() + "=" + p.get("doneAbove").asInt())
                .containsExactly("0=4", "1=0", "2=2", "3=0");

        gkb("offsets", "reset", "--group", group, "--topic", topic + ":0", "--to-offset", "3", "--execute")
                .ok();
        java.nio.file.Path file = dir.resolve("offsets.csv");
        java.nio.file.Files.writeString(file, topic + ",2,5\n");
        gkb("offsets", "import", "--group", group, "--from-file", file.toString(), "--execute")
                .ok();

        assertThat(new String(raw.getData().forPath(offsetPath(group, p0)), java.nio.charset.StandardCharsets.UTF_8))
                .as("a reset to the same offset still clears it (I4)")
                .doesNotContain("done")
                .contains("admin:reset");
        assertThat(new String(raw.getData().forPath(offsetPath(group, p2)), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("done")
                .contains("admin:import");
        String after = gk("groups", "describe", "--group", group).ok();
        assertThat(after)
                .as("nothing done above any committed offset: today's columns")
                .contains("OWNER", "COMMITTED  LOG-END")
                .doesNotContain("DONE-ABOVE");
    }

    @Test
    void deletesAreRefusedWhileMembersAreLiveUnlessForced() throws Exception {
        String group = unique("del");
        List<GroupMember> members = liveGroup(group);
        Map<String, String> before = snapshot(groupPath(group));
        assertThat(gk("groups", "delete", "--group", group).failed(1))
                .startsWith("error: group " + group + " has 2 live member(s) (")
                .endsWith("); stop them first, or use --force");
        assertThat(gk("offsets", "delete", "--group", group, "--topic", topic).failed(1))
                .startsWith("error: topic " + topic + " of group " + group + " is in use (" + topic + ":0 owned by ")
                .endsWith("); stop them first, or use --force");
        assertThat(gk("offsets", "delete", "--group", group, "--topic", "other").failed(1))
                .isEqualTo("error: group " + group + " has no offsets for topic 'other' (it has offsets for " + topic
                        + ")");
        assertThat(snapshot(groupPath(group))).as("nothing deleted").isEqualTo(before);

        for (GroupMember m : members) {
            m.close();
        }
        String deleted =
                gk("offsets", "delete", "--group", group, "--topic", topic).ok();
        assertThat(deleted)
                .isEqualTo(
                        "Cleared offsets of topic " + topic + " of group " + group
                                + ": 4 offset node(s) (kept, with no offset), 4 committed offset(s) removed, in one ZooKeeper transaction.\n");
        for (String p : raw.getChildren().forPath(groupPath(group) + "/offsets/" + topic)) {
            assertThat(new String(
                            raw.getData().forPath(groupPath(group) + "/offsets/" + topic + "/" + p),
                            java.nio.charset.StandardCharsets.UTF_8))
                    .as("kept, with no offset")
                    .contains("\"offset\":null");
        }

        // A dry run first (the default, as offsets reset's): what would go, and nothing deleted.
        Map<String, String> kept = snapshot(groupPath(group));
        String plan = gk("groups", "delete", "--group", group).ok();
        assertThat(plan)
                .startsWith("Would delete group " + group + ": " + kept.size() + " node(s), 0 committed "
                        + "offset(s), in one ZooKeeper transaction.\n")
                .endsWith("Dry run: nothing deleted. Add --execute to " + "delete.\n");
        assertThat(snapshot(groupPath(group)))
                .as("nothing deleted by the dry run")
                .isEqualTo(kept);

        String gone = gk("groups", "delete", "--group", group, "--execute").ok();
        assertThat(gone)
                .isEqualTo("Deleted group " + group + ": " + kept.size() + " node(s), 0 committed offset(s), "
                        + "in one ZooKeeper transaction.\n");
        assertThat(raw.checkExists().forPath(groupPath(group))).isNull();
    }

    @Test
    void anOffsetsDeleteIsRefusedWhileAStaticMemberInItsGracePeriodStillHoldsTheTopic() throws Exception {
        String group = unique("grace");
        String other = unique("gro");
        registerTopic(other, 1);
        GroupKeeper ka = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start();
        GroupKeeper kb = GroupKeeper.builder()
                .store(ZooKeeperStore.builder().connectString(zk()).build())
                .build()
                .start();
        toClose.add(ka);
        toClose.add(kb);
        GroupMember a = ka.member(group)
                .topics(topic)
                .instanceId("a-" + group)
                .staticGracePeriod(Duration.ofMinutes(2))
                .build();
        a.start();
        GroupMember b = kb.member(group).topics(other).build();
        b.start();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> a.assignment().size() == 4 && b.assignment().size() == 1);
        for (TopicPartition tp : a.assignment()) {
            assertThat(a.commit(Map.of(tp, 10L)).allCommitted()).isTrue();
        }
        a.close(); // static: the leader keeps its partitions for it, unowned, for the grace period
        await().atMost(Duration.ofSeconds(10))
                .until(() -> raw.getChildren()
                        .forPath(groupPath(group) + "/owners/" + topic)
                        .isEmpty());
        Map<String, String> before = snapshot(groupPath(group) + "/offsets");

        assertThat(gk("offsets", "delete", "--group", group, "--topic", topic).failed(1))
                .isEqualTo("error: topic " + topic + " of group " + group
                        + " is in use (the current generation assigns "
                        + "it to a-" + group + " (not connected now: a static member's grace period?)); stop them "
                        + "first, or use --force");
        assertThat(snapshot(groupPath(group) + "/offsets"))
                .as("nothing cleared")
                .isEqualTo(before);
    }

    @Test
    void aGroupDeleteCountsAMemberNodeItCannotReadAsLive() throws Exception {
        String group = unique("skew");
        seed(group, offsetsOf(topic, 5, 5, 5, 5));
        // A member of a newer version, say, whose node body this one cannot decode: live all the same.
        raw.create()
                .creatingParentsIfNeeded()
                .forPath(
                        groupPath(group) + "/members/m-future-1",
                        "{\"v\":99,\"something\":[".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(gk("groups", "delete", "--group", group).failed(1))
                .isEqualTo("error: group " + group
                        + " has 1 live member(s) (m-future-1); stop them first, or use --force");
        assertThat(raw.checkExists().forPath(groupPath(group) + "/offsets")).isNotNull();
    }

    @Test
    void forcedDeleteOfALiveGroupRemovesItsOffsetsOwnersAndMembers() throws Exception {
        String group = unique("force");
        List<GroupMember> members = liveGroup(group);
        String plan = gk("groups", "delete", "--group", group, "--force").ok();
        assertThat(plan)
                .contains("4 committed offset(s)")
                .contains("note: forced: live members ")
                .contains("Dry run: nothing deleted.");
        assertThat(raw.checkExists().forPath(groupPath(group) + "/offsets")).isNotNull();
        String out =
                gk("groups", "delete", "--group", group, "--force", "--execute").ok();
        assertThat(out).contains("4 committed offset(s)").contains("note: forced while members were live: ");
        // Members that keep running re-create their election node (Curator's LeaderLatch does), so the group node may
        // come back as a shell; what the delete was for is gone.
        assertThat(raw.checkExists().forPath(groupPath(group) + "/offsets")).isNull();
        assertThat(raw.checkExists().forPath(groupPath(group) + "/owners")).isNull();
        assertThat(raw.checkExists().forPath(groupPath(group) + "/members")).isNull();
        for (GroupMember m : members) {
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                SortedSet<TopicPartition> owned = m.assignment(); // one snapshot: it may empty between two calls
                return owned.isEmpty() || !m.commit(Map.of(owned.first(), 99L)).allCommitted();
            });
        }
    }
}

package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Regressions of the ownership bugs a review found (issue 15), each on real ZooKeeper: an operator's typo in an offset
 * node must never wedge a group, a final offset handed over must never be dropped, a duplicated target must be
 * repaired. The session-bound fence has its store-level test in {@link FencingIT}.
 */
class HandEditRegressionIT extends ZkTestSupport {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String offsetPath(String group, String topic, int p) {
        return ZkLayout.GROUPS + "/" + group + "/offsets/" + topic + "/" + p;
    }

    private GroupMember member(String group, String topic, RebalanceListener listener) {
        GroupKeeper gk = newKeeper(); // one store (session) per member, as separate processes would have
        GroupMember m = gk.member(group).topics(topic).listener(listener).build();
        m.start();
        return m;
    }

    /**
     * The scenario: typos on every offset node while the members have something to commit, a new member joins,
     * the operator repairs the nodes. Before the fix the commit conflict met the corrupt node and the member forgot
     * the partition without releasing its owner node: the partitions that moved stayed unowned until its process ended.
     */
    @Test
    void typosOnEveryOffsetNodeThenAJoinThenTheRepairLeaveEveryPartitionOwnedAgain() throws Exception {
        String group = newGroup();
        topic("typo", 3);
        GroupMember a = member(group, "typo", RebalanceListener.NOOP);
        GroupMember b = member(group, "typo", RebalanceListener.NOOP);
        awaitBalanced(Map.of("typo", 3), a, b);
        for (GroupMember m : List.of(a, b)) {
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            m.assignment().forEach(tp -> offsets.put(tp, 100L + tp.partition()));
            assertThat(m.commit(offsets).statuses().values()).containsOnly(CommitResult.Status.COMMITTED);
        }
        for (int p = 0; p < 3; p++) {
            admin.setData().forPath(offsetPath(group, "typo", p), utf8("1200O")); // the typo: a letter O
        }
        for (GroupMember m : List.of(a, b)) {
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            m.assignment().forEach(tp -> offsets.put(tp, 200L + tp.partition()));
            CommitResult r = m.commit(offsets);
            assertThat(r.statuses().values())
                    .as("a corrupt node is never overwritten")
                    .containsOnly(CommitResult.Status.NOT_OWNED);
        }
        assertThat(a.assignment()).isEmpty();
        assertThat(b.assignment()).isEmpty();

        GroupMember c = member(group, "typo", RebalanceListener.NOOP);
        // A partition that moved is released by its stopped holder even while its node is corrupt.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Map<TopicPartition, String> owners = ownersInZk(group);
            assertThat(owners).doesNotContainValue(c.memberId());
            assertThat(owners).hasSizeLessThan(3);
        });
        for (int p = 0; p < 3; p++) {
            admin.setData().forPath(offsetPath(group, "typo", p), utf8(String.valueOf(1200 + p)));
        }
        awaitBalanced(Map.of("typo", 3), a, b, c);
        for (GroupMember m : List.of(a, b, c)) {
            for (TopicPartition tp : m.assignment()) {
                assertThat(m.committed(tp)).hasValue(1200L + tp.partition());
                assertThat(m.commit(Map.of(tp, 1300L)).statuses()).containsEntry(tp, CommitResult.Status.COMMITTED);
            }
        }
    }

    /**
     * A corrupt node on a partition being revoked: the fenced release met the moved version, and re-reading the node to
     * resolve it threw, so every later step of that member failed and it claimed nothing new. Other partitions must be
     * unaffected: here the member still takes a partition added later, before anyone repairs the node.
     */
    @Test
    void aCorruptNodeOnARevokedPartitionDoesNotStopTheMemberFromTakingOthers() throws Exception {
        String group = newGroup();
        String topic = "revoked-typo-" + System.nanoTime() % 10000;
        topic(topic, 2);
        GroupMember a = member(group, topic, RebalanceListener.NOOP);
        awaitBalanced(Map.of(topic, 2), a);
        for (int p = 0; p < 2; p++) {
            admin.setData().forPath(offsetPath(group, topic, p), utf8("{\"offset\":"));
        }
        GroupMember b = member(group, topic, RebalanceListener.NOOP);
        // One of a's partitions moves to b: a releases it despite the corrupt node; b cannot take it until repair.
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(ownersInZk(group)).hasSize(1));
        topic(topic, 4);
        SortedSet<TopicPartition> fresh =
                new TreeSet<>(List.of(new TopicPartition(topic, 2), new TopicPartition(topic, 3)));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            SortedSet<TopicPartition> owned = new TreeSet<>(a.assignment());
            owned.addAll(b.assignment());
            assertThat(owned).containsAll(fresh);
            assertThat(a.assignment()).as("a took its new partition").isNotEmpty();
        });
        for (int p = 0; p < 2; p++) {
            admin.setData().forPath(offsetPath(group, topic, p), utf8("5"));
        }
        awaitBalanced(Map.of(topic, 4), a, b);
    }

    /**
     * A commit during the revocation meets a typo in the revoked partition's offset node: the member stops the
     * partition (nothing is written over the node) and must still release it, so that the heir claims it once the node
     * is repaired. The step that revoked it used to release only partitions still being revoked: the stopped one kept
     * its owner node for as long as the target did not change again, and the heir waited for ever.
     */
    @Test
    void aRevokedPartitionWhoseCommitInTheRevocationMeetsATypoIsStillReleased() throws Exception {
        String group = newGroup();
        String topic = "revoking-typo-" + System.nanoTime() % 10000;
        topic(topic, 2);
        AtomicReference<GroupMember> self = new AtomicReference<>();
        List<CommitResult> answers = new ArrayList<>();
        List<TopicPartition> revoked = new ArrayList<>();
        GroupMember a = member(group, topic, new RebalanceListener() {
            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                Map<TopicPartition, Long> offsets = new TreeMap<>();
                for (TopicPartition tp : partitions) {
                    try { // the operator's typo lands while the partition is being revoked
                        admin.setData().forPath(offsetPath(group, topic, tp.partition()), utf8("1200O"));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    offsets.put(tp, 10L);
                }
                synchronized (answers) {
                    revoked.addAll(partitions);
                    answers.add(self.get().commit(offsets)); // the usual commit on revocation: it meets the typo
                }
            }
        });
        self.set(a);
        awaitBalanced(Map.of(topic, 2), a);
        GroupMember b = member(group, topic, RebalanceListener.NOOP);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            synchronized (answers) {
                assertThat(answers).hasSize(1);
                assertThat(answers.get(0).statuses().values())
                        .as("a corrupt node is never overwritten")
                        .containsOnly(CommitResult.Status.NOT_OWNED);
            }
        });
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(ownersInZk(group))
                        .as("the revoked partition's owner node released despite the corrupt node")
                        .hasSize(1)
                        .doesNotContainValue(b.memberId()));
        TopicPartition moved = revoked.get(0);
        admin.setData().forPath(offsetPath(group, topic, moved.partition()), utf8("5")); // the repair
        awaitBalanced(Map.of(topic, 2), a, b);
        assertThat(b.assignment()).containsExactly(moved);
        assertThat(b.committed(moved)).as("the repair, not written over").hasValue(5L);
    }

    /**
     * A final offset handed over on revocation for a partition whose offset node was deleted by hand while owned: the
     * release used to delete the owner node without writing it (no version to fence on), and the successor started
     * from scratch, skipping records.
     */
    @Test
    void aFinalOffsetHandedOverWithoutAnOffsetNodeIsWrittenWithTheRelease() throws Exception {
        String group = newGroup();
        String topic = "final-absent-" + System.nanoTime() % 10000;
        topic(topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        AtomicReference<GroupMember> self = new AtomicReference<>();
        List<SortedSet<TopicPartition>> changed = new ArrayList<>();
        GroupMember a = member(group, topic, new RebalanceListener() {
            @Override
            public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
                synchronized (changed) {
                    changed.add(partitions);
                }
                self.get().refresh(partitions);
            }

            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                self.get().commitOnRelease(Map.of(tp, 42L), Map.of());
            }
        });
        self.set(a);
        await().until(() -> a.assignment().contains(tp));
        admin.delete().forPath(offsetPath(group, topic, 0)); // zkCli: delete .../offsets/<topic>/0
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            synchronized (changed) {
                return !changed.isEmpty();
            }
        });
        assertThat(a.assignment()).containsExactly(tp);

        Map<TopicPartition, OptionalLong> heard = new ConcurrentHashMap<>();
        GroupMember b = member(group, topic, new RebalanceListener() {
            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                heard.putAll(partitions);
            }
        });
        a.close(); // a's revocation hands over 42; b takes the partition
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.containsKey(tp));
        assertThat(heard.get(tp)).hasValue(42L);
        assertThat(b.committed(tp)).hasValue(42L);
    }

    /**
     * Targets that name one partition twice, as a generation published only in part leaves them: the next leader must
     * rewrite both, not trust the one it happened to read first. The partition is added to the target the leader reads
     * second (the server lists children in a stable order), so de-duplication alone would keep it with the first and
     * leave the second target wrong for good; the leader subscribes to another topic, so its leaving moves nothing else.
     */
    @Test
    void overlappingTargetsAreRepairedByTheNextLeader() throws Exception {
        String group = newGroup();
        String topic = "overlap-" + System.nanoTime() % 10000;
        topic(topic, 4);
        topic("elsewhere-" + topic, 1);
        GroupMember leader = member(group, "elsewhere-" + topic, RebalanceListener.NOOP);
        await().until(leader::isLeader);
        GroupMember b = member(group, topic, RebalanceListener.NOOP);
        GroupMember c = member(group, topic, RebalanceListener.NOOP);
        awaitBalanced(Map.of(topic, 4), b, c);
        String assignment = ZkLayout.GROUPS + "/" + group + "/assignment/";
        List<String> order = admin.getChildren().forPath(assignment.substring(0, assignment.length() - 1)).stream()
                .filter(m -> m.equals(b.memberId()) || m.equals(c.memberId()))
                .toList();
        GroupMember first = order.get(0).equals(b.memberId()) ? b : c;
        GroupMember second = first == b ? c : b;
        int stolen = first.assignment().first().partition();
        String secondTarget = assignment + second.memberId();
        String body = new String(admin.getData().forPath(secondTarget), StandardCharsets.UTF_8);
        String partitions = second.assignment().stream()
                        .map(tp -> String.valueOf(tp.partition()))
                        .reduce((x, y) -> x + "," + y)
                        .orElseThrow()
                + "," + stolen;
        admin.setData()
                .forPath(
                        secondTarget,
                        utf8(body.replaceAll(
                                "\"partitions\":\\{[^}]*}",
                                "\"partitions\":{\"" + topic + "\":[" + partitions + "]}")));
        assertThat(targetPartitions(new String(admin.getData().forPath(secondTarget), StandardCharsets.UTF_8)))
                .contains(stolen);
        leader.close();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String now = new String(admin.getData().forPath(secondTarget), StandardCharsets.UTF_8);
            String firstNow =
                    new String(admin.getData().forPath(assignment + first.memberId()), StandardCharsets.UTF_8);
            assertThat(targetPartitions(now)).doesNotContainAnyElementsOf(targetPartitions(firstNow));
        });
        awaitBalanced(Map.of(topic, 4), b, c);
    }

    private static SortedSet<Integer> targetPartitions(String body) {
        SortedSet<Integer> out = new TreeSet<>();
        String list = body.replaceAll(".*\"partitions\":\\{[^\\[]*\\[([^\\]]*)].*", "$1");
        for (String p : list.split(",")) {
            if (!p.isBlank()) {
                out.add(Integer.parseInt(p.trim()));
            }
        }
        return out;
    }
}

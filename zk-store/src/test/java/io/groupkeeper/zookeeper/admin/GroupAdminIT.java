package io.groupkeeper.zookeeper.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.testkit.ForwardingZkPort;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.AdminNodes;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import io.groupkeeper.zkprotocol.admin.OutcomeUnknownException;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin (zk-protocol's, over the session port) on a real ZooKeeper through zk-store's Curator session:
 * all-or-nothing transactions, re-planning under concurrent commits, lost replies, limits. Lost replies and writes
 * between the admin's read and its write are made by a port put between the admin and its session ({@link
 * ZooKeeperAdmin.Builder#instrument}); the same admin on the model's lost-reply faults is testkit's {@code
 * AdminOnModelTest}.
 */
class GroupAdminIT {

    private static final AtomicInteger GROUPS = new AtomicInteger();
    private static TestingServer server;
    private static CuratorFramework raw;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        raw = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        raw.start();
        raw.blockUntilConnected();
    }

    @AfterAll
    static void stop() throws Exception {
        raw.close();
        server.close();
    }

    /** Log bounds held in memory: every partition's log is [start, end). */
    static final class FixedBounds implements LogBounds {
        final Map<String, Integer> counts = new HashMap<>();
        final long start;
        final long end;

        FixedBounds(long start, long end, String topic, int partitions) {
            this.start = start;
            this.end = end;
            counts.put(topic, partitions);
        }

        @Override
        public Map<String, Integer> partitionCounts(Collection<String> topics) {
            Map<String, Integer> m = new HashMap<>(counts);
            m.keySet().retainAll(topics);
            return m;
        }

        @Override
        public Map<TopicPartition, Long> earliest(Collection<TopicPartition> ps) {
            return all(ps, start);
        }

        @Override
        public Map<TopicPartition, Long> latest(Collection<TopicPartition> ps) {
            return all(ps, end);
        }

        @Override
        public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> ps, Instant t) {
            return Map.of();
        }

        @Override
        public String describe() {
            return "fixed bounds";
        }

        private static Map<TopicPartition, Long> all(Collection<TopicPartition> ps, long v) {
            Map<TopicPartition, Long> m = new HashMap<>();
            ps.forEach(tp -> m.put(tp, v));
            return m;
        }
    }

    private static String newGroup() {
        return "adm" + GROUPS.incrementAndGet();
    }

    private static ZooKeeperAdmin.Builder admin() {
        return ZooKeeperAdmin.builder().connectString(server.getConnectString());
    }

    /** How a transaction goes out through {@link Transactions}: {@code send} sends it (or not) and answers. */
    @FunctionalInterface
    interface Sender {
        List<ZkResult> send(ZkPort session, List<ZkOp> ops) throws ZkFailure;
    }

    /** Every transaction of the admin goes through {@code sender} (reads go to the session as they are). */
    private static ZooKeeperAdmin.Builder admin(Sender sender) {
        return admin().instrument(session -> new ForwardingZkPort(session) {
            @Override
            public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
                return sender.send(delegate, ops);
            }
        });
    }

    /** Runs {@code before} ahead of every transaction the admin sends (a write between its read and its write). */
    private static ZooKeeperAdmin.Builder beforeWrite(Runnable before) {
        return admin((session, ops) -> {
            before.run();
            return session.multi(ops);
        });
    }

    private static final Sender LOST_BEFORE_SENT = (session, ops) -> {
        throw new ZkFailure(ZkCode.CONNECTIONLOSS, null);
    };

    private static String offsetPath(String group, TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }

    private static OptionalLong stored(String group, TopicPartition tp) throws Exception {
        byte[] data = raw.getData().forPath(offsetPath(group, tp));
        return NodeCodec.offset("test", data).offset();
    }

    private static int version(String group, TopicPartition tp) throws Exception {
        Stat s = raw.checkExists().forPath(offsetPath(group, tp));
        return s == null ? -1 : s.getVersion();
    }

    /** Offsets of partitions 0..n-1 of a topic, registered in the topic registry with n partitions. */
    private static SourceOffsets offsets(String topic, long... values) {
        registerTopic(topic, values.length);
        SortedMap<TopicPartition, Long> m = new TreeMap<>();
        for (int p = 0; p < values.length; p++) {
            m.put(new TopicPartition(topic, p), values[p]);
        }
        return SourceOffsets.of("test", m);
    }

    private static void registerTopic(String topic, int partitions) {
        try (ZooKeeperStore s = ZooKeeperStore.builder()
                .connectString(server.getConnectString())
                .build()) {
            s.start();
            if (s.topics().partitionCount(topic).orElse(0) < partitions) {
                s.topics().ensureTopic(topic, partitions);
            }
        }
    }

    /** Simulates a member's commit: a plain body written with a version bump. */
    private static void commitBehindTheAdminsBack(String group, TopicPartition tp, long offset) {
        try {
            raw.setData()
                    .forPath(
                            offsetPath(group, tp),
                            ("{\"offset\":" + offset + ",\"committedBy\":\"m-1\"}").getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aResetWhoseTransactionFailsWritesNothingAtAll() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        TopicPartition p2 = new TopicPartition("t", 2);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20, 30));
        }
        int v0 = version(g, p0);
        int v1 = version(g, p1);
        AtomicInteger interleaved = new AtomicInteger();
        // Every attempt: a member commits partition 2 between the admin's read and its write.
        try (GroupAdmin a = beforeWrite(() -> {
                    interleaved.incrementAndGet();
                    commitBehindTheAdminsBack(g, p2, 31 + interleaved.get());
                })
                .maxAttempts(3)
                .build()) {
            assertThatThrownBy(() -> a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ToOffset(0)))
                    .isInstanceOf(AdminException.class)
                    .hasMessageContaining("changed under each of 3 attempts")
                    .hasMessageContaining("nothing was written");
        }
        assertThat(interleaved).hasValue(3);
        // Partitions 0 and 1 come first in the transaction and would have been written: they were not.
        assertThat(stored(g, p0)).hasValue(10);
        assertThat(stored(g, p1)).hasValue(20);
        assertThat(version(g, p0)).isEqualTo(v0);
        assertThat(version(g, p1)).isEqualTo(v1);
        assertThat(stored(g, p2)).hasValue(34);
    }

    /** A sender that sends the transaction for real, then runs {@code after} and loses the reply. */
    private static Sender sentThenLost(Runnable after) {
        return (session, ops) -> {
            session.multi(ops);
            after.run();
            throw new ZkFailure(ZkCode.CONNECTIONLOSS, null);
        };
    }

    /** An owner that adopted the reset and committed since: its body keeps the history, the reset's sample in it. */
    private static void ownerCommitsKeepingHistory(String group, TopicPartition tp, long delta) {
        try {
            NodeCodec.OffsetBody b = NodeCodec.offset("test", raw.getData().forPath(offsetPath(group, tp)));
            long next = b.offset().getAsLong() + delta;
            raw.setData()
                    .forPath(
                            offsetPath(group, tp),
                            NodeCodec.offset(new NodeCodec.OffsetBody(
                                    OptionalLong.of(next),
                                    "",
                                    java.util.Optional.of("m-1"),
                                    b.generation(),
                                    java.util.Optional.of(Instant.now()),
                                    NodeCodec.append(
                                            b.history(),
                                            new io.groupkeeper.status.CommitSample(
                                                    next, OptionalLong.empty(), Instant.now())))));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aResetWhoseReplyIsLostAndThatAnOwnerAdoptedSinceIsReportedAppliedNotRunAgain() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        try (GroupAdmin a =
                admin(sentThenLost(() -> ownerCommitsKeepingHistory(g, p0, 3))).build()) {
            ResetPlan plan = a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100));
            assertThat(plan.executed()).isTrue();
            assertThat(plan.attempts()).isEqualTo(1);
        }
        assertThat(stored(g, p0)).as("shifted once, then the owner's commit").hasValue(113);
        assertThat(stored(g, new TopicPartition("t", 1))).hasValue(120);
    }

    @Test
    void aResetWhoseReplyIsLostBeforeItWasSentSaysNothingWasWritten() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        int v0 = version(g, p0);
        try (GroupAdmin a = admin(LOST_BEFORE_SENT).build()) {
            assertThatThrownBy(() -> a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100)))
                    .isInstanceOf(AdminException.class)
                    .isNotInstanceOf(OutcomeUnknownException.class)
                    .hasMessage("reset of group " + g + " failed: ZooKeeper CONNECTIONLOSS; nothing was written");
        }
        assertThat(stored(g, p0)).hasValue(10);
        assertThat(version(g, p0)).isEqualTo(v0);
    }

    /**
     * A caught-up owner committed the log end at the very instant the admin plans a reset that lands on that offset (a
     * shift clamped at the log end): the owner's newest sample is the one the reset would write. The transaction never
     * left; the node, still at the version the plan read, says so, whatever its history holds.
     */
    @Test
    void aResetLostBeforeItWasSentIsNotTakenForAppliedByAnOwnersCommitOfItsTargetAtItsInstant() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10));
        }
        Instant at = Instant.parse("2026-12-01T00:00:10.319Z");
        raw.setData()
                .forPath(
                        offsetPath(g, p0),
                        NodeCodec.offset(new NodeCodec.OffsetBody(
                                OptionalLong.of(42),
                                "",
                                java.util.Optional.of("m-1"),
                                1,
                                java.util.Optional.of(at),
                                List.of(new io.groupkeeper.status.CommitSample(42, OptionalLong.empty(), at)))));
        int v0 = version(g, p0);
        try (GroupAdmin a = admin(LOST_BEFORE_SENT)
                .clock(java.time.Clock.fixed(at, java.time.ZoneOffset.UTC))
                .logBounds(new FixedBounds(0, 42, "t", 1))
                .build()) {
            assertThatThrownBy(() -> a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(22)))
                    .isInstanceOf(AdminException.class)
                    .isNotInstanceOf(OutcomeUnknownException.class)
                    .hasMessage("reset of group " + g + " failed: ZooKeeper CONNECTIONLOSS; nothing was written");
        }
        assertThat(version(g, p0)).as("nothing written").isEqualTo(v0);
    }

    /**
     * Between the admin's read and its write, a caught-up owner commits the log end at the very instant the admin
     * plans a reset that lands on that offset (a shift clamped at the log end): the transaction fails its version
     * check, and the owner's newest sample is the one the reset would write. The admin, asking whether an earlier send
     * of the transaction applied, must not take that sample for its own: it plans again and writes.
     */
    @Test
    void aConflictingResetIsNotTakenForAppliedByAnOwnersCommitOfItsTargetAtItsInstant() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10));
        }
        Instant at = Instant.parse("2026-12-01T00:00:13.354Z");
        AtomicInteger sent = new AtomicInteger();
        try (GroupAdmin a = admin((session, ops) -> {
                    if (sent.incrementAndGet() == 1) {
                        ownerCommitsAt(g, p0, 42, at);
                    }
                    return session.multi(ops);
                })
                .clock(java.time.Clock.fixed(at, java.time.ZoneOffset.UTC))
                .logBounds(new FixedBounds(0, 42, "t", 1))
                .build()) {
            ResetPlan plan = a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100));
            assertThat(plan.executed()).isTrue();
            assertThat(plan.attempts())
                    .as("the first attempt conflicted and wrote nothing")
                    .isEqualTo(2);
        }
        assertThat(sent).hasValue(2);
        NodeCodec.OffsetBody stored = NodeCodec.offset("test", raw.getData().forPath(offsetPath(g, p0)));
        assertThat(stored.committedBy()).as("the reset landed").hasValue("admin:reset");
        assertThat(stored.offset()).hasValue(42);
    }

    /** An owner's commit of {@code offset} at {@code at}, keeping the history, its sample {@code (offset, at)}. */
    private static void ownerCommitsAt(String group, TopicPartition tp, long offset, Instant at) {
        try {
            NodeCodec.OffsetBody b = NodeCodec.offset("test", raw.getData().forPath(offsetPath(group, tp)));
            raw.setData()
                    .forPath(
                            offsetPath(group, tp),
                            NodeCodec.offset(new NodeCodec.OffsetBody(
                                    OptionalLong.of(offset),
                                    "",
                                    java.util.Optional.of("m-1"),
                                    b.generation(),
                                    java.util.Optional.of(at),
                                    NodeCodec.append(
                                            b.history(),
                                            new io.groupkeeper.status.CommitSample(
                                                    offset, OptionalLong.empty(), at)))));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aResetWhoseReplyIsLostAndWhoseNodesMovedOnWithoutATraceIsReportedUnknown() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        try (GroupAdmin a = admin(sentThenLost(() -> {
                    commitBehindTheAdminsBack(g, p0, 500);
                    commitBehindTheAdminsBack(g, p1, 600);
                }))
                .build()) {
            assertThatThrownBy(() -> a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(100)))
                    .isInstanceOf(OutcomeUnknownException.class)
                    .hasMessageStartingWith("reset of group " + g + ": ZooKeeper CONNECTIONLOSS after the transaction "
                            + "was sent, and the offset nodes do not tell whether it was applied");
        }
        assertThat(stored(g, p0)).as("not planned again").hasValue(500);
    }

    @Test
    void deletesWhoseReplyIsLostAreJudgedFromTheNodes() throws Exception {
        String g = newGroup();
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        try (GroupAdmin a = admin(LOST_BEFORE_SENT).build()) {
            assertThatThrownBy(() -> a.deleteOffsets(g, "t", false))
                    .isInstanceOf(AdminException.class)
                    .hasMessage("delete offsets of topic t in group " + g
                            + " failed: ZooKeeper CONNECTIONLOSS; nothing " + "was written");
        }
        assertThat(stored(g, new TopicPartition("t", 0))).hasValue(10);
        try (GroupAdmin a = admin(sentThenLost(() -> {})).build()) {
            assertThat(a.deleteOffsets(g, "t", false).offsetsDeleted())
                    .as("applied; only the reply was lost")
                    .hasSize(2);
            assertThat(stored(g, new TopicPartition("t", 0))).isEmpty();
            assertThat(a.deleteGroup(g, false).what()).isEqualTo("group");
        }
        assertThat(raw.checkExists().forPath(ZkLayout.group(g))).isNull();
    }

    @Test
    void aCommitBetweenPlanAndWriteMakesTheResetPlanAgainFromTheNewOffsets() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        AtomicInteger calls = new AtomicInteger();
        try (GroupAdmin a = beforeWrite(() -> {
                    if (calls.incrementAndGet() == 1) {
                        commitBehindTheAdminsBack(g, p0, 77);
                    }
                })
                .build()) {
            ResetPlan plan = a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(5));
            assertThat(plan.executed()).isTrue();
            assertThat(plan.attempts()).isEqualTo(2);
            assertThat(plan.entries().get(0).current()).hasValue(77);
            assertThat(plan.entries().get(0).target()).hasValue(82);
        }
        assertThat(stored(g, p0)).as("shifted once, from the committed offset").hasValue(82);
        assertThat(stored(g, new TopicPartition("t", 1))).hasValue(25);
    }

    /**
     * Found by the simulator's reset checker (SimResets): a shift of every partition skips one whose node holds no
     * offset yet; if that partition's first commit landed between the plan and the write, the reset landed without
     * it, unshifted. The skipped partition's node is now checked in the same transaction: the plan is made again.
     */
    @Test
    void aPartitionASkippedShiftGainsAnOffsetBeforeTheWriteMakesThePlanAgain() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("t", 10, 20));
        }
        // The node kept with no offset, as a first claim or an offsets delete leaves it.
        raw.setData().forPath(offsetPath(g, p1), AdminNodes.encode(AdminNodes.Offset.none()));
        AtomicInteger calls = new AtomicInteger();
        try (GroupAdmin a = beforeWrite(() -> {
                    if (calls.incrementAndGet() == 1) {
                        commitBehindTheAdminsBack(
                                g, p1, 50); // the first commit, between the plan (p1 skipped) and the write
                    }
                })
                .build()) {
            ResetPlan plan = a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(5));
            assertThat(plan.attempts()).isEqualTo(2);
        }
        assertThat(stored(g, p0)).as("shifted once").hasValue(15);
        assertThat(stored(g, p1)).as("shifted too, from its first commit").hasValue(55);
    }

    @Test
    void anImportOfATopicNobodyKnowsIsRefused() {
        SortedMap<TopicPartition, Long> m = new TreeMap<>(Map.of(new TopicPartition("nowhere", 0), 1L));
        try (GroupAdmin a = admin().build()) {
            assertThatThrownBy(() -> a.planImport(
                            newGroup(),
                            new SourceOffsets("f.csv", m, Map.of(new TopicPartition("nowhere", 0), "line 1 of f.csv"))))
                    .isInstanceOf(AdminException.class)
                    .hasMessageStartingWith("unknown topic 'nowhere' (line 1 of f.csv): not in the topic registry");
        }
    }

    @Test
    void importCreatesTheGroupInOneTransactionAndAMemberStartsFromTheImportedOffsets() throws Exception {
        String g = newGroup();
        try (GroupAdmin a = admin().build()) {
            ResetPlan dry = a.planImport(g, offsets("imported", 5, 6, 7));
            assertThat(dry.createsGroup()).isTrue();
            assertThat(raw.checkExists().forPath(ZkLayout.group(g)))
                    .as("dry run writes nothing")
                    .isNull();
            ResetPlan done = a.executeImport(g, offsets("imported", 5, 6, 7));
            assertThat(done.executed()).isTrue();
        }
        for (String child : new String[] {"members", "leader", "owners", "offsets", "assignment", "owners/imported"}) {
            assertThat(raw.checkExists().forPath(ZkLayout.GROUPS + "/" + g + "/" + child))
                    .as(child)
                    .isNotNull();
        }
        Map<TopicPartition, OptionalLong> startedAt = new ConcurrentHashMap<>();
        try (GroupKeeper gk = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(server.getConnectString())
                        .build())
                .build()
                .start()) {
            GroupMember m = gk.member(g)
                    .topics("imported")
                    .listener(new RebalanceListener() {
                        @Override
                        public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                            startedAt.putAll(partitions);
                        }
                    })
                    .build();
            m.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> startedAt.size() == 3);
        }
        assertThat(startedAt.get(new TopicPartition("imported", 0))).hasValue(5);
        assertThat(startedAt.get(new TopicPartition("imported", 2))).hasValue(7);
    }

    @Test
    void targetsAreClampedIntoTheLogAndTheClampIsInThePlan() {
        String g = newGroup();
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("c", 10, 20, 30));
        }
        try (GroupAdmin a = admin().logBounds(new FixedBounds(15, 25, "c", 3)).build()) {
            ResetPlan plan = a.planReset(g, PartitionSelection.allTopics(), new ResetSpec.ToCurrent());
            assertThat(plan.entries()).extracting(e -> e.target().getAsLong()).containsExactly(15L, 20L, 25L);
            assertThat(plan.entries())
                    .extracting(ResetPlan.Entry::clamp)
                    .containsExactly(ResetPlan.Clamp.LOG_START, ResetPlan.Clamp.NONE, ResetPlan.Clamp.LOG_END);
            assertThat(plan.entries().get(0).note()).isEqualTo("clamped from 10 to log start 15");
            assertThat(plan.entries().get(2).note()).isEqualTo("clamped from 30 to log end 25");
            // An import writes exactly what it is given, and says when that is outside the log.
            ResetPlan imp = a.planImport(g, offsets("c", 10));
            assertThat(imp.entries().get(0).target()).hasValue(10);
            assertThat(imp.entries().get(0).note()).contains("outside the log [15, 25]");
        }
    }

    @Test
    void aCorruptOffsetNodeIsReportedSkippedByRelativeResetsAndRepairedByAbsoluteOnes() throws Exception {
        String g = newGroup();
        TopicPartition p0 = new TopicPartition("k", 0);
        try (GroupAdmin a = admin().build()) {
            a.executeImport(g, offsets("k", 10, 20));
            raw.setData().forPath(offsetPath(g, p0), "garbage".getBytes(StandardCharsets.UTF_8));
            assertThat(a.describe(g).problems())
                    .singleElement()
                    .asString()
                    .contains(offsetPath(g, p0))
                    .contains("garbage");
            ResetPlan shift = a.planReset(g, PartitionSelection.allTopics(), new ResetSpec.ShiftBy(1));
            assertThat(shift.entries().get(0).writes()).isFalse();
            assertThat(shift.entries().get(0).note()).contains("unreadable").contains("skipped");
            assertThatThrownBy(() -> a.exportOffsets(g))
                    .isInstanceOf(AdminException.class)
                    .hasMessageContaining("unreadable");
            a.executeReset(g, PartitionSelection.allTopics(), new ResetSpec.ToOffset(3));
        }
        assertThat(stored(g, p0)).hasValue(3);
    }

    @Test
    void aPlanThatDoesNotFitOneTransactionIsRefusedAndOneThatFitsIsWrittenWhole() throws Exception {
        String g = newGroup();
        try (ZooKeeperStore s = ZooKeeperStore.builder()
                .connectString(server.getConnectString())
                .build()) {
            s.start();
            s.topics().ensureTopic("huge", 6000);
            s.topics().ensureTopic("big", 3000);
            GroupStores.of(s, g).ensureGroup("sticky");
        }
        try (GroupAdmin a = admin().build()) {
            assertThatThrownBy(() -> a.planReset(
                            g, PartitionSelection.builder().topic("huge").build(), new ResetSpec.ToOffset(0)))
                    .isInstanceOf(AdminException.class)
                    .hasMessageContaining("6000 partitions")
                    .hasMessageContaining("more than the 900 KiB that fit one ZooKeeper transaction")
                    .hasMessageContaining("--topic");
            ResetPlan big =
                    a.executeReset(g, PartitionSelection.builder().topic("big").build(), new ResetSpec.ToOffset(9));
            assertThat(big.writes()).hasSize(3000);
            SourceOffsets exported = a.exportOffsets(g);
            assertThat(exported.offsets())
                    .hasSize(3000)
                    .allSatisfy((tp, o) -> assertThat(o).isEqualTo(9L));
        }
        assertThat(raw.checkExists().forPath(ZkLayout.GROUPS + "/" + g + "/offsets/huge"))
                .as("nothing written")
                .isNull();
    }
}

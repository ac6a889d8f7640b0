package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** I1 (exclusive ownership, old owner releases first) and I5 (only moved partitions pause), on real ZooKeeper. */
class HandoffIT extends ZkTestSupport {

    @Test
    void scaleOutRevokesOnlyWhatMovesAndUnmovedPartitionsStayOwnedThroughout() throws Exception {
        String group = newGroup();
        topic("steady", 12);
        OwnershipRecorder rec = new OwnershipRecorder();
        GroupKeeper gk = newKeeper();
        GroupMember a =
                gk.member(group).topics("steady").listener(rec.listenerFor("a")).build();
        GroupMember b =
                gk.member(group).topics("steady").listener(rec.listenerFor("b")).build();
        GroupMember c =
                gk.member(group).topics("steady").listener(rec.listenerFor("c")).build();
        a.start();
        b.start();
        c.start();
        awaitBalanced(Map.of("steady", 12), a, b, c);
        rec.awaitTold("a", a);
        rec.awaitTold("b", b);
        rec.awaitTold("c", c);
        Map<String, SortedSet<TopicPartition>> before =
                Map.of("a", a.assignment(), "b", b.assignment(), "c", c.assignment());
        int eventsBefore = rec.events("a").size()
                + rec.events("b").size()
                + rec.events("c").size();

        GroupMember d = newKeeper()
                .member(group)
                .topics("steady")
                .listener(rec.listenerFor("d"))
                .build();
        d.start();
        awaitBalanced(Map.of("steady", 12), a, b, c, d);

        // Exactly 3 partitions moved, all to the newcomer; each old member gave up one and was told only of that one.
        assertThat(d.assignment()).hasSize(3);
        for (Map.Entry<String, GroupMember> e : Map.of("a", a, "b", b, "c", c).entrySet()) {
            SortedSet<TopicPartition> kept = e.getValue().assignment();
            SortedSet<TopicPartition> gaveUp = new TreeSet<>(before.get(e.getKey()));
            gaveUp.removeAll(kept);
            assertThat(before.get(e.getKey())).containsAll(kept);
            assertThat(gaveUp).hasSize(1);
            assertThat(d.assignment()).containsAll(gaveUp);
            assertThat(rec.events(e.getKey())).contains("revoked " + gaveUp);
            assertThat(rec.events(e.getKey()).stream().filter(s -> s.startsWith("lost")))
                    .isEmpty();
        }
        // Per member: one assignment at start, one revocation of the moved partition; nothing else touched.
        int eventsAfter = rec.events("a").size()
                + rec.events("b").size()
                + rec.events("c").size();
        assertThat(eventsAfter - eventsBefore).isEqualTo(3);
        assertThat(rec.overlaps()).isEmpty();
    }

    @Test
    void newOwnerStartsOnlyAfterTheOldOwnerCommittedAndReleased() throws Exception {
        String group = newGroup();
        topic("handoff", 2);
        AtomicReference<GroupMember> oldRef = new AtomicReference<>();
        Map<TopicPartition, Long> finalCommits = new ConcurrentHashMap<>();
        Map<TopicPartition, OptionalLong> newOwnerStartedAt = new ConcurrentHashMap<>();
        GroupKeeper gk = newKeeper();
        GroupMember old = gk.member(group)
                .topics("handoff")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        // Final commit on revocation: no work is lost on handoff (Storm's KafkaSpout committed every 30
                        // s,
                        // so stopping lost up to 30 s of progress).
                        for (TopicPartition tp : partitions) {
                            long offset = 500 + tp.partition();
                            assertThat(oldRef.get().commit(Map.of(tp, offset)).status(tp))
                                    .isEqualTo(Status.COMMITTED);
                            finalCommits.put(tp, offset);
                        }
                    }
                })
                .build();
        oldRef.set(old);
        old.start();
        awaitBalanced(Map.of("handoff", 2), old);

        GroupMember heir = startHeir(group, "handoff", newOwnerStartedAt);
        awaitBalanced(Map.of("handoff", 2), old, heir);
        TopicPartition moved = heir.assignment().first();
        assertThat(toldAt(newOwnerStartedAt, moved)).hasValue(finalCommits.get(moved));
    }
    /**
     * The old owner hands its final offset over in the revocation callback: written with the release in one
     * transaction of its store (a commit and a release before), and the heir starts from it.
     */
    @Test
    void aFinalOffsetHandedOverOnRevocationIsWrittenWithTheReleaseInOneTransaction() throws Exception {
        String group = newGroup();
        topic("folded", 2);
        topic("elsewhere", 1);
        // The leader subscribes to another topic: its publishes are not counted against the old owner's store.
        GroupMember leader = newKeeper().member(group).topics("elsewhere").build();
        leader.start();
        awaitBalanced(Map.of("elsewhere", 1), leader);
        AtomicReference<GroupMember> oldRef = new AtomicReference<>();
        Map<TopicPartition, SortedSet<TopicPartition>> taken = new ConcurrentHashMap<>();
        GroupKeeper oldKeeper = newKeeper();
        GroupMember old = oldKeeper
                .member(group)
                .topics("folded")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        for (TopicPartition tp : partitions) {
                            taken.put(
                                    tp,
                                    oldRef.get().commitOnRelease(Map.of(tp, 700L + tp.partition()), Map.of(tp, 900L)));
                        }
                    }
                })
                .build();
        oldRef.set(old);
        old.start();
        awaitBalanced(Map.of("folded", 2, "elsewhere", 1), leader, old);
        assertThat(old.commitOnRelease(Map.of(new TopicPartition("folded", 0), 5L), Map.of()))
                .as("refused outside a revocation")
                .isEmpty();
        assertThat(old.committed(new TopicPartition("folded", 0))).isEmpty();

        Map<TopicPartition, OptionalLong> heirStartedAt = new ConcurrentHashMap<>();
        ZooKeeperStore stats = storeOf(oldKeeper);
        StoreStats before = stats.stats();
        GroupMember heir = startHeir(group, "folded", heirStartedAt);
        awaitBalanced(Map.of("folded", 2, "elsewhere", 1), leader, old, heir);
        TopicPartition moved = heir.assignment().first();
        assertThat(taken.get(moved)).containsExactly(moved);
        assertThat(toldAt(heirStartedAt, moved)).hasValue(700L + moved.partition());
        assertThat(stats.stats().minus(before).transactions())
                .as("commit and release in one")
                .isEqualTo(1);
        assertThat(new String(admin.getData()
                        .forPath(ZkLayout.GROUPS + "/" + group + "/offsets/folded/" + moved.partition())))
                .contains("900"); // the log end went with it, for lag status
    }

    /** An edit of the stored offset during the revocation wins over the handed-over offset; the handoff goes on. */
    @Test
    void anEditDuringTheRevocationWinsOverTheHandedOverFinalOffset() throws Exception {
        String group = newGroup();
        topic("edited", 2);
        AtomicReference<GroupMember> oldRef = new AtomicReference<>();
        GroupMember old = newKeeper()
                .member(group)
                .topics("edited")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        for (TopicPartition tp : partitions) {
                            oldRef.get().commitOnRelease(Map.of(tp, 800L), Map.of());
                            touch(ZkLayout.GROUPS + "/" + group + "/offsets/edited/"
                                    + tp.partition()); // at this very moment
                        }
                    }
                })
                .build();
        oldRef.set(old);
        old.start();
        awaitBalanced(Map.of("edited", 2), old);
        for (TopicPartition tp : old.assignment()) {
            assertThat(old.commit(Map.of(tp, 40L)).status(tp)).isEqualTo(Status.COMMITTED);
        }

        Map<TopicPartition, OptionalLong> heirStartedAt = new ConcurrentHashMap<>();
        GroupMember heir = startHeir(group, "edited", heirStartedAt);
        awaitBalanced(Map.of("edited", 2), old, heir);
        TopicPartition moved = heir.assignment().first();
        assertThat(toldAt(heirStartedAt, moved)).hasValue(40L);
        assertThat(ownersInZk(group)).containsEntry(moved, heir.memberId());
    }

    /** A leave hands over two partitions; one was edited meanwhile: only that one loses its final offset. */
    @Test
    void anEditOfOnePartitionDoesNotCostTheOthersTheirFinalOffsets() throws Exception {
        String group = newGroup();
        topic("pair", 2);
        TopicPartition edited = new TopicPartition("pair", 0);
        TopicPartition untouched = new TopicPartition("pair", 1);
        AtomicReference<GroupMember> leaverRef = new AtomicReference<>();
        GroupMember leaver = newKeeper()
                .member(group)
                .topics("pair")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        Map<TopicPartition, Long> finals = new java.util.HashMap<>();
                        partitions.forEach(tp -> finals.put(tp, 900L + tp.partition()));
                        assertThat(leaverRef.get().commitOnRelease(finals, Map.of()))
                                .containsExactlyElementsOf(partitions);
                        touch(ZkLayout.GROUPS + "/" + group + "/offsets/pair/0");
                    }
                })
                .build();
        leaverRef.set(leaver);
        leaver.start();
        awaitBalanced(Map.of("pair", 2), leaver);
        assertThat(leaver.commit(Map.of(edited, 40L, untouched, 41L)).statuses())
                .containsValues(Status.COMMITTED)
                .doesNotContainValue(Status.NOT_OWNED);

        leaver.close();
        assertThat(ownersInZk(group)).isEmpty();
        assertThat(leaver.committed(edited)).hasValue(40L);
        assertThat(leaver.committed(untouched)).hasValue(901L);
    }

    /**
     * The start offset the heir's {@code onPartitionsAssigned} was told for {@code tp}, once it was told:
     * {@code assignment()} shows a partition while that call is still running.
     */
    private static OptionalLong toldAt(Map<TopicPartition, OptionalLong> startedAt, TopicPartition tp) {
        await().atMost(Duration.ofSeconds(30)).until(() -> startedAt.containsKey(tp));
        return startedAt.get(tp);
    }

    /** An operator rewrites a stored offset (same body, new version), as an edit would. */
    private static void touch(String path) {
        try {
            Stat stat = new Stat();
            byte[] body = admin.getData().storingStatIn(stat).forPath(path);
            admin.setData().withVersion(stat.getVersion()).forPath(path, body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts a new member of {@code group} on its own keeper that records the offsets it is assigned with. */
    private GroupMember startHeir(String group, String topic, Map<TopicPartition, OptionalLong> startedAt) {
        GroupMember heir = newKeeper()
                .member(group)
                .topics(topic)
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        startedAt.putAll(partitions);
                    }
                })
                .build();
        heir.start();
        return heir;
    }
}

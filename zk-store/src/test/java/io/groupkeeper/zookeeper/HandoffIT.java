package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** I1 (exclusive ownership, old owner releases first) and I5 (only moved partitions pause), on real ZooKeeper. */
class HandoffIT extends ZkTestSupport {

    @Test
    void scaleOutRevokesOnlyWhatMovesAndUnmovedPartitionsStayOwnedThroughout() throws Exception {
        String group = newGroup();
        topic("steady", 12);
        OwnershipRecorder rec = new OwnershipRecorder();
        GroupKeeper gk = newKeeper();
        GroupMember a = gk.member(group).topics("steady").listener(rec.listenerFor("a")).build();
        GroupMember b = gk.member(group).topics("steady").listener(rec.listenerFor("b")).build();
        GroupMember c = gk.member(group).topics("steady").listener(rec.listenerFor("c")).build();
        a.start();
        b.start();
        c.start();
        awaitBalanced(Map.of("steady", 12), a, b, c);
        Map<String, SortedSet<TopicPartition>> before = Map.of("a", a.assignment(), "b", b.assignment(), "c", c.assignment());
        int eventsBefore = rec.events("a").size() + rec.events("b").size() + rec.events("c").size();

        GroupMember d = newKeeper().member(group).topics("steady").listener(rec.listenerFor("d")).build();
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
            assertThat(rec.events(e.getKey()).stream().filter(s -> s.startsWith("lost"))).isEmpty();
        }
        // Per member: one assignment at start, one revocation of the moved partition; nothing else touched.
        int eventsAfter = rec.events("a").size() + rec.events("b").size() + rec.events("c").size();
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
        GroupMember old = gk.member(group).topics("handoff").listener(new RebalanceListener() {
            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                // Final commit on revocation (pain point 2: no work lost on handoff).
                for (TopicPartition tp : partitions) {
                    long offset = 500 + tp.partition();
                    assertThat(oldRef.get().commit(Map.of(tp, offset)).status(tp)).isEqualTo(Status.COMMITTED);
                    finalCommits.put(tp, offset);
                }
            }
        }).build();
        oldRef.set(old);
        old.start();
        awaitBalanced(Map.of("handoff", 2), old);

        GroupMember heir = newKeeper().member(group).topics("handoff").listener(new RebalanceListener() {
            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                newOwnerStartedAt.putAll(partitions);
            }
        }).build();
        heir.start();
        awaitBalanced(Map.of("handoff", 2), old, heir);
        TopicPartition moved = heir.assignment().first();
        assertThat(newOwnerStartedAt.get(moved)).hasValue(finalCommits.get(moved));
    }
}

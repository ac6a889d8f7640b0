package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.RawZk;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.ConnectionEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A revocation whose release the connection's doubt cuts short, on a real server: user code hands a final offset over
 * for the partition that moves, and before the release the member hears "suspended" (it stops everything, the
 * partition keeps its final offset). The partition's new owner leaves meanwhile and the leader gives it back. When the
 * connection returns in the same session the member wants the partition again: it must write the final offset before
 * it tells user code where to start, or user code starts from the stored offset (none here: at the log end, skipping
 * what came after the final offset).
 */
class RevocationCutShortIT extends ZkTestSupport {

    @Test
    void aFinalOffsetHandedOverBeforeTheConnectionWentInDoubtIsWhereThePartitionStartsWhenItComesBack()
            throws Exception {
        String group = newGroup();
        topic("cut", 2);
        InterposedStore blipping = InterposedStore.hearing(newStore());
        GroupKeeper gkA = GroupKeeper.builder().store(blipping).build().start();
        toClose.add(gkA);
        AtomicReference<GroupMember> self = new AtomicReference<>();
        AtomicReference<SortedSet<TopicPartition>> taken = new AtomicReference<>();
        List<SortedMap<TopicPartition, OptionalLong>> assigned = new CopyOnWriteArrayList<>();
        GroupMember a = gkA.member(group)
                .topics("cut")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        assigned.add(partitions);
                    }

                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        java.util.Map<TopicPartition, Long> finals = new java.util.TreeMap<>();
                        partitions.forEach(tp -> finals.put(tp, 42L));
                        SortedSet<TopicPartition> handedOver = self.get().commitOnRelease(finals, Map.of());
                        blipping.fire(ConnectionEvent.SUSPENDED); // before the release that follows the callback
                        taken.set(handedOver);
                    }
                })
                .build();
        self.set(a);
        a.start();
        awaitBalanced(Map.of("cut", 2), a);
        await().atMost(Duration.ofSeconds(10)).until(a::isLeader);

        // b joins: the leader (a, whose real connection stays fine) moves one partition to b, and a's revocation of it
        // hands 42 over, then hears "suspended". b waits for the partition, still held by a's session, and leaves.
        GroupMember b = newKeeper().member(group).topics("cut").build();
        b.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> taken.get() != null);
        assertThat(taken.get()).as("the final offset was taken").hasSize(1);
        TopicPartition moved = taken.get().first();
        assertThat(a.assignment()).as("a suspended member owns nothing").isEmpty();
        b.close();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> new String(
                                admin.getData().forPath(ZkLayout.assignment(group, a.memberId())),
                                StandardCharsets.UTF_8)
                        .contains("[0,1]"));
        assertThat(ownersInZk(group)).as("still a's, stopped").containsEntry(moved, a.memberId());
        int before = assigned.size();

        blipping.fire(ConnectionEvent.RECONNECTED);

        awaitBalanced(Map.of("cut", 2), a);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> assigned.subList(before, assigned.size()).stream().anyMatch(p -> p.containsKey(moved)));
        OptionalLong startsAt = assigned.subList(before, assigned.size()).stream()
                .filter(p -> p.containsKey(moved))
                .findFirst()
                .orElseThrow()
                .get(moved);
        assertThat(startsAt).as("user code starts where it handed over").hasValue(42L);
        assertThat(RawZk.readOffset(admin, ZkLayout.offset(group, moved))).hasValue(42L);
    }
}

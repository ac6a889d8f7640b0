package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 46 item 2 on real ZooKeeper: a member's done values travel in the same fenced write as its offsets (one
 * transaction per commit, as without them), and a graceful handover gives them to the next owner beside the offset it
 * resumes from.
 */
class DoneValueIT extends ZkTestSupport {

    private static String done(long from) {
        return "{\"from\":" + from + ",\"ranges\":[[" + (from + 2) + "," + (from + 4) + "]]}";
    }

    @Test
    void aCommitWithDoneValuesIsOneTransactionAsOneWithoutThem() {
        String group = newGroup();
        GroupKeeper gk = newKeeper();
        GroupMember m = startedAlone(gk, group, "done-cost", 3);
        ZooKeeperStore store = storeOf(gk);
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> done = new TreeMap<>();
        for (TopicPartition tp : m.assignment()) {
            offsets.put(tp, 10L);
            done.put(tp, done(10));
        }
        assertThat(m.commit(offsets, Map.of()).allCommitted()).isTrue(); // the nodes exist: both commits set them
        awaitQuiet(store);

        StoreStats before = store.stats();
        offsets.replaceAll((tp, o) -> 20L);
        CommitResult withDone = m.commit(offsets, Map.of(), Map.of(), done);
        StoreStats withDoneCost = store.stats().minus(before);
        before = store.stats();
        offsets.replaceAll((tp, o) -> 30L);
        CommitResult without = m.commit(offsets, Map.of());
        StoreStats withoutCost = store.stats().minus(before);

        assertThat(withDone.allCommitted()).isTrue();
        assertThat(without.allCommitted()).isTrue();
        assertThat(withDoneCost.transactions())
                .as("one transaction for three partitions")
                .isEqualTo(1);
        assertThat(withDoneCost.transactions()).isEqualTo(withoutCost.transactions());
        assertThat(withDoneCost.writes()).isEqualTo(withoutCost.writes());
        assertThat(m.done(offsets.keySet().iterator().next()))
                .as("the last commit had none")
                .isEmpty();
    }

    @Test
    void aGracefulHandoverGivesTheNextOwnerTheDoneValueBesideTheOffsetItResumesFrom() {
        String group = newGroup();
        String topic = "done-handover";
        topic(topic, 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        AtomicReference<GroupMember> first = new AtomicReference<>();
        GroupMember a = newKeeper()
                .member(group)
                .topics(topic)
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        Map<TopicPartition, Long> offsets = new TreeMap<>();
                        Map<TopicPartition, String> done = new TreeMap<>();
                        partitions.forEach(tp -> {
                            offsets.put(tp, 40L + tp.partition());
                            done.put(tp, done(40 + tp.partition()));
                        });
                        first.get().commitOnRelease(offsets, Map.of(), done);
                    }
                })
                .build();
        first.set(a);
        a.start();
        awaitBalanced(Map.of(topic, 2), a);

        Map<TopicPartition, Optional<String>> seen = new ConcurrentHashMap<>();
        Map<TopicPartition, OptionalLong> resumed = new ConcurrentHashMap<>();
        AtomicReference<GroupMember> second = new AtomicReference<>();
        GroupMember b = newKeeper()
                .member(group)
                .topics(topic)
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        partitions.forEach((tp, offset) -> {
                            resumed.put(tp, offset);
                            seen.put(tp, second.get().done(tp)); // beside the offset it is told
                        });
                    }
                })
                .build();
        second.set(b);
        b.start();
        awaitBalanced(Map.of(topic, 2), a, b);
        await().atMost(Duration.ofSeconds(10)).until(() -> !seen.isEmpty());

        TopicPartition moved = b.assignment().first();
        assertThat(a.assignment()).containsExactly(moved.equals(p0) ? p1 : p0);
        assertThat(resumed).containsExactly(Map.entry(moved, OptionalLong.of(40 + moved.partition())));
        assertThat(seen).containsExactly(Map.entry(moved, Optional.of(done(40 + moved.partition()))));
        assertThat(b.done(moved)).hasValue(done(40 + moved.partition()));
    }
}

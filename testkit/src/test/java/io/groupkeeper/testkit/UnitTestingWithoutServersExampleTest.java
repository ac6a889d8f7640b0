package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a service's own test looks like with the testkit: its members and listener run against an in-memory ZooKeeper,
 * no server needed (docs/testing.md, "Unit-testing without servers").
 */
class UnitTestingWithoutServersExampleTest {

    private final InMemoryZooKeeper zooKeeper = new InMemoryZooKeeper();
    private GroupKeeper first;
    private GroupKeeper second;

    /** The service's listener under test: remembers where each partition starts. */
    static final class StartPositions implements RebalanceListener {
        final Map<TopicPartition, OptionalLong> startAt = new ConcurrentHashMap<>();

        @Override
        public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
            startAt.putAll(partitions);
        }
    }

    private static GroupKeeper keeper(InMemoryZooKeeper zk) {
        return GroupKeeper.builder()
                .store(new InMemoryCoordinationStore(zk))
                .build()
                .start();
    }

    @AfterEach
    void close() {
        for (GroupKeeper k : new GroupKeeper[] {first, second}) {
            if (k != null) {
                k.close();
            }
        }
    }

    @Test
    void twoMembersSplitATopicAndARestartResumesAtTheCommittedOffset() {
        first = keeper(zooKeeper);
        second = keeper(zooKeeper);
        first.topics().ensureTopic("orders", 4);
        StartPositions listener = new StartPositions();
        GroupMember a =
                first.member("billing").topics("orders").listener(listener).build();
        GroupMember b = second.member("billing").topics("orders").build();
        a.start();
        b.start();
        await().untilAsserted(() -> {
            assertThat(a.assignment()).hasSize(2);
            assertThat(b.assignment()).hasSize(2);
            assertThat(a.assignment()).doesNotContainAnyElementsOf(b.assignment());
        });

        TopicPartition tp = a.assignment().first();
        assertThat(a.commit(Map.of(tp, 42L)).status(tp)).isEqualTo(CommitResult.Status.COMMITTED);
        // assignment() shows a partition while its onPartitionsAssigned call is still running: wait for the listener.
        await().until(() -> listener.startAt.containsKey(tp));
        assertThat(listener.startAt.get(tp)).isEmpty(); // nothing was committed before

        // Restart the whole service: a new process (store, session, member) on the same ensemble.
        first.close();
        second.close();
        first = keeper(zooKeeper);
        StartPositions restarted = new StartPositions();
        GroupMember again =
                first.member("billing").topics("orders").listener(restarted).build();
        again.start();
        await().until(() -> again.assignment().size() == 4 && restarted.startAt.size() == 4);
        assertThat(restarted.startAt.get(tp)).hasValue(42L);
        assertThat(again.committed(tp)).hasValue(42L);
    }
}

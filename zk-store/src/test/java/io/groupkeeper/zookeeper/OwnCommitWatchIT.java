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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An owner is not woken by its own commits (issue 19): its offset-node watches tell its commits from anyone else's
 * writes by their transaction ids, so a commit costs its one transaction and no read, while an operator's edit still
 * reaches the owner at once (I3). Before, each commit fired the watch of every committed partition and the owner read
 * each node again: 4 of the 5 requests per second an idle member of the side-by-side sent.
 */
class OwnCommitWatchIT extends ZkTestSupport {

    private static final int PARTITIONS = 4;
    private static final int COMMITS = 20;

    @Test
    void anOwnersCommitsCostNoReadsWhileAHandEditStillReachesIt() throws Exception {
        String group = newGroup();
        String topic = "own-commits-" + System.nanoTime() % 10_000;
        topic(topic, PARTITIONS);
        GroupKeeper gk = newKeeper();
        List<SortedSet<TopicPartition>> changed = new CopyOnWriteArrayList<>();
        GroupMember m = gk.member(group)
                .topics(topic)
                .listener(new RebalanceListener() {
                    @Override
                    public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
                        changed.add(partitions);
                    }
                })
                .build();
        m.start();
        awaitBalanced(Map.of(topic, PARTITIONS), m);
        ZooKeeperStore store = storeOf(gk);
        awaitQuiet(store); // the watches are armed behind the claims
        StoreStats before = store.stats();

        for (long offset = 1; offset <= COMMITS; offset++) {
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                offsets.put(new TopicPartition(topic, p), offset);
            }
            CommitResult result = m.commit(offsets);
            assertThat(result.allCommitted())
                    .as("commit %d: %s", offset, result.statuses())
                    .isTrue();
        }
        // zkCli: set .../offsets/<topic>/2 5. ZooKeeper delivers one session's events in order, so once the owner has
        // heard of this edit it has heard of every commit before it.
        admin.setData()
                .forPath(
                        ZkLayout.GROUPS + "/" + group + "/offsets/" + topic + "/2",
                        "5".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(10)).until(() -> !changed.isEmpty());
        StoreStats cost = store.stats().minus(before);

        assertThat(changed)
                .as("only the edited partition, once")
                .containsExactly(new TreeSet<>(Set.of(new TopicPartition(topic, 2))));
        assertThat(cost.transactions()).as("one transaction per commit").isEqualTo(COMMITS);
        // One look at the edited node: its read and the partition's fence node's, sent together (one round trip).
        assertThat(cost.reads())
                .as(
                        "reads: the owner's one look at the edited node, none for its own %d commits of %d"
                                + " partitions",
                        COMMITS, PARTITIONS)
                .isEqualTo(2);
    }
}

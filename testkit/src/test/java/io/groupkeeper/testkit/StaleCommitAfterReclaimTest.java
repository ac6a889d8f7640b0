package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Found by the simulator (seed 3424 of its first 100,000-schedule run): a member loses a partition to a connection
 * blip, claims it again on reconnection (reading the offset an operator wrote meanwhile), and its user code — which has
 * not yet heard of the loss or the new claim — commits the position it had. That commit must be refused until user
 * code has been told of the new claim, or it would write a stale position over the operator's.
 */
class StaleCommitAfterReclaimTest {

    private final InMemoryZooKeeper zk = new InMemoryZooKeeper();
    private GroupKeeper keeper;

    @AfterEach
    void close() {
        if (keeper != null) {
            keeper.close();
        }
    }

    @Test
    void aPositionFromBeforeALossIsNotCommittedOverTheNewClaimsOffset() throws Exception {
        InMemoryCoordinationStore store = new InMemoryCoordinationStore(zk);
        keeper = GroupKeeper.builder().store(store).build().start();
        keeper.topics().ensureTopic("t", 1);
        TopicPartition tp = new TopicPartition("t", 0);
        CountDownLatch lossHeard = new CountDownLatch(1);
        CountDownLatch releaseCallbacks = new CountDownLatch(1);
        AtomicReference<OptionalLong> reassignedAt = new AtomicReference<>();
        GroupMember m = keeper.member("g")
                .topics("t")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
                        lossHeard.countDown();
                        await().atMost(10, TimeUnit.SECONDS)
                                .until(() -> releaseCallbacks.getCount() == 0); // user code busy
                    }

                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        if (lossHeard.getCount() == 0) {
                            reassignedAt.set(partitions.get(tp));
                        }
                    }
                })
                .build();
        m.start();
        await().until(() -> m.assignment().contains(tp));
        assertThat(m.commit(Map.of(tp, 100L)).status(tp)).isEqualTo(CommitResult.Status.COMMITTED);

        store.disconnect(); // a blip: the session survives
        await().until(() -> lossHeard.getCount() == 0);
        zk.setOffset(ZkLayout.GROUPS + "/g/offsets/t/0", 500); // an operator's reset, meanwhile
        store.reconnect();
        // The member claims the partition again (its owner node is still there) while its callbacks are held up.
        await().until(() ->
                zk.stat(ZkLayout.GROUPS + "/g/offsets/t/0").orElseThrow().version() > 2
                        && m.fencingToken(tp).isEmpty()
                        && zk.exists(ZkLayout.GROUPS + "/g/owners/t/0"));
        CommitResult stale = m.commit(Map.of(tp, 283L)); // the processing thread, still on the old claim
        assertThat(stale.status(tp)).isEqualTo(CommitResult.Status.NOT_OWNED);
        assertThat(m.committed(tp)).hasValue(500L);

        releaseCallbacks.countDown();
        await().until(() -> reassignedAt.get() != null);
        assertThat(reassignedAt.get()).hasValue(500L);
        assertThat(m.assignment()).containsExactly(tp);
        assertThat(m.commit(Map.of(tp, 501L)).status(tp)).isEqualTo(CommitResult.Status.COMMITTED);
    }
}

package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.internal.GroupStores;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * I7: a member that loses its connection stops processing (partitions reported lost, no commit) before its session
 * can expire, and rejoins when ZooKeeper is back. This class stops and restarts its own server.
 */
class SessionLossIT extends ZkTestSupport {

    @Test
    void whileDisconnectedStoreOperationsFailAtOnceInsteadOfWaitingForAConnection() throws Exception {
        String group = newGroup();
        GroupKeeper gk = newKeeper();
        GroupMember m = startedAlone(gk, group, "fast", 1);
        List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
        gk.store().addConnectionListener(events::add);

        server.stop();
        try {
            await().atMost(SESSION_TIMEOUT).until(() -> events.contains(ConnectionEvent.SUSPENDED));
            // A read and a write started now would otherwise wait in Curator up to the connection timeout (10 s).
            io.groupkeeper.spi.internal.GroupStore store = GroupStores.of(gk.store(), group);
            TopicPartition tp = new TopicPartition("fast", 0);
            long t0 = System.nanoTime();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.readOffset(tp, null))
                    .isInstanceOf(io.groupkeeper.spi.StoreException.class)
                    .hasMessageContaining("not connected");
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> store.release(tp, m.memberId(), 0, gk.store().sessionId()))
                    .isInstanceOf(io.groupkeeper.spi.StoreException.class)
                    .hasMessageContaining("not connected");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
        } finally {
            server.restart();
        }
        awaitBalanced(Map.of("fast", 1), m);
    }

    @Test
    void partitionsAreLostBeforeTheSessionCanExpireAndTheMemberRejoins() throws Exception {
        String group = newGroup();
        topic("flaky", 4);
        OwnershipRecorder rec = new OwnershipRecorder();
        AtomicLong lostAt = new AtomicLong();
        GroupKeeper gk = newKeeper();
        GroupMember m = gk.member(group)
                .topics("flaky")
                .listener(rec.listenerFor("m", new RebalanceListener() {
                    @Override
                    public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
                        lostAt.compareAndSet(0, System.nanoTime());
                    }
                }))
                .build();
        m.start();
        awaitBalanced(Map.of("flaky", 4), m);

        // A processing thread keeps committing: when ZooKeeper goes away its commit blocks in the client's retries.
        // That must not delay the member's reaction to the lost connection.
        java.util.concurrent.atomic.AtomicBoolean committing = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread committer = new Thread(() -> {
            long next = 1;
            while (committing.get()) {
                try {
                    m.commit(Map.of(new TopicPartition("flaky", 0), next++));
                } catch (RuntimeException e) {
                    // ZooKeeper unreachable: expected while the server is down
                }
            }
        });
        committer.setDaemon(true);
        committer.start();
        await().until(() -> m.committed(new TopicPartition("flaky", 0)).orElse(0) > 3);

        long stoppedAt = System.nanoTime();
        server.stop();
        await().atMost(SESSION_TIMEOUT).until(() -> lostAt.get() != 0);
        committing.set(false);
        assertThat(Duration.ofNanos(lostAt.get() - stoppedAt)).isLessThan(SESSION_TIMEOUT);
        assertThat(m.assignment()).isEmpty();
        assertThat(m.commit(Map.of(new TopicPartition("flaky", 0), 1L)).status(new TopicPartition("flaky", 0)))
                .isEqualTo(io.groupkeeper.CommitResult.Status.NOT_OWNED);

        server.restart();
        awaitBalanced(Map.of("flaky", 4), m);
        rec.awaitTold("m", m);
        assertThat(rec.events("m"))
                .containsSubsequence(
                        "assigned [flaky:0, flaky:1, flaky:2, flaky:3]",
                        "lost [flaky:0, flaky:1, flaky:2, flaky:3]",
                        "assigned [flaky:0, flaky:1, flaky:2, flaky:3]");
    }

    @Test
    void afterTheSessionExpiredDuringAnOutageTheMemberReRegistersAndTheGroupConverges() throws Exception {
        String group = newGroup();
        topic("outage", 4);
        GroupKeeper gk1 = newKeeper();
        GroupKeeper gk2 = newKeeper();
        List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
        gk1.store().addConnectionListener(events::add);
        GroupMember a = gk1.member(group).topics("outage").build();
        GroupMember b = gk2.member(group).topics("outage").build();
        a.start();
        b.start();
        awaitBalanced(Map.of("outage", 4), a, b);

        server.stop();
        await().atMost(SESSION_TIMEOUT.multipliedBy(3)).until(() -> events.contains(ConnectionEvent.LOST));
        server.restart();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> events.contains(ConnectionEvent.RECONNECTED_NEW_SESSION)
                        || events.contains(ConnectionEvent.RECONNECTED));
        awaitBalanced(Map.of("outage", 4), a, b);
        assertThat(ownersInZk(group)).hasSize(4);
    }

    /**
     * A close while the connection is in doubt, which then comes back in the same session: the member's nodes would
     * still be its session's, so the close waits for the connection and then leaves as usual, and the next member gets
     * the partition.
     */
    @Test
    void aCloseWhileTheConnectionIsInDoubtLeavesOnceItIsBackInTheSameSession() throws Exception {
        String group = newGroup();
        GroupKeeper gk = newKeeper();
        GroupMember m = startedAlone(gk, group, "doubt", 1);
        long session = gk.store().sessionId();

        java.util.concurrent.CompletableFuture<Void> closing;
        server.stop();
        try {
            await().atMost(SESSION_TIMEOUT).until(() -> m.assignment().isEmpty()); // in doubt: everything stopped
            closing = java.util.concurrent.CompletableFuture.runAsync(m::close);
        } finally {
            server.restart();
        }
        closing.get(30, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(gk.store().sessionId()).as("a blip: the session survived").isEqualTo(session);
        assertThat(ownersInZk(group)).as("the owner node released").isEmpty();
        assertThat(admin.getChildren().forPath(io.groupkeeper.fixtures.ZkLayout.members(group)))
                .isEmpty();
        GroupMember next = newKeeper().member(group).topics("doubt").build();
        next.start();
        awaitBalanced(Map.of("doubt", 1), next);
    }
}

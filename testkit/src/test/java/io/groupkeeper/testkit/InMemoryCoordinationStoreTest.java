package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What only the in-memory store offers: clock-driven expiry, writes whose outcome is unknown, a direct executor. */
class InMemoryCoordinationStoreTest {

    private final ManualClock clock = new ManualClock();
    private final InMemoryZooKeeper zooKeeper = new InMemoryZooKeeper(clock);
    private final InMemoryCoordinationStore store = InMemoryCoordinationStore.builder(zooKeeper)
            .sessionTimeout(Duration.ofSeconds(6))
            .eventExecutor(Runnable::run)
            .build();
    private final List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
    private final TopicPartition tp = new TopicPartition("t", 0);

    @AfterEach
    void close() {
        store.close();
    }

    private GroupStore started() {
        store.addConnectionListener(events::add);
        store.start();
        GroupStore g = GroupStores.of(store, "g");
        g.ensureGroup("sticky");
        return g;
    }

    @Test
    void aDisconnectLongerThanTheSessionTimeoutOnTheClockEndsInANewSession() {
        GroupStore g = started();
        long first = store.sessionId();
        assertThat(g.claim(tp, "m1", 1, () -> {})).isInstanceOf(ClaimResult.Claimed.class);

        store.disconnect();
        clock.advance(Duration.ofSeconds(6));
        zooKeeper.expireDueSessions();
        assertThat(zooKeeper.isSessionAlive(first)).isFalse();
        assertThat(zooKeeper.exists(ZkLayout.GROUPS + "/g/owners/t/0"))
                .as("its ephemeral owner node went")
                .isFalse();
        store.reconnect();

        assertThat(events)
                .containsExactly(
                        ConnectionEvent.CONNECTED,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.LOST,
                        ConnectionEvent.RECONNECTED_NEW_SESSION);
        assertThat(store.sessionId()).isNotEqualTo(first);
        assertThat(store.isConnected()).isTrue();
    }

    @Test
    void aCommitWhoseAnswerIsLostLandedAndTheNextOneIsFencedByIt() {
        GroupStore g = started();
        ClaimResult.Claimed c = (ClaimResult.Claimed) g.claim(tp, "m1", 1, () -> {});
        long session = c.lease().session();

        store.failNextWrites(1, true);
        assertThatThrownBy(() -> g.commit(
                        "m1", 1, List.of(new CommitRequest(tp, 10, c.offset().version(), session))))
                .isInstanceOf(StoreException.class);
        assertThat(g.readOffset(tp, null).offset()).as("applied on the server").hasValue(10);
        assertThat(g.commit(
                                "m1",
                                1,
                                List.of(new CommitRequest(tp, 11, c.offset().version(), session)))
                        .conflicted())
                .containsExactly(tp);
    }

    @Test
    void aClaimWhoseAnswerIsLostIsReConfirmedByItsRetry() {
        GroupStore g = started();
        // Claimed and released once: the topic's folders and the partition's fence node exist, the next write is the
        // claim.
        ClaimResult.Claimed first = (ClaimResult.Claimed) g.claim(tp, "m1", 1, () -> {});
        assertThat(g.release(tp, "m1", first.offset().version(), first.lease().session()))
                .isTrue();
        long before = g.readOffset(tp, null).version();
        store.failNextWrites(1, true);
        ClaimResult r = g.claim(tp, "m1", 1, () -> {});

        assertThat(r).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(((ClaimResult.Claimed) r).offset().version())
                .as("the fence moved by the claim whose answer was lost, then again by the re-confirmation")
                .isEqualTo(before + (2L << 32));
        assertThat(g.readOwner(tp).orElseThrow().currentSession()).isTrue();
    }

    @Test
    void aCommitInDoubtWhoseSessionExpiresLandedAndItsClaimWentWithTheSession() {
        GroupStore g = started();
        long first = store.sessionId();
        ClaimResult.Claimed c = (ClaimResult.Claimed) g.claim(tp, "m1", 1, () -> {});

        store.failNextWritesAndExpire(1, true);
        assertThatThrownBy(() -> g.commit(
                        "m1", 1, List.of(new CommitRequest(tp, 10, c.offset().version(), first))))
                .isInstanceOf(StoreException.class);
        assertThat(store.isConnected()).as("down until the session expires").isFalse();
        assertThat(events).endsWith(ConnectionEvent.SUSPENDED);
        clock.advance(Duration.ofSeconds(6));
        zooKeeper.expireDueSessions();

        assertThat(g.readOffset(tp, null).offset())
                .as("applied on the server before the session ended")
                .hasValue(10);
        assertThat(zooKeeper.isSessionAlive(first)).isFalse();
        assertThat(zooKeeper.exists(ZkLayout.GROUPS + "/g/owners/t/0"))
                .as("the owner node went with the session")
                .isFalse();
        assertThat(store.sessionId()).isNotEqualTo(first);
        assertThat(events)
                .containsExactly(
                        ConnectionEvent.CONNECTED,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.LOST,
                        ConnectionEvent.RECONNECTED_NEW_SESSION);
    }

    @Test
    void aRegistrationLostWithItsSessionLeavesNothingAndOnlyTheFirstFailingWriteEndsTheSession() {
        GroupStore g = started();
        long first = store.sessionId();
        io.groupkeeper.spi.internal.MemberInfo m1 = new io.groupkeeper.spi.internal.MemberInfo(
                "m1",
                java.util.Optional.empty(),
                "h",
                new java.util.TreeSet<>(java.util.Set.of("t")),
                clock.instant(),
                "sticky");

        store.failNextWritesAndExpire(2, false);
        assertThatThrownBy(() -> g.registerMember(m1)).isInstanceOf(StoreException.class);
        assertThatThrownBy(() -> g.registerMember(m1))
                .as("not attempted while down")
                .isInstanceOf(StoreException.class);
        clock.advance(Duration.ofSeconds(5));
        zooKeeper.expireDueSessions();
        assertThat(store.sessionId()).as("not expired before its timeout").isEqualTo(first);
        clock.advance(Duration.ofSeconds(1));
        zooKeeper.expireDueSessions();
        long second = store.sessionId();
        assertThatThrownBy(() -> g.registerMember(m1)).isInstanceOf(StoreException.class);

        assertThat(g.isRegistered("m1")).isFalse();
        assertThat(second).isNotEqualTo(first);
        assertThat(store.sessionId())
                .as("a plain connection loss keeps the session")
                .isEqualTo(second);
        assertThat(events)
                .containsExactly(
                        ConnectionEvent.CONNECTED,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.LOST,
                        ConnectionEvent.RECONNECTED_NEW_SESSION,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.RECONNECTED);
    }

    @Test
    void aSilentCutReportsNothingUntilNoticedWhileTheSessionTimeoutRunsFromTheCut() {
        GroupStore g = started();
        long first = store.sessionId();
        assertThat(g.claim(tp, "m1", 1, () -> {})).isInstanceOf(ClaimResult.Claimed.class);

        store.cutSilently();
        assertThatThrownBy(() -> g.readOwner(tp))
                .as("requests do not get through")
                .isInstanceOf(StoreException.class);
        clock.advance(Duration.ofSeconds(4)); // two thirds of the session timeout: the client notices
        assertThat(events).as("nothing noticed yet").containsExactly(ConnectionEvent.CONNECTED);
        store.noticeCut();
        assertThat(events).containsExactly(ConnectionEvent.CONNECTED, ConnectionEvent.SUSPENDED);
        clock.advance(Duration.ofSeconds(2));
        zooKeeper.expireDueSessions();
        assertThat(zooKeeper.isSessionAlive(first))
                .as("expired a session timeout after the cut, not the notice")
                .isFalse();
        assertThat(events)
                .as("Curator reports LOST a session timeout after SUSPENDED, or on reconnecting")
                .containsExactly(ConnectionEvent.CONNECTED, ConnectionEvent.SUSPENDED);
        store.reconnect();
        assertThat(events)
                .containsExactly(
                        ConnectionEvent.CONNECTED,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.LOST,
                        ConnectionEvent.RECONNECTED_NEW_SESSION);
    }

    @Test
    void afterASilentCutLostComesASessionTimeoutAfterTheNoticeAsCuratorReportsIt() {
        started();
        store.cutSilently();
        clock.advance(Duration.ofSeconds(4));
        store.noticeCut();
        clock.advance(Duration.ofSeconds(2));
        zooKeeper.expireDueSessions(); // the server's view: expired now
        clock.advance(Duration.ofMillis(3_999));
        zooKeeper.expireDueSessions();
        assertThat(events).containsExactly(ConnectionEvent.CONNECTED, ConnectionEvent.SUSPENDED);

        clock.advance(Duration.ofMillis(1));
        zooKeeper.expireDueSessions();
        assertThat(events).containsExactly(ConnectionEvent.CONNECTED, ConnectionEvent.SUSPENDED, ConnectionEvent.LOST);
        store.reconnect();
        assertThat(events)
                .containsExactly(
                        ConnectionEvent.CONNECTED,
                        ConnectionEvent.SUSPENDED,
                        ConnectionEvent.LOST,
                        ConnectionEvent.RECONNECTED_NEW_SESSION);
    }

    @Test
    void aSilentCutShorterThanTheReadTimeoutGoesUnreportedAndKeepsTheSession() {
        started();
        long first = store.sessionId();
        store.cutSilently();
        clock.advance(Duration.ofSeconds(3));
        store.reconnect();

        assertThat(store.isConnected()).isTrue();
        assertThat(store.sessionId()).isEqualTo(first);
        assertThat(events).containsExactly(ConnectionEvent.CONNECTED);
    }

    @Test
    void aWriteThatFailsBeforeReachingTheServerChangesNothing() {
        GroupStore g = started();
        store.failNextWrites(1, false);
        assertThatThrownBy(() -> g.registerMember(new io.groupkeeper.spi.internal.MemberInfo(
                        "m1",
                        java.util.Optional.empty(),
                        "h",
                        new java.util.TreeSet<>(java.util.Set.of("t")),
                        clock.instant(),
                        "sticky")))
                .isInstanceOf(StoreException.class);
        assertThat(g.isRegistered("m1")).isFalse();
        assertThat(zooKeeper.children(ZkLayout.GROUPS + "/g/members")).isEmpty();
    }

    @Test
    void aLeaderThatClosesWhileItsDeleteFailsStillGivesUpItsLatchNodeOnceReconnected() {
        // As Curator's LeaderLatch, whose close deletes its node with a guaranteed delete: the keeper's session lives
        // on, so a latch node left behind would keep everyone else from leading for as long as it does.
        GroupStore g = started();
        io.groupkeeper.spi.internal.LeaderElection e =
                g.election("m1", new io.groupkeeper.spi.internal.LeadershipListener() {
                    @Override
                    public void isLeader() {}

                    @Override
                    public void notLeader() {}
                });
        e.start();
        assertThat(e.isLeader()).isTrue();
        String latches = ZkLayout.GROUPS + "/g/leader";
        assertThat(zooKeeper.children(latches)).hasSize(1);

        store.failNextWrites(1, false); // the delete is lost with the connection, which comes back in the same session
        long session = store.sessionId();
        e.close();

        assertThat(store.sessionId()).isEqualTo(session);
        assertThat(zooKeeper.children(latches))
                .as("the latch node, deleted again once connected")
                .isEmpty();
    }

    @Test
    void aLeaderThatClosesWhileDisconnectedDeletesItsLatchNodeWhenTheConnectionReturns() {
        GroupStore g = started();
        io.groupkeeper.spi.internal.LeaderElection e =
                g.election("m1", new io.groupkeeper.spi.internal.LeadershipListener() {
                    @Override
                    public void isLeader() {}

                    @Override
                    public void notLeader() {}
                });
        e.start();
        String latches = ZkLayout.GROUPS + "/g/leader";
        store.disconnect();
        e.close();
        assertThat(zooKeeper.children(latches)).as("not connected: still there").hasSize(1);

        store.reconnect();
        assertThat(zooKeeper.children(latches))
                .as("deleted once the connection is back in the same session")
                .isEmpty();
    }

    @Test
    void anElectionClosedBeforeItAdoptedALatchNodeWhoseCreationLostItsAnswerDeletesIt() {
        // Curator finds and deletes a protected node whose creation lost its answer; the model's close does too.
        java.util.Queue<Runnable> events = new java.util.ArrayDeque<>();
        InMemoryCoordinationStore queued = InMemoryCoordinationStore.builder(zooKeeper)
                .sessionTimeout(Duration.ofSeconds(6))
                .eventExecutor(events::add)
                .build();
        try {
            queued.start();
            GroupStore g = GroupStores.of(queued, "g");
            g.ensureGroup("sticky");
            io.groupkeeper.spi.internal.LeaderElection e =
                    g.election("m1", new io.groupkeeper.spi.internal.LeadershipListener() {
                        @Override
                        public void isLeader() {}

                        @Override
                        public void notLeader() {}
                    });
            String latches = ZkLayout.GROUPS + "/g/leader";
            queued.failNextWrites(1, true);
            assertThatThrownBy(e::start).isInstanceOf(StoreException.class);
            assertThat(zooKeeper.children(latches))
                    .as("created; its answer lost")
                    .hasSize(1);

            e.close(); // before the reconnection's event adopted it
            while (!events.isEmpty()) {
                events.poll().run();
            }
            assertThat(zooKeeper.children(latches))
                    .as("deleted by the close, in a session that lives on")
                    .isEmpty();
        } finally {
            queued.close();
        }
    }
}

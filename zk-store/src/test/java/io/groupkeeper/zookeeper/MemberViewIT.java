package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's view of the members (one persistent recursive watch on the members folder): a join costs the leader
 * one read, sent as the event arrives, a leave none; the rebalance then reads from memory. A reconnect (whose missed
 * changes ZooKeeper does not replay to a persistent watch) fires the hook and makes the next read list the folder
 * again; a view nobody reads any more drops its watch. On real ZooKeeper.
 */
class MemberViewIT extends ZkTestSupport {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T07:00:00Z"));

    private final String group = newGroup();
    private final AtomicInteger fired = new AtomicInteger();
    private final Runnable hook = fired::incrementAndGet;
    /** The leader's store, its clock the test's, and its view of the group. */
    private ZooKeeperStore leader;

    private GroupStore view;

    @BeforeEach
    void leaderWithAnEmptyGroup() {
        leader = started(ZooKeeperStore.builder()
                .connectString(connectString())
                .sessionTimeout(SESSION_TIMEOUT)
                .clock(clock)
                .build());
        view = GroupStores.of(leader, group);
        view.ensureGroup("sticky");
    }

    private ZooKeeperStore started(ZooKeeperStore store) {
        toClose.add(store);
        store.start();
        return store;
    }

    /** The persistent recursive watches this store's ZooKeeper client holds (the client's own registry). */
    @SuppressWarnings("unchecked")
    static List<String> recursiveWatches(ZooKeeperStore store) throws Exception {
        ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
        Method m = ZooKeeper.class.getDeclaredMethod("getPersistentRecursiveWatches");
        m.setAccessible(true); // protected, for tests
        return (List<String>) m.invoke(zk);
    }

    private static MemberInfo info(String memberId, String... topics) {
        return new MemberInfo(
                memberId, Optional.empty(), "test", new TreeSet<>(Set.of(topics)), Instant.now(), "sticky");
    }

    @Test
    void aJoinCostsTheLeaderOneReadALeaveNoneAndTheNextRebalanceReadsFromMemory() throws Exception {
        Registration a = view.registerMember(info("a", "orders"));
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("a");
        assertThat(recursiveWatches(leader)).containsExactly(ZkLayout.members(group));

        StoreStats before = leader.stats();
        Registration b = GroupStores.of(started(newStore()), group).join("sticky", info("b", "orders", "payments"));
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 1);
        assertThat(leader.stats().minus(before))
                .as("the join: one event, one read of the new node")
                .isEqualTo(new StoreStats(1, 0, 0, 1));
        before = leader.stats();
        var members = view.readMembers(hook).members();
        assertThat(members).containsOnlyKeys("a", "b");
        assertThat(members.get("b").topics()).containsExactly("orders", "payments");
        assertThat(leader.stats().minus(before))
                .as("the rebalance's read, from memory")
                .isEqualTo(new StoreStats(0, 0, 0, 0));

        b.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 2);
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("a");
        assertThat(leader.stats().minus(before))
                .as("the leave: one event, nothing read")
                .isEqualTo(new StoreStats(0, 0, 0, 1));
        a.close();
    }

    @Test
    void aReconnectFiresTheHookAndTheNextReadListsTheFolderAgain() throws Exception {
        Registration a = view.registerMember(info("a", "orders"));
        view.readMembers(hook);
        long session = leader.sessionId();

        // A real disconnect: the client's socket is closed and it reconnects to the same session.
        leader.curator().getZookeeperClient().getZooKeeper().getTestable().closeSocket();
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 1);
        assertThat(leader.sessionId()).isEqualTo(session);
        StoreStats before = leader.stats();
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("a");
        assertThat(leader.stats().minus(before).reads())
                .as("the watch added again, the folder listed, its one node read")
                .isEqualTo(3);

        // Warm again: the next join is seen as before.
        Registration b = GroupStores.of(started(newStore()), group).join("sticky", info("b", "orders"));
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 2);
        before = leader.stats();
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("a", "b");
        assertThat(leader.stats().minus(before).reads()).isZero();
        a.close();
        b.close();
    }

    @Test
    void aViewNobodyReadsDropsItsWatchAtTheNextChange() throws Exception {
        view.readMembers(hook);
        GroupStore other = GroupStores.of(started(newStore()), group);

        // The hook is one-shot: the first join fires it; nobody reads again (a deposed leader).
        Registration b = other.registerMember(info("b", "orders"));
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 1);
        clock.advance(Duration.ofMinutes(2));
        StoreStats before = leader.stats();
        Registration c = other.registerMember(info("c", "orders"));
        // The second join found no reader: the watch is removed (from the server, then from the client's registry).
        await().atMost(Duration.ofSeconds(10))
                .until(() -> recursiveWatches(leader).isEmpty());
        assertThat(leader.stats().minus(before)).isEqualTo(new StoreStats(1, 0, 0, 1));
        StoreStats dropped = leader.stats();
        Registration d = other.registerMember(info("d", "orders"));
        Registration e = other.registerMember(info("e", "orders"));
        b.close();
        // A round trip on the leader's own session after the changes: ZooKeeper sends their events before its reply.
        assertThat(leader.curator().getChildren().forPath("/groups/" + group + "/members"))
                .containsExactlyInAnyOrder("c", "d", "e");
        assertThat(leader.stats().minus(dropped)).isEqualTo(new StoreStats(0, 0, 0, 0));
        assertThat(fired).hasValue(1);
        // A later read arms it again.
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("c", "d", "e");
        assertThat(recursiveWatches(leader)).containsExactly(ZkLayout.members(group));
        e.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 2);
        c.close();
        d.close();
    }
}

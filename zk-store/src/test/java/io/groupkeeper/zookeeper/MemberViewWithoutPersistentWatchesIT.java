package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupMember;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server that refuses persistent watches (here {@code watchManagerName=WatchManagerOptimized}, which fails them; a
 * server before 3.6 does not know them): the leader falls back to a child watch and a listing per change.
 */
class MemberViewWithoutPersistentWatchesIT extends ZkTestSupport {

    private static final String WATCH_MANAGER = "zookeeper.watchManagerName";

    @BeforeAll
    static void startServer() throws Exception {
        System.setProperty(WATCH_MANAGER, "org.apache.zookeeper.server.watch.WatchManagerOptimized");
        try {
            ZkTestSupport.startServer();
        } finally {
            System.clearProperty(WATCH_MANAGER);
        }
    }

    @Test
    void theLeaderListsTheMembersOnEveryChangeAndSeesEachJoinAndLeave() throws Exception {
        String group = newGroup();
        ZooKeeperStore leader = newStore();
        toClose.add(leader);
        leader.start();
        GroupStore view = GroupStores.of(leader, group);
        view.ensureGroup("sticky");
        AtomicInteger fired = new AtomicInteger();
        Runnable hook = fired::incrementAndGet;
        assertThat(view.readMembers(hook).members()).isEmpty();
        assertThat(MemberViewIT.recursiveWatches(leader))
                .as("refused by the server")
                .isEmpty();

        ZooKeeperStore other = newStore();
        toClose.add(other);
        other.start();
        Registration b = GroupStores.of(other, group).registerMember(info("b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 1);
        StoreStats before = leader.stats();
        assertThat(view.readMembers(hook).members()).containsOnlyKeys("b");
        assertThat(leader.stats().minus(before).reads())
                .as("a listing and the new node")
                .isEqualTo(2);
        b.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 2);
        assertThat(view.readMembers(hook).members()).isEmpty();
    }

    @Test
    void aGroupBalancesAsUsual() {
        String group = newGroup();
        topic("fallback", 4);
        GroupMember a = newKeeper().member(group).topics("fallback").build();
        a.start();
        GroupMember b = newKeeper().member(group).topics("fallback").build();
        b.start();
        awaitBalanced(Map.of("fallback", 4), a, b);
        b.close();
        awaitBalanced(Map.of("fallback", 4), a);
    }

    /** The owner's offset-node watches fall back to one-shot watches: an operator's edit still reaches it (I3). */
    @Test
    void anOwnerStillHearsOfAnEditOfItsOffsetNode() throws Exception {
        String group = newGroup();
        topic("fallback-edit", 1);
        java.util.List<java.util.SortedSet<io.groupkeeper.TopicPartition>> changed =
                new java.util.concurrent.CopyOnWriteArrayList<>();
        GroupMember a = newKeeper()
                .member(group)
                .topics("fallback-edit")
                .listener(new io.groupkeeper.RebalanceListener() {
                    @Override
                    public void onOffsetsChanged(java.util.SortedSet<io.groupkeeper.TopicPartition> partitions) {
                        changed.add(partitions);
                    }
                })
                .build();
        a.start();
        awaitBalanced(Map.of("fallback-edit", 1), a);
        io.groupkeeper.TopicPartition tp = new io.groupkeeper.TopicPartition("fallback-edit", 0);
        assertThat(a.commit(Map.of(tp, 3L)).allCommitted()).isTrue();
        admin.setData()
                .forPath(
                        io.groupkeeper.fixtures.ZkLayout.offset(group, tp),
                        "9".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(10)).until(() -> !changed.isEmpty());
        assertThat(changed.get(0)).containsExactly(tp);
    }

    private static MemberInfo info(String memberId) {
        return new MemberInfo(
                memberId, Optional.empty(), "test", new TreeSet<>(Set.of("fallback")), Instant.now(), "sticky");
    }
}

package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** I2 (fenced commits), I3 (offsets outlive members) and I4 (external edits win), on real ZooKeeper. */
class FencingIT extends ZkTestSupport {

    private static final TopicPartition P0 = new TopicPartition("fenced", 0);

    private static String offsetNode(String group, TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }

    private static String fenceNode(String group, TopicPartition tp) {
        return ZkLayout.fence(group, tp);
    }

    private static String read(String path) throws Exception {
        return new String(admin.getData().forPath(path), StandardCharsets.UTF_8);
    }

    @Test
    void zombieCommitAfterSessionExpiryAndNewClaimIsRejectedAtTheStore() throws Exception {
        String group = newGroup();
        ZooKeeperStore zombieStore = newStore();
        toClose.add(zombieStore);
        zombieStore.start();
        ZooKeeperStore otherStore = newStore();
        toClose.add(otherStore);
        otherStore.start();
        GroupStore zombie = GroupStores.of(zombieStore, group);
        GroupStore other = GroupStores.of(otherStore, group);
        zombie.ensureGroup("sticky");

        ClaimResult.Claimed claimed = (ClaimResult.Claimed) zombie.claim(P0, "zombie", 1, () -> {});
        CommitOutcome first = zombie.commit(
                "zombie",
                1,
                List.of(new CommitRequest(
                        P0, 10, claimed.offset().version(), claimed.lease().session())));
        long zombieVersion = first.committed().get(P0);
        assertThat(other.claim(P0, "heir", 2, () -> {})).isInstanceOf(ClaimResult.Busy.class);

        expireSession(zombieStore);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> other.claim(P0, "heir", 2, () -> {}) instanceof ClaimResult.Claimed);
        String afterClaim = read(offsetNode(group, P0));

        // The zombie's client reconnects with a new session and tries to commit with the version it remembers.
        await().atMost(Duration.ofSeconds(10)).until(zombieStore::isConnected);
        CommitOutcome late = zombie.commit(
                "zombie",
                1,
                List.of(new CommitRequest(P0, 99, zombieVersion, claimed.lease().session())));
        assertThat(late.conflicted()).containsExactly(P0);
        assertThat(late.committed()).isEmpty();
        assertThat(read(offsetNode(group, P0))).isEqualTo(afterClaim).contains("\"offset\":10");
        assertThat(zombie.readIfOwned(P0, "zombie", claimed.lease().session())).isEmpty();
        assertThat(zombie.release(P0, "zombie", zombieVersion, claimed.lease().session()))
                .isFalse();
        assertThat(other.readOwner(P0)).get().extracting(o -> o.memberId()).isEqualTo("heir");
    }

    /**
     * ZooKeeper restarts a node's version at 0 when it is deleted and created again, so the version a zombie remembers
     * can come round again on another owner's node. A write prepared in one session must still never land in another:
     * it is sent only through the handle of the claim's session.
     */
    @Test
    void aWritePreparedInOneSessionNeverLandsInAnotherEvenWhenTheVersionComesRoundAgain() throws Exception {
        String group = newGroup();
        ZooKeeperStore zombieStore = newStore();
        toClose.add(zombieStore);
        zombieStore.start();
        ZooKeeperStore heirStore = newStore();
        toClose.add(heirStore);
        heirStore.start();
        GroupStore zombie = GroupStores.of(zombieStore, group);
        GroupStore heir = GroupStores.of(heirStore, group);
        zombie.ensureGroup("sticky");

        ClaimResult.Claimed first = (ClaimResult.Claimed) zombie.claim(P0, "zombie", 1, () -> {});
        long remembered = first.offset().version();
        expireSession(zombieStore); // a pause longer than the session timeout
        await().atMost(Duration.ofSeconds(10))
                .until(() -> zombieStore.isConnected() && heir.readOwner(P0).isEmpty());
        // An operator deletes the partition's offset node and its fence node (zkCli, or a script): the heir's claim
        // makes both again, and the version the store reports is where the zombie's was when it claimed.
        admin.delete().forPath(offsetNode(group, P0));
        admin.delete().forPath(fenceNode(group, P0));
        ClaimResult.Claimed second = (ClaimResult.Claimed) heir.claim(P0, "heir", 2, () -> {});
        assertThat(second.offset().version()).as("the version came round again").isEqualTo(remembered);
        String before = read(offsetNode(group, P0));

        // The zombie, now on a new session and under another owner's node, tries its stale writes.
        CommitOutcome late = zombie.commit(
                "zombie",
                1,
                List.of(new CommitRequest(P0, 3, remembered, first.lease().session())));
        assertThat(late.conflicted()).containsExactly(P0);
        assertThat(zombie.release(P0, "zombie", remembered, first.lease().session()))
                .isFalse();
        assertThat(zombie.releaseAll(
                        "zombie",
                        1,
                        List.of(new io.groupkeeper.spi.internal.ReleaseRequest(
                                P0, remembered, first.lease().session(), java.util.Optional.empty()))))
                .isEmpty();
        assertThat(read(offsetNode(group, P0))).isEqualTo(before);
        assertThat(heir.readOwner(P0)).get().extracting(o -> o.memberId()).isEqualTo("heir");
    }

    /** The fencing token grows with every change of hands and never repeats, even across a re-created offset node. */
    @Test
    void fencingTokensGrowWithEveryChangeOfHands() throws Exception {
        String group = newGroup();
        ZooKeeperStore one = newStore();
        toClose.add(one);
        one.start();
        ZooKeeperStore two = newStore();
        toClose.add(two);
        two.start();
        GroupStore a = GroupStores.of(one, group);
        GroupStore b = GroupStores.of(two, group);
        a.ensureGroup("sticky");
        List<Long> tokens = new java.util.ArrayList<>();
        ClaimResult.Claimed c1 = (ClaimResult.Claimed) a.claim(P0, "a", 1, () -> {});
        tokens.add(c1.lease().fencingToken());
        assertThat(a.release(P0, "a", c1.offset().version(), c1.lease().session()))
                .isTrue();
        ClaimResult.Claimed c2 = (ClaimResult.Claimed) b.claim(P0, "b", 2, () -> {});
        tokens.add(c2.lease().fencingToken());
        assertThat(b.release(P0, "b", c2.offset().version(), c2.lease().session()))
                .isTrue();
        admin.delete().forPath(offsetNode(group, P0));
        admin.delete().forPath(fenceNode(group, P0)); // the version the store reports rests on both nodes
        ClaimResult.Claimed c3 = (ClaimResult.Claimed) a.claim(P0, "a", 3, () -> {});
        tokens.add(c3.lease().fencingToken());
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(c3.offset().version())
                .as("re-created node, version restarted")
                .isEqualTo(c1.offset().version());
    }

    @Test
    void commitAfterOwnSessionExpiredIsRejectedEvenBeforeAnyoneElseClaims() throws Exception {
        String group = newGroup();
        ZooKeeperStore store = newStore();
        toClose.add(store);
        store.start();
        GroupStore g = GroupStores.of(store, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) g.claim(P0, "m", 1, () -> {});
        expireSession(store);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.isConnected() && g.readOwner(P0).isEmpty());
        CommitOutcome late = g.commit(
                "m",
                1,
                List.of(new CommitRequest(
                        P0, 5, claimed.offset().version(), claimed.lease().session())));
        assertThat(late.conflicted()).containsExactly(P0);
    }

    @Test
    void zombieMemberThatMissedItsDisconnectCannotOverwriteTheNewOwnersOffsets() throws Exception {
        String group = newGroup();
        topic("fenced", 1);
        InterposedStore deaf = InterposedStore.deaf(newStore());
        GroupKeeper zombieKeeper = GroupKeeper.builder().store(deaf).build().start();
        toClose.add(zombieKeeper);
        GroupMember zombie = zombieKeeper.member(group).topics("fenced").build();
        zombie.start();
        await().until(() -> zombie.assignment().contains(P0));
        assertThat(zombie.commit(Map.of(P0, 10L)).status(P0)).isEqualTo(Status.COMMITTED);

        GroupMember heir = newKeeper().member(group).topics("fenced").build();
        heir.start();
        expireSession(deaf.delegate()); // the zombie never hears of it
        await().atMost(Duration.ofSeconds(15)).until(() -> heir.assignment().contains(P0));
        assertThat(heir.commit(Map.of(P0, 20L)).status(P0)).isEqualTo(Status.COMMITTED);

        assertThat(zombie.assignment())
                .as("the zombie still believes it owns the partition")
                .contains(P0);
        // Connected again (a new session): what stops the write is fencing, not a dead connection.
        await().atMost(Duration.ofSeconds(15)).until(() -> deaf.delegate().isConnected());
        CommitResult stale = zombie.commit(Map.of(P0, 15L));
        assertThat(stale.status(P0)).isEqualTo(Status.NOT_OWNED);
        assertThat(heir.committed(P0)).hasValue(20L);
        assertThat(zombie.assignment()).doesNotContain(P0);
    }

    @Test
    void offsetsOutliveEveryMemberAndTheGroupResumesExactlyWhereItCommitted() {
        String group = newGroup();
        topic("durable", 3);
        GroupKeeper gk = newKeeper();
        GroupMember a = gk.member(group).topics("durable").build();
        GroupMember b = gk.member(group).topics("durable").build();
        a.start();
        b.start();
        awaitBalanced(Map.of("durable", 3), a, b);
        Map<TopicPartition, Long> expected = new ConcurrentHashMap<>();
        for (GroupMember m : List.of(a, b)) {
            for (TopicPartition tp : m.assignment()) {
                long offset = 100L * (tp.partition() + 1) + 7;
                assertThat(m.commit(Map.of(tp, offset)).status(tp)).isEqualTo(Status.COMMITTED);
                expected.put(tp, offset);
            }
        }
        a.close();
        b.close();
        gk.close();

        Map<TopicPartition, OptionalLong> resumedAt = new ConcurrentHashMap<>();
        GroupMember fresh = newKeeper()
                .member(group)
                .topics("durable")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        resumedAt.putAll(partitions);
                    }
                })
                .build();
        fresh.start();
        await().untilAsserted(() -> assertThat(resumedAt).hasSize(3));
        expected.forEach((tp, offset) -> assertThat(resumedAt.get(tp)).hasValue(offset));
    }

    /** A started member of {@code group}, alone on {@code tp}'s topic and owning {@code tp}; edits noticed go to {@code notified}. */
    private GroupMember owningAlone(String group, TopicPartition tp, List<SortedSet<TopicPartition>> notified) {
        GroupMember m = newKeeper()
                .member(group)
                .topics(tp.topic())
                .listener(new RebalanceListener() {
                    @Override
                    public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
                        notified.add(partitions);
                    }
                })
                .build();
        m.start();
        await().until(() -> m.assignment().contains(tp));
        return m;
    }

    @Test
    void rawZooKeeperEditOfALiveGroupsOffsetIsAdoptedNotOverwritten() throws Exception {
        String group = newGroup();
        topic("edited", 1);
        TopicPartition tp = new TopicPartition("edited", 0);
        List<SortedSet<TopicPartition>> notified = new CopyOnWriteArrayList<>();
        GroupMember m = owningAlone(group, tp, notified);
        assertThat(m.commit(Map.of(tp, 40L)).status(tp)).isEqualTo(Status.COMMITTED);
        assertThat(m.commit(Map.of(tp, 42L)).status(tp)).isEqualTo(Status.COMMITTED);
        assertThat(notified).as("own commits are not external changes").isEmpty();

        // The operator's hand edit, exactly as in zkCli: set <path> 7
        admin.setData().forPath(offsetNode(group, tp), "7".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(notified).isNotEmpty());

        // The member's processing thread had not seen the notification yet and commits its old position.
        CommitResult stale = m.commit(Map.of(tp, 43L));
        assertThat(stale.status(tp)).isEqualTo(Status.ADOPTED);
        assertThat(stale.adoptedOffsets().get(tp)).hasValue(7L);
        assertThat(m.committed(tp)).hasValue(7L);
        assertThat(m.refresh(List.of(tp)).status(tp)).isEqualTo(Status.UNCHANGED);

        // Continuing from the adopted offset commits normally.
        assertThat(m.commit(Map.of(tp, 8L)).status(tp)).isEqualTo(Status.COMMITTED);
        assertThat(read(offsetNode(group, tp))).contains("\"offset\":8");
    }

    /**
     * An operator deletes a live group's offset node, creates it again with a value of its own and writes it until its
     * version comes round to the one the member last saw (in zkCli: {@code delete}, {@code create}, {@code set}).
     * ZooKeeper checks a write's version, not the node's incarnation: a commit conditioned on that version alone lands
     * over the operator's value. The member watches the node and reads each change; once it has read the node in
     * another incarnation, its next commit reads instead of writing, and adopts the operator's value.
     */
    @Test
    void anEditThatBringsARecreatedNodeBackToTheSeenVersionIsAdoptedNotOverwritten() throws Exception {
        String group = newGroup();
        topic("recreated", 1);
        TopicPartition tp = new TopicPartition("recreated", 0);
        List<SortedSet<TopicPartition>> notified = new CopyOnWriteArrayList<>();
        GroupMember m = owningAlone(group, tp, notified);
        assertThat(m.commit(Map.of(tp, 40L)).status(tp)).isEqualTo(Status.COMMITTED);
        String node = offsetNode(group, tp);
        int seenVersion = admin.checkExists().forPath(node).getVersion();

        // Each step waits for the member's read of it, so that its last read is of the final node.
        admin.delete().forPath(node);
        awaitNotifications(notified, 1);
        admin.create().forPath(node, "7".getBytes(StandardCharsets.UTF_8));
        int changes = 2;
        awaitNotifications(notified, changes);
        while (admin.checkExists().forPath(node).getVersion() < seenVersion) {
            admin.setData().forPath(node, "7".getBytes(StandardCharsets.UTF_8));
            awaitNotifications(notified, ++changes);
        }
        assertThat(admin.checkExists().forPath(node).getVersion())
                .as("the new node's version is the one the member saw")
                .isEqualTo(seenVersion);

        // The member's processing thread had not served the notifications yet and commits its old position.
        CommitResult stale = m.commit(Map.of(tp, 41L));
        assertThat(stale.status(tp)).isEqualTo(Status.ADOPTED);
        assertThat(stale.adoptedOffsets().get(tp)).hasValue(7L);
        assertThat(read(node)).isEqualTo("7");

        assertThat(m.commit(Map.of(tp, 8L)).status(tp)).isEqualTo(Status.COMMITTED);
        assertThat(read(node)).contains("\"offset\":8");
    }

    private static void awaitNotifications(List<SortedSet<TopicPartition>> notified, int count) {
        await().atMost(Duration.ofSeconds(5)).until(() -> notified.size() >= count);
    }

    @Test
    void refreshAdoptsAnExternalEditWithoutAnyCommit() throws Exception {
        String group = newGroup();
        topic("refreshed", 1);
        TopicPartition tp = new TopicPartition("refreshed", 0);
        GroupMember m = newKeeper().member(group).topics("refreshed").build();
        m.start();
        await().until(() -> m.assignment().contains(tp));
        admin.setData().forPath(offsetNode(group, tp), "{\"offset\":1234}".getBytes(StandardCharsets.UTF_8));
        CommitResult r = m.refresh(List.of(tp));
        assertThat(r.status(tp)).isEqualTo(Status.ADOPTED);
        assertThat(r.adoptedOffsets().get(tp)).hasValue(1234L);
    }
}

package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.AssignmentSnapshot;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.LeaderElection;
import io.groupkeeper.spi.internal.LeadershipListener;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import io.groupkeeper.spi.internal.Registration;
import io.groupkeeper.spi.internal.ReleaseRequest;
import io.groupkeeper.spi.internal.TargetAssignment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The contract of the store SPI ({@link GroupStore}, {@link LeaderElection}, {@link CoordinationStore}), run against
 * every implementation: the in-memory store of this module ({@code InMemoryGroupStoreContractTest}) and the ZooKeeper
 * store ({@code ZooKeeperGroupStoreContractIT} in zk-store). Subclasses provide the fixture: stores (one client and
 * one session each, on one shared backend), session expiry, connection loss, and an operator's hand edits on the
 * layout of docs/zk-layout.md under the default namespace {@code /groupkeeper}.
 *
 * <p>This class is long on purpose: it is one suite, so that every store is held to every case; the cases are grouped
 * by the SPI method they pin down (membership, election, assignment, claim, commit, release, reads, tokens,
 * connection, topics). Every case asserts what a wrong store would get wrong; hooks are awaited, never slept on.
 */
public abstract class GroupStoreContract {

    private static final AtomicInteger GROUPS = new AtomicInteger();
    private static final String TOPIC = "orders";

    private final List<AutoCloseable> toClose = new ArrayList<>();

    // ------------------------------------------------------------------ fixture

    /** A new, started store on the shared backend: one client with a session of its own. */
    protected abstract CoordinationStore newStore();

    /** Expires {@code store}'s current session on the server; the store may get its new session later. */
    protected abstract void expireSession(CoordinationStore store) throws Exception;

    /** Drops {@code store}'s connection without ending its session (may drop other stores' connections too). */
    protected abstract void dropConnection(CoordinationStore store) throws Exception;

    /** Restores what {@link #dropConnection} dropped, within the session timeout. */
    protected abstract void restoreConnection(CoordinationStore store) throws Exception;

    /** An operator writes a valid offset into the node at {@code path} (created if missing), at any version. */
    protected abstract void setOffsetByHand(String path, long offset) throws Exception;

    /** An operator writes {@code text} into the node at {@code path} as it is (created if missing), at any version. */
    protected abstract void writeByHand(String path, String text) throws Exception;

    /** An operator reads the data of the node at {@code path} (zkCli's {@code get}); it must exist. */
    protected abstract byte[] readByHand(String path) throws Exception;

    /** An operator writes data no store can parse into the node at {@code path} (created if missing). */
    protected abstract void writeGarbageByHand(String path) throws Exception;

    /** An operator deletes the node at {@code path} (it has no children). */
    protected abstract void deleteByHand(String path) throws Exception;

    /** An operator writes a member's target node at {@code path} naming {@code partitions} (created if missing). */
    protected abstract void writeTargetByHand(String path, long generation, Set<TopicPartition> partitions)
            throws Exception;

    @AfterEach
    void closeStores() {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                // best effort
            }
        }
        toClose.clear();
    }

    // ------------------------------------------------------------------ helpers

    protected final CoordinationStore store() {
        CoordinationStore s = newStore();
        toClose.add(s);
        return s;
    }

    protected static String newGroup() {
        return "contract-" + GROUPS.incrementAndGet() + "-" + System.nanoTime() % 100_000;
    }

    protected static String offsetPath(String group, TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }

    protected static String fencePath(String group, TopicPartition tp) {
        return ZkLayout.fence(group, tp);
    }

    protected static String ownerPath(String group, TopicPartition tp) {
        return ZkLayout.owner(group, tp);
    }

    protected static String targetPath(String group, String memberId) {
        return ZkLayout.assignment(group, memberId);
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition(TOPIC, partition);
    }

    private static MemberInfo member(String memberId) {
        return new MemberInfo(
                memberId,
                Optional.empty(),
                "host-of-" + memberId,
                new TreeSet<>(Set.of(TOPIC)),
                Instant.parse("2026-12-01T00:00:00Z"),
                "sticky");
    }

    /** Expires the session and waits until the store has a new one. */
    private void expire(CoordinationStore s) throws Exception {
        long old = s.sessionId();
        expireSession(s);
        await().atMost(Duration.ofSeconds(30)).until(() -> s.isConnected() && s.sessionId() != old);
    }

    /** A one-shot hook that counts its runs. */
    protected static final class Hook implements Runnable {
        private final AtomicInteger runs = new AtomicInteger();

        @Override
        public void run() {
            runs.incrementAndGet();
        }

        public boolean fired() {
            return runs.get() > 0;
        }

        public int runs() {
            return runs.get();
        }
    }

    /** Records leadership changes. */
    private static final class Leadership implements LeadershipListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void isLeader() {
            events.add("leader");
        }

        @Override
        public void notLeader() {
            events.add("not-leader");
        }
    }

    private static ClaimResult.Claimed claimed(GroupStore g, TopicPartition tp, String memberId) {
        ClaimResult r = g.claim(tp, memberId, 1, new Hook());
        assertThat(r).as("claim of %s by %s", tp, memberId).isInstanceOf(ClaimResult.Claimed.class);
        return (ClaimResult.Claimed) r;
    }

    private static CommitRequest commitOf(TopicPartition tp, long offset, long version, long session) {
        return new CommitRequest(tp, offset, version, session);
    }

    private static ReleaseRequest finalCommit(TopicPartition tp, long offset, long version, long session) {
        return new ReleaseRequest(tp, version, session, Optional.of(new CommitRequest(tp, offset, version, session)));
    }

    private static OptionalLong storedOffset(GroupStore g, TopicPartition tp) {
        return g.readOffset(tp, null).offset();
    }

    private LeaderElection leaderOf(GroupStore g, String participant, Leadership listener) {
        LeaderElection e = g.election(participant, listener);
        toClose.add(e);
        e.start();
        await().until(e::isLeader);
        return e;
    }

    // ------------------------------------------------------------------ group and membership

    @Test
    void joinCreatesTheGroupAndRegistersAnEphemeralMember() {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        Registration r = g.join("sticky", member("m1"));

        assertThat(g.readMembers(null).members()).containsOnlyKeys("m1");
        assertThat(g.readMembers(null).members().get("m1").topics()).containsExactly(TOPIC);
        assertThat(g.readMembers(null).members().get("m1").host()).isEqualTo("host-of-m1");
        assertThat(g.isRegistered("m1")).isTrue();
        AssignmentSnapshot empty = g.readAssignment();
        assertThat(empty.generation()).isZero();
        assertThat(empty.targets().byMember()).isEmpty();
        assertThat(empty.version()).as("the assignment node exists").isNotEqualTo(AssignmentSnapshot.ABSENT);

        g.ensureGroup("sticky"); // again: nothing changes
        assertThat(g.readMembers(null).members()).containsOnlyKeys("m1");
        r.close();
        assertThat(g.isRegistered("m1")).isFalse();
        assertThat(g.readMembers(null).members()).isEmpty();
    }

    @Test
    void aMemberIdHeldByAnotherLiveSessionIsRefusedUntilItIsReleased() {
        String group = newGroup();
        GroupStore first = GroupStores.of(store(), group);
        GroupStore second = GroupStores.of(store(), group);
        Registration held = first.join("sticky", member("m1"));

        assertThatThrownBy(() -> second.join("sticky", member("m1"))).isInstanceOf(MemberIdInUseException.class);
        assertThat(second.isRegistered("m1"))
                .as("registered, but by another session")
                .isFalse();
        assertThat(first.isRegistered("m1")).isTrue();

        held.close();
        second.registerMember(member("m1"));
        assertThat(second.isRegistered("m1")).isTrue();
    }

    /** What a start whose registration's reply was lost uses to remove the node that may have landed. */
    @Test
    void deregisterMemberRemovesTheMemberNodeOnlyInThisSession() {
        String group = newGroup();
        GroupStore first = GroupStores.of(store(), group);
        GroupStore second = GroupStores.of(store(), group);
        first.join("sticky", member("m1"));

        second.deregisterMember("m1");
        assertThat(first.isRegistered("m1"))
                .as("another session's node, untouched")
                .isTrue();
        first.deregisterMember("m1");
        assertThat(first.isRegistered("m1")).isFalse();
        assertThat(first.readMembers(null).members()).isEmpty();
        first.deregisterMember("m1"); // nothing there any more: nothing happens
        assertThat(first.readMembers(null).members()).isEmpty();
    }

    @Test
    void readMembersHookFiresOnJoinAndOnLeave() {
        String group = newGroup();
        GroupStore leader = GroupStores.of(store(), group);
        leader.ensureGroup("sticky");
        GroupStore other = GroupStores.of(store(), group);
        Hook joined = new Hook();
        assertThat(leader.readMembers(joined).members()).isEmpty();

        Registration r = other.join("sticky", member("m2"));
        await().until(joined::fired);
        Hook left = new Hook();
        assertThat(leader.readMembers(left).members()).containsOnlyKeys("m2");

        r.close();
        await().until(left::fired);
        assertThat(leader.readMembers(null).members()).isEmpty();
    }

    @Test
    void aMemberLeavesWhenItsSessionExpiresAndCanRegisterAgainInTheNewSession() throws Exception {
        String group = newGroup();
        GroupStore leader = GroupStores.of(store(), group);
        leader.ensureGroup("sticky");
        CoordinationStore crashed = store();
        GroupStores.of(crashed, group).join("sticky", member("m2"));
        Hook left = new Hook();
        assertThat(leader.readMembers(left).members()).containsOnlyKeys("m2");

        expire(crashed);
        await().until(left::fired);
        assertThat(leader.readMembers(null).members()).isEmpty();
        assertThat(GroupStores.of(crashed, group).isRegistered("m2")).isFalse();

        GroupStores.of(crashed, group).registerMember(member("m2"));
        assertThat(GroupStores.of(crashed, group).isRegistered("m2")).isTrue();
    }

    // ------------------------------------------------------------------ election and publishing

    @Test
    void oneLeaderAtATimeAndTheNextOneAfterTheFirstCloses() {
        String group = newGroup();
        GroupStore a = GroupStores.of(store(), group);
        GroupStore b = GroupStores.of(store(), group);
        a.ensureGroup("sticky");
        Leadership first = new Leadership();
        LeaderElection ea = leaderOf(a, "m1", first);
        Leadership second = new Leadership();
        LeaderElection eb = b.election("m2", second);
        toClose.add(eb);
        eb.start();

        assertThat(ea.isLeader()).isTrue();
        assertThat(eb.isLeader()).isFalse();
        assertThat(second.events).doesNotContain("leader");

        ea.close();
        await().until(eb::isLeader);
        assertThat(ea.isLeader()).isFalse();
        await().until(() -> second.events.contains("leader"));
        await().until(() -> first.events.equals(List.of("leader", "not-leader")));
    }

    @Test
    void onlyTheLeaderPublishesAndOnlyOnTheVersionItRead() {
        String group = newGroup();
        GroupStore a = GroupStores.of(store(), group);
        GroupStore b = GroupStores.of(store(), group);
        a.ensureGroup("sticky");
        LeaderElection leader = leaderOf(a, "m1", new Leadership());
        LeaderElection follower = b.election("m2", new Leadership());
        toClose.add(follower);
        follower.start();

        long before = a.readAssignment().version();
        long v1 = leader.publish(
                before, 1, Map.of("m1", Set.of(tp(0)), "m2", Set.of(tp(1))), Set.of(), new TreeSet<>(Set.of("m2")));
        AssignmentSnapshot published = b.readAssignment();
        assertThat(published.generation()).isEqualTo(1);
        assertThat(published.leader()).hasValue("m1");
        assertThat(published.version()).isEqualTo(v1).isNotEqualTo(before);
        assertThat(published.targets().partitionsOf("m1")).containsExactly(tp(0));
        assertThat(published.targets().partitionsOf("m2")).containsExactly(tp(1));
        assertThat(published.staticMembers()).containsExactly("m2");
        assertThat(published.damaged()).isEmpty();

        assertThatThrownBy(() -> follower.publish(v1, 2, Map.of("m2", Set.of(tp(0), tp(1))), Set.of(), new TreeSet<>()))
                .isInstanceOf(StoreException.class);
        assertThatThrownBy(() ->
                        leader.publish(before, 2, Map.of("m1", Set.of(tp(0), tp(1))), Set.of(), new TreeSet<>()))
                .as("stale version")
                .isInstanceOf(StoreException.class);
        assertThat(b.readAssignment().generation())
                .as("refused publishes wrote nothing")
                .isEqualTo(1);
        assertThat(b.readAssignment().targets().partitionsOf("m1")).containsExactly(tp(0));

        long v2 = leader.publish(v1, 2, Map.of("m1", Set.of(tp(0), tp(1))), Set.of("m2"), new TreeSet<>());
        AssignmentSnapshot next = b.readAssignment();
        assertThat(next.version()).isEqualTo(v2);
        assertThat(next.targets().byMember()).containsOnlyKeys("m1");
        assertThat(next.targets().partitionsOf("m1")).containsExactly(tp(0), tp(1));
    }

    @Test
    void readTargetHookFiresWhenTheTargetAppearsAndWhenItChanges() {
        String group = newGroup();
        GroupStore leaderStore = GroupStores.of(store(), group);
        GroupStore memberStore = GroupStores.of(store(), group);
        leaderStore.ensureGroup("sticky");
        LeaderElection leader = leaderOf(leaderStore, "m1", new Leadership());
        Hook appeared = new Hook();
        assertThat(memberStore.readTarget("m2", appeared)).isEmpty();

        long v1 = leader.publish(
                leaderStore.readAssignment().version(), 1, Map.of("m2", Set.of(tp(0))), Set.of(), new TreeSet<>());
        await().until(appeared::fired);
        Hook changed = new Hook();
        assertThat(memberStore.readTarget("m2", changed))
                .hasValue(new TargetAssignment(1, new TreeSet<>(Set.of(tp(0)))));

        leader.publish(v1, 2, Map.of("m2", Set.of(tp(0), tp(1))), Set.of(), new TreeSet<>());
        await().until(changed::fired);
        assertThat(memberStore
                        .readTarget("m2", null)
                        .map(TargetAssignment::partitions)
                        .orElseThrow())
                .containsExactly(tp(0), tp(1));
        assertThat(appeared.runs()).as("one-shot").isEqualTo(1);
    }

    @Test
    void twoTargetsNamingOnePartitionAreBothDamagedAndAnUnreadableOneToo() throws Exception {
        String group = newGroup();
        GroupStore leaderStore = GroupStores.of(store(), group);
        leaderStore.ensureGroup("sticky");
        LeaderElection leader = leaderOf(leaderStore, "m1", new Leadership());
        leader.publish(
                leaderStore.readAssignment().version(),
                1,
                Map.of("m1", Set.of(tp(0)), "m2", Set.of(tp(1)), "m3", Set.of(tp(2))),
                Set.of(),
                new TreeSet<>());

        writeTargetByHand(targetPath(group, "m2"), 1, Set.of(tp(0), tp(1)));
        writeGarbageByHand(targetPath(group, "m3"));
        AssignmentSnapshot read = GroupStores.of(store(), group).readAssignment();
        assertThat(read.damaged()).containsExactly("m1", "m2", "m3");
        assertThat(read.targets().ownerByPartition().keySet())
                .as("each partition kept once")
                .containsExactly(tp(0), tp(1));
    }

    /** A target changed by anyone but this store (an operator, another leader) is seen by this store's next read. */
    @Test
    @Disabled("by design: the store that published last trusts its own publish (the cache is keyed by the assignment"
            + " node's version, which every publish transaction moves) and does not re-read every target node on each"
            + " rebalance; targets are the leader's, not an operator's. A target changed by hand is seen by the next"
            + " leader, or after a failed publish (HandEditRegressionIT.overlappingTargetsAreRepairedByTheNextLeader)")
    protected void theStoreThatPublishedSeesATargetChangedByHand() throws Exception {
        String group = newGroup();
        GroupStore leaderStore = GroupStores.of(store(), group);
        leaderStore.ensureGroup("sticky");
        LeaderElection leader = leaderOf(leaderStore, "m1", new Leadership());
        leader.publish(
                leaderStore.readAssignment().version(),
                1,
                Map.of("m1", Set.of(tp(0)), "m2", Set.of(tp(1))),
                Set.of(),
                new TreeSet<>());
        assertThat(leaderStore.readAssignment().damaged()).isEmpty();

        writeTargetByHand(targetPath(group, "m2"), 1, Set.of(tp(0), tp(1)));
        assertThat(leaderStore.readAssignment().damaged()).containsExactly("m1", "m2");
    }

    // ------------------------------------------------------------------ claim

    @Test
    void claimOfAFreePartitionTakesItAndCreatesItsOffsetNode() {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.join("sticky", member("m1"));
        assertThat(g.readOffset(tp(0), null).version()).isEqualTo(OffsetSnapshot.ABSENT);

        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        assertThat(c.offset().offset()).isEmpty();
        assertThat(c.lease().session()).isEqualTo(s.sessionId());
        assertThat(c.lease().fencingToken()).isPositive();
        OffsetSnapshot stored = g.readOffset(tp(0), null);
        assertThat(stored.version()).isEqualTo(c.offset().version()).isNotEqualTo(OffsetSnapshot.ABSENT);
        assertThat(g.readOwner(tp(0))).hasValueSatisfying(o -> {
            assertThat(o.memberId()).isEqualTo("m1");
            assertThat(o.generation()).isEqualTo(1);
            assertThat(o.currentSession()).isTrue();
        });
        assertThat(GroupStores.of(store(), group).readOwner(tp(0)).orElseThrow().currentSession())
                .as("seen from another session")
                .isFalse();
    }

    @Test
    void aBusyPartitionIsClaimedAfterItsOwnerReleasesIt() {
        String group = newGroup();
        CoordinationStore first = store();
        CoordinationStore second = store();
        GroupStore a = GroupStores.of(first, group);
        GroupStore b = GroupStores.of(second, group);
        a.ensureGroup("sticky");
        ClaimResult.Claimed held = claimed(a, tp(0), "m1");

        Hook released = new Hook();
        assertThat(b.claim(tp(0), "m2", 2, released)).isEqualTo(new ClaimResult.Busy("m1"));
        assertThat(released.fired()).isFalse();
        assertThat(a.release(tp(0), "m1", held.offset().version(), held.lease().session()))
                .isTrue();
        await().until(released::fired);

        ClaimResult.Claimed taken = claimed(b, tp(0), "m2");
        assertThat(taken.offset().version())
                .as("a change of hands moves the version")
                .isGreaterThan(held.offset().version());
        assertThat(b.readOwner(tp(0)).orElseThrow().memberId()).isEqualTo("m2");
    }

    @Test
    void aBusyPartitionIsClaimedAfterItsOwnersSessionExpires() throws Exception {
        String group = newGroup();
        CoordinationStore crashed = store();
        GroupStore a = GroupStores.of(crashed, group);
        GroupStore b = GroupStores.of(store(), group);
        a.ensureGroup("sticky");
        claimed(a, tp(0), "m1");
        Hook released = new Hook();
        assertThat(b.claim(tp(0), "m2", 2, released)).isInstanceOf(ClaimResult.Busy.class);

        expireSession(crashed);
        await().atMost(Duration.ofSeconds(30)).until(released::fired);
        claimed(b, tp(0), "m2");
    }

    @Test
    void aCorruptOffsetNodeBlocksTheClaimUntilItIsRepaired() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.join("sticky", member("m1"));
        writeGarbageByHand(offsetPath(group, tp(0)));

        Hook repaired = new Hook();
        ClaimResult r = g.claim(tp(0), "m1", 1, repaired);
        assertThat(r).isInstanceOf(ClaimResult.Blocked.class);
        assertThat(((ClaimResult.Blocked) r).problem()).contains(offsetPath(group, tp(0)));
        assertThat(g.readOwner(tp(0))).as("nothing taken").isEmpty();
        assertThatThrownBy(() -> g.readOffset(tp(0), null)).isInstanceOf(CorruptNodeException.class);

        setOffsetByHand(offsetPath(group, tp(0)), 7);
        await().until(repaired::fired);
        assertThat(claimed(g, tp(0), "m1").offset().offset()).hasValue(7);
    }

    @Test
    void claimAllGivesEachPartitionWhatItsOwnClaimWouldAndArmsTheHookOfTheBusyOnes() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        GroupStore other = GroupStores.of(store(), group);
        g.join("sticky", member("m1"));
        setOffsetByHand(offsetPath(group, tp(1)), 7); // free, with an offset committed
        ClaimResult.Claimed held = claimed(other, tp(2), "m2"); // busy
        writeGarbageByHand(offsetPath(group, tp(3))); // blocked
        ClaimResult.Claimed mine = claimed(g, tp(4), "m1"); // already this member's: re-confirmed

        Hook hook = new Hook();
        Map<TopicPartition, CompletableFuture<ClaimResult>> results =
                g.claimAll(List.of(tp(0), tp(1), tp(2), tp(3), tp(4)), "m1", 3, hook);

        assertThat(results).containsOnlyKeys(tp(0), tp(1), tp(2), tp(3), tp(4));
        assertThat(results.values()).as("every claim done on return").allMatch(CompletableFuture::isDone);
        ClaimResult.Claimed free = (ClaimResult.Claimed) results.get(tp(0)).join();
        assertThat(free.offset().offset()).isEmpty();
        assertThat(free.offset().version())
                .isEqualTo(g.readOffset(tp(0), null).version())
                .isNotEqualTo(OffsetSnapshot.ABSENT);
        assertThat(free.lease().session()).isEqualTo(s.sessionId());
        ClaimResult.Claimed committed = (ClaimResult.Claimed) results.get(tp(1)).join();
        assertThat(committed.offset().offset()).hasValue(7);
        assertThat(results.get(tp(2)).join()).isEqualTo(new ClaimResult.Busy("m2"));
        assertThat(results.get(tp(3)).join())
                .isInstanceOfSatisfying(
                        ClaimResult.Blocked.class, b -> assertThat(b.problem()).contains(offsetPath(group, tp(3))));
        ClaimResult.Claimed again = (ClaimResult.Claimed) results.get(tp(4)).join();
        assertThat(again.offset().version()).isGreaterThan(mine.offset().version());
        assertThat(again.lease().fencingToken()).isGreaterThan(mine.lease().fencingToken());
        for (int p : new int[] {0, 1}) {
            assertThat(g.readOwner(tp(p))).as("owner of %s", tp(p)).hasValueSatisfying(o -> {
                assertThat(o.memberId()).isEqualTo("m1");
                assertThat(o.generation()).isEqualTo(3);
            });
        }
        assertThat(g.readOwner(tp(4)).orElseThrow().memberId()).isEqualTo("m1");
        assertThat(g.readOwner(tp(2)).orElseThrow().memberId()).isEqualTo("m2");
        assertThat(g.readOwner(tp(3)))
                .as("nothing taken where the offset node is corrupt")
                .isEmpty();

        assertThat(hook.fired()).isFalse();
        assertThat(other.release(
                        tp(2), "m2", held.offset().version(), held.lease().session()))
                .isTrue();
        await().until(hook::fired);
        assertThat(claimed(g, tp(2), "m1").offset().version())
                .isGreaterThan(held.offset().version());
    }

    @Test
    void reConfirmingInTheSameSessionMovesTheVersionAndFencesTheOldOne() {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed first = claimed(g, tp(0), "m1");

        ClaimResult.Claimed again = claimed(g, tp(0), "m1");
        assertThat(again.offset().version()).isGreaterThan(first.offset().version());
        assertThat(again.lease().session()).isEqualTo(first.lease().session());
        assertThat(again.lease().fencingToken()).isGreaterThan(first.lease().fencingToken());
        CommitOutcome stale = g.commit(
                "m1",
                1,
                List.of(commitOf(
                        tp(0), 5, first.offset().version(), first.lease().session())));
        assertThat(stale.conflicted()).containsExactly(tp(0));
        assertThat(storedOffset(g, tp(0))).isEmpty();
    }

    @Test
    void ownOwnerNodeFromAnExpiredSessionDoesNotBlockTheClaimInTheNewSession() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed before = claimed(g, tp(0), "m1");
        g.commit(
                "m1",
                1,
                List.of(commitOf(
                        tp(0), 10, before.offset().version(), before.lease().session())));

        expire(s);
        ClaimResult.Claimed after = claimed(g, tp(0), "m1");
        assertThat(after.lease().session())
                .isEqualTo(s.sessionId())
                .isNotEqualTo(before.lease().session());
        assertThat(after.offset().offset()).hasValue(10);
        assertThat(g.readOwner(tp(0)).orElseThrow().currentSession()).isTrue();
    }

    @Test
    void aClaimInTheNextSessionTellsAnOperatorsWriteOfTheSameOffsetFromNone() throws Exception {
        // Simulator seed 18310 (I4): a final offset that outlived its session is handed over after the next session's
        // claim only if nobody wrote the offset node since the member saw it; a reset to the same offset is a write.
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        Map<TopicPartition, Long> seen = new java.util.HashMap<>();
        Map<TopicPartition, Long> created = new java.util.HashMap<>();
        for (TopicPartition tp : List.of(tp(0), tp(1))) {
            ClaimResult.Claimed c = claimed(g, tp, "m1");
            CommitOutcome out = g.commit(
                    "m1",
                    1,
                    List.of(commitOf(tp, 10, c.offset().version(), c.lease().session())));
            seen.put(tp, out.committed().get(tp));
            created.put(tp, out.created().getOrDefault(tp, 0L));
        }

        expire(s);
        setOffsetByHand(offsetPath(group, tp(0)), 10); // the offset the member saw, written again
        ClaimResult.Claimed edited = claimed(g, tp(0), "m1");
        ClaimResult.Claimed untouched = claimed(g, tp(1), "m1");

        assertThat(edited.offset().offset()).hasValue(10);
        assertThat(g.unwrittenSince(tp(0), edited.offset(), seen.get(tp(0)), created.get(tp(0))))
                .as("an operator's write of the same offset")
                .isFalse();
        assertThat(untouched.offset().version()).as("a claim moves the version").isNotEqualTo(seen.get(tp(1)));
        assertThat(g.unwrittenSince(tp(1), untouched.offset(), seen.get(tp(1)), created.get(tp(1))))
                .as("claims only since")
                .isTrue();
    }

    // ------------------------------------------------------------------ commit

    @Test
    void aCommitAtTheVersionSeenIsWrittenAndAHandEditFencesTheNext() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        long session = c.lease().session();

        CommitOutcome first =
                g.commit("m1", 1, List.of(commitOf(tp(0), 10, c.offset().version(), session)));
        assertThat(first.conflicted()).isEmpty();
        long v = first.committed().get(tp(0));
        assertThat(v)
                .isEqualTo(g.readOffset(tp(0), null).version())
                .isGreaterThan(c.offset().version());
        assertThat(storedOffset(g, tp(0))).hasValue(10);

        setOffsetByHand(offsetPath(group, tp(0)), 99);
        CommitOutcome fenced = g.commit("m1", 1, List.of(commitOf(tp(0), 11, v, session)));
        assertThat(fenced.conflicted()).containsExactly(tp(0));
        assertThat(fenced.committed()).isEmpty();
        assertThat(storedOffset(g, tp(0))).as("the edit wins").hasValue(99);
    }

    @Test
    void aCommitThatCreatesTheOffsetNodeReportsTheNewIncarnation() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c0 = claimed(g, tp(0), "m1");
        ClaimResult.Claimed c1 = claimed(g, tp(1), "m1");
        deleteByHand(offsetPath(group, tp(0))); // the owner's next commit creates it again
        long absent = g.ownedVersion(tp(0), "m1", c0.lease().session()).orElseThrow();
        setOffsetByHand(offsetPath(group, tp(1)), 50); // and this one is fenced: the batch's failed operation is late

        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(
                        commitOf(tp(0), 7, absent, c0.lease().session()),
                        commitOf(tp(1), 8, c1.offset().version(), c1.lease().session())));
        assertThat(out.conflicted()).containsExactly(tp(1));
        assertThat(out.committed()).containsOnlyKeys(tp(0));
        OffsetSnapshot now = g.readOffset(tp(0), null);
        assertThat(out.committed().get(tp(0))).isEqualTo(now.version());
        assertThat(out.createdOf(tp(0)))
                .as("the incarnation of the node the commit created")
                .isEqualTo(now.created())
                .isNotZero()
                .isNotEqualTo(c0.offset().created());
        assertThat(storedOffset(g, tp(0))).hasValue(7);
        assertThat(storedOffset(g, tp(1))).hasValue(50);
    }

    @Test
    void aBatchCommitWritesTheRestWhenOnePartitionIsFenced() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c0 = claimed(g, tp(0), "m1");
        ClaimResult.Claimed c1 = claimed(g, tp(1), "m1");
        setOffsetByHand(offsetPath(group, tp(0)), 50);

        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(
                        commitOf(tp(0), 1, c0.offset().version(), c0.lease().session()),
                        commitOf(tp(1), 2, c1.offset().version(), c1.lease().session())));
        assertThat(out.conflicted()).containsExactly(tp(0));
        assertThat(out.committed()).containsOnlyKeys(tp(1));
        assertThat(storedOffset(g, tp(0))).hasValue(50);
        assertThat(storedOffset(g, tp(1))).hasValue(2);
    }

    @Test
    void aCommitWhoseOwnerNodeIsGoneIsConflicted() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        deleteByHand(ownerPath(group, tp(0)));

        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(commitOf(tp(0), 10, c.offset().version(), c.lease().session())));
        assertThat(out.conflicted()).containsExactly(tp(0));
        assertThat(storedOffset(g, tp(0))).isEmpty();
    }

    /** Mirrored by the in-memory store, which behaves as the ZooKeeper store does: fix both. */
    @Test
    @Disabled(
            "a precondition of the SPI, not enforced: ZooKeeper's multi can check a node's version but not whose"
                    + " ephemeral node it is, so a fenced write cannot tell a stranger that read the current version from the"
                    + " owner without one more read per commit and release (on the hot path of every handoff). The member only"
                    + " presents versions from its own claim, commit or readIfOwned; GroupStore's javadoc states the precondition")
    void aMemberThatDoesNotHoldThePartitionCannotCommitOrReleaseItEvenAtTheCurrentVersion() {
        String group = newGroup();
        GroupStore owner = GroupStores.of(store(), group);
        CoordinationStore otherStore = store();
        GroupStore other = GroupStores.of(otherStore, group);
        owner.ensureGroup("sticky");
        claimed(owner, tp(0), "m1");
        long current = other.readOffset(tp(0), null).version();

        CommitOutcome out = other.commit("m2", 1, List.of(commitOf(tp(0), 666, current, otherStore.sessionId())));
        assertThat(out.conflicted()).containsExactly(tp(0));
        assertThat(storedOffset(owner, tp(0))).isEmpty();
        other.release(tp(0), "m2", current, otherStore.sessionId());
        assertThat(owner.readOwner(tp(0)))
                .as("the owner's node survives a stranger's release")
                .isPresent();
    }

    @Test
    void aCommitPreparedInAnEarlierSessionIsRefusedAndWritesNothing() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");

        expire(s);
        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(commitOf(tp(0), 10, c.offset().version(), c.lease().session())));
        assertThat(out.conflicted()).containsExactly(tp(0));
        assertThat(out.committed()).isEmpty();
        assertThat(g.readOffset(tp(0), null).version()).isEqualTo(c.offset().version());
        assertThat(storedOffset(g, tp(0))).isEmpty();
    }

    @Test
    void aRecreatedOffsetNodeWithItsVersionBackAtTheSameNumberStillRefusesAWriteFromTheOldSession() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed old = claimed(g, tp(0), "m1");

        expire(s);
        deleteByHand(offsetPath(group, tp(0)));
        deleteByHand(fencePath(group, tp(0))); // the version the store reports rests on both nodes
        ClaimResult.Claimed fresh = claimed(g, tp(0), "m1");
        assertThat(fresh.offset().version())
                .as("the node was created again: its version repeats")
                .isEqualTo(old.offset().version());
        assertThat(fresh.lease().session()).isNotEqualTo(old.lease().session());

        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(commitOf(tp(0), 10, old.offset().version(), old.lease().session())));
        assertThat(out.conflicted()).containsExactly(tp(0));
        assertThat(storedOffset(g, tp(0))).isEmpty();
        assertThat(g.release(tp(0), "m1", old.offset().version(), old.lease().session()))
                .isFalse();
        assertThat(g.releaseAll(
                        "m1",
                        1,
                        List.of(finalCommit(
                                tp(0), 10, old.offset().version(), old.lease().session()))))
                .isEmpty();
        assertThat(g.readOwner(tp(0))).as("the old lease released nothing").isPresent();
        assertThat(g.readIfOwned(tp(0), "m1", old.lease().session())).isEmpty();
        assertThat(g.ownedVersion(tp(0), "m1", old.lease().session())).isEmpty();
        assertThat(storedOffset(g, tp(0))).isEmpty();
    }

    // ------------------------------------------------------------------ release

    // ------------------------------------------------------------------ done values beside the offset

    private static final String DONE = "{\"from\":10,\"ranges\":[[12,14],[17,17]]}";

    private static CommitRequest commitOf(TopicPartition tp, long offset, long version, long session, String done) {
        return new CommitRequest(tp, offset, version, session, OptionalLong.empty(), "", Optional.of(done));
    }

    @Test
    void aDoneValueIsWrittenBesideTheOffsetInTheNodeAndReadBackByTheNextOwnersClaim() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        assertThat(c.offset().done()).as("a new node has none").isEmpty();

        CommitOutcome out = g.commit(
                "m1",
                1,
                List.of(commitOf(tp(0), 10, c.offset().version(), c.lease().session(), DONE)));
        assertThat(out.committed()).containsOnlyKeys(tp(0));
        assertThat(g.readOffset(tp(0), null).done()).hasValue(DONE);
        String raw = new String(readByHand(offsetPath(group, tp(0))), StandardCharsets.UTF_8);
        assertThat(raw)
                .as("raw JSON beside the offset, not a string inside metadata")
                .contains("\"done\":" + DONE)
                .contains("\"metadata\":\"\"");

        long v = out.committed().get(tp(0));
        assertThat(g.release(tp(0), "m1", v, c.lease().session())).isTrue();
        GroupStore other = GroupStores.of(store(), group);
        ClaimResult.Claimed next = claimed(other, tp(0), "m2");
        assertThat(next.offset().offset()).hasValue(10);
        assertThat(next.offset().done()).hasValue(DONE);
    }

    @Test
    void aCommitWithoutADoneValueWritesTodaysNodeByteForByteAndClearsTheOneStored() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        long session = c.lease().session();
        long v = g.commit("m1", 1, List.of(commitOf(tp(0), 10, c.offset().version(), session, DONE)))
                .committed()
                .get(tp(0));

        g.commit("m1", 1, List.of(commitOf(tp(0), 11, v, session)));

        assertThat(g.readOffset(tp(0), null).done()).isEmpty();
        String raw = new String(readByHand(offsetPath(group, tp(0))), StandardCharsets.UTF_8);
        String at = raw.replaceAll(".*\"updatedAt\":\"([^\"]+)\".*", "$1");
        String firstAt = raw.replaceAll(".*\"history\":\\[\\[10,null,\"([^\"]+)\"\\].*", "$1");
        assertThat(raw)
                .isEqualTo(
                        "{\"offset\":11,\"metadata\":\"\",\"committedBy\":\"m1\",\"generation\":1," + "\"updatedAt\":\""
                                + at + "\",\"history\":[[10,null,\"" + firstAt + "\"],[11,null,\"" + at + "\"]]}");
    }

    @Test
    void aFinalCommitsDoneValueGoesWithTheRelease() {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        CommitRequest last = commitOf(tp(0), 10, c.offset().version(), c.lease().session(), DONE);

        assertThat(g.releaseAll(
                        "m1",
                        1,
                        List.of(new ReleaseRequest(
                                tp(0), c.offset().version(), c.lease().session(), Optional.of(last)))))
                .containsExactly(tp(0));

        assertThat(claimed(GroupStores.of(store(), group), tp(0), "m2").offset().done())
                .hasValue(DONE);
    }

    @Test
    void aBodyOverTheSizeLimitIsRefusedWithOneClearErrorAndNothingIsWritten() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c0 = claimed(g, tp(0), "m1");
        ClaimResult.Claimed c1 = claimed(g, tp(1), "m1");
        String huge = "{\"from\":10,\"bits\":\"" + "A".repeat(70 * 1024) + "\"}";

        assertThatThrownBy(() -> g.commit(
                        "m1",
                        1,
                        List.of(
                                commitOf(
                                        tp(1),
                                        5,
                                        c1.offset().version(),
                                        c1.lease().session()),
                                commitOf(
                                        tp(0),
                                        10,
                                        c0.offset().version(),
                                        c0.lease().session(),
                                        huge))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(tp(0).toString())
                .hasMessageContaining("over the limit of 65536 bytes");
        assertThat(g.readOffset(tp(0), null).version()).isEqualTo(c0.offset().version());
        assertThat(g.readOffset(tp(1), null).version())
                .as("the whole commit refused")
                .isEqualTo(c1.offset().version());
        assertThatThrownBy(() -> g.commit(
                        "m1",
                        1,
                        List.of(commitOf(
                                tp(0), 10, c0.offset().version(), c0.lease().session(), "{\"from\":10"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one JSON object");
    }

    @Test
    void aNodeWithoutADoneValueOrWithAFieldOfALaterVersionReadsAsBefore() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        writeByHand(
                offsetPath(group, tp(0)),
                "{\"offset\":42,\"metadata\":\"m\",\"committedBy\":\"old\","
                        + "\"generation\":3,\"updatedAt\":\"2026-12-01T00:00:00Z\"}");
        OffsetSnapshot old = g.readOffset(tp(0), null);
        assertThat(old.offset()).hasValue(42);
        assertThat(old.done()).isEmpty();

        writeByHand(
                offsetPath(group, tp(0)),
                "{\"offset\":43,\"metadata\":\"m\",\"later\":{\"x\":[1]}," + "\"done\":\"not an object\"}");
        OffsetSnapshot later = g.readOffset(tp(0), null);
        assertThat(later.offset()).hasValue(43);
        assertThat(later.metadata()).isEqualTo("m");
        assertThat(later.done())
                .as("a done value that is not an object is none")
                .isEmpty();
        assertThat(c.offset().done()).isEmpty();
    }

    @Test
    void releaseIsFencedByTheVersionAndTheSession() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");

        assertThat(g.release(tp(0), "m1", c.offset().version(), c.lease().session() + 1))
                .isFalse();
        setOffsetByHand(offsetPath(group, tp(0)), 3);
        assertThat(g.release(tp(0), "m1", c.offset().version(), c.lease().session()))
                .isFalse();
        assertThat(g.readOwner(tp(0))).isPresent();

        long moved = g.ownedVersion(tp(0), "m1", c.lease().session()).orElseThrow();
        assertThat(moved).isGreaterThan(c.offset().version());
        assertThat(g.release(tp(0), "m1", moved, c.lease().session())).isTrue();
        assertThat(g.readOwner(tp(0))).isEmpty();
        assertThat(g.release(tp(0), "m1", moved, c.lease().session()))
                .as("already released")
                .isTrue();
        assertThat(storedOffset(g, tp(0))).as("a release writes no offset").hasValue(3);
    }

    @Test
    void releaseAllWritesTheFinalCommitsWithTheRelease() {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c0 = claimed(g, tp(0), "m1");
        ClaimResult.Claimed c1 = claimed(g, tp(1), "m1");

        Set<TopicPartition> released = g.releaseAll(
                "m1",
                1,
                List.of(
                        finalCommit(tp(0), 10, c0.offset().version(), c0.lease().session()),
                        new ReleaseRequest(
                                tp(1), c1.offset().version(), c1.lease().session(), Optional.empty())));
        assertThat(released).containsExactlyInAnyOrder(tp(0), tp(1));
        assertThat(g.readOwner(tp(0))).isEmpty();
        assertThat(g.readOwner(tp(1))).isEmpty();
        assertThat(storedOffset(g, tp(0))).hasValue(10);
        assertThat(storedOffset(g, tp(1))).isEmpty();
    }

    @Test
    void releaseAllCreatesTheFinalOffsetOfAPartitionWithoutAnOffsetNode() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        deleteByHand(offsetPath(group, tp(0)));
        long absent = g.ownedVersion(tp(0), "m1", c.lease().session()).orElseThrow();
        assertThat(g.readOffset(tp(0), null).offset()).isEmpty();
        assertThat(absent).as("the fence node still stands").isNotEqualTo(OffsetSnapshot.ABSENT);

        Set<TopicPartition> released = g.releaseAll(
                "m1", 1, List.of(finalCommit(tp(0), 42, absent, c.lease().session())));
        assertThat(released).containsExactly(tp(0));
        assertThat(g.readOwner(tp(0))).isEmpty();
        assertThat(storedOffset(g, tp(0))).hasValue(42);
    }

    @Test
    void releaseAllLeavesOutAPartitionWhoseVersionMovedAndReleasesTheRest() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c0 = claimed(g, tp(0), "m1");
        ClaimResult.Claimed c1 = claimed(g, tp(1), "m1");
        ClaimResult.Claimed c2 = claimed(g, tp(2), "m1");
        setOffsetByHand(offsetPath(group, tp(1)), 77);

        Set<TopicPartition> released = g.releaseAll(
                "m1",
                1,
                List.of(
                        finalCommit(tp(0), 10, c0.offset().version(), c0.lease().session()),
                        finalCommit(tp(1), 11, c1.offset().version(), c1.lease().session()),
                        finalCommit(tp(2), 12, c2.offset().version(), c2.lease().session())));
        assertThat(released).containsExactlyInAnyOrder(tp(0), tp(2));
        assertThat(storedOffset(g, tp(0))).hasValue(10);
        assertThat(storedOffset(g, tp(1)))
                .as("the edit wins over the final commit")
                .hasValue(77);
        assertThat(storedOffset(g, tp(2))).hasValue(12);
        assertThat(g.readOwner(tp(1)).orElseThrow().memberId()).isEqualTo("m1");
        assertThat(g.readOwner(tp(0))).isEmpty();
        assertThat(g.readOwner(tp(2))).isEmpty();
    }

    // ------------------------------------------------------------------ readIfOwned / ownedVersion / readOwner

    @Test
    void readIfOwnedAndOwnedVersionAnswerOnlyTheOwnerInItsSession() {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        long session = c.lease().session();

        assertThat(g.readIfOwned(tp(0), "m1", session).orElseThrow().version())
                .isEqualTo(c.offset().version());
        assertThat(g.ownedVersion(tp(0), "m1", session)).hasValue(c.offset().version());
        assertThat(g.readIfOwned(tp(0), "m2", session)).isEmpty();
        assertThat(g.ownedVersion(tp(0), "m2", session)).isEmpty();
        assertThat(g.ownedVersion(tp(1), "m1", session)).as("not claimed").isEmpty();
        CoordinationStore other = store();
        assertThat(GroupStores.of(other, group).readIfOwned(tp(0), "m1", other.sessionId()))
                .isEmpty();
        assertThat(GroupStores.of(other, group).ownedVersion(tp(0), "m1", session))
                .as("not that store's session")
                .isEmpty();
    }

    @Test
    void ownedVersionWorksOnACorruptOffsetNodeWhereReadIfOwnedThrows() throws Exception {
        String group = newGroup();
        GroupStore g = GroupStores.of(store(), group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        long session = c.lease().session();
        writeGarbageByHand(offsetPath(group, tp(0)));

        assertThatThrownBy(() -> g.readIfOwned(tp(0), "m1", session))
                .isInstanceOf(CorruptNodeException.class)
                .hasMessageContaining(offsetPath(group, tp(0)));
        long version = g.ownedVersion(tp(0), "m1", session).orElseThrow();
        assertThat(version).isGreaterThan(c.offset().version());
        assertThat(g.release(tp(0), "m1", version, session)).isTrue();
        assertThat(g.readOwner(tp(0))).isEmpty();
    }

    // ------------------------------------------------------------------ fencing tokens

    @Test
    void fencingTokensGrowWithEveryChangeOfHandsAlsoAcrossARecreatedOffsetNode() throws Exception {
        String group = newGroup();
        GroupStore a = GroupStores.of(store(), group);
        GroupStore b = GroupStores.of(store(), group);
        a.ensureGroup("sticky");

        ClaimResult.Claimed first = claimed(a, tp(0), "m1");
        assertThat(a.release(
                        tp(0), "m1", first.offset().version(), first.lease().session()))
                .isTrue();
        ClaimResult.Claimed second = claimed(b, tp(0), "m2");
        assertThat(b.release(
                        tp(0), "m2", second.offset().version(), second.lease().session()))
                .isTrue();
        deleteByHand(offsetPath(group, tp(0)));
        deleteByHand(fencePath(group, tp(0)));
        ClaimResult.Claimed third = claimed(a, tp(0), "m1");

        assertThat(third.offset().version())
                .as("version restarted")
                .isEqualTo(first.offset().version());
        assertThat(second.lease().fencingToken()).isGreaterThan(first.lease().fencingToken());
        assertThat(third.lease().fencingToken()).isGreaterThan(second.lease().fencingToken());
    }

    // ------------------------------------------------------------------ connection

    @Test
    void whileDisconnectedEveryCallFailsAndTheSessionSurvivesAShortOutage() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.ensureGroup("sticky");
        ClaimResult.Claimed c = claimed(g, tp(0), "m1");
        List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
        s.addConnectionListener(events::add);
        long session = s.sessionId();

        dropConnection(s);
        try {
            await().until(() -> events.contains(ConnectionEvent.SUSPENDED));
            assertThat(s.isConnected()).isFalse();
            assertThatThrownBy(() -> g.readOffset(tp(0), null)).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> g.claim(tp(1), "m1", 1, new Hook())).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> g.commit(
                            "m1", 1, List.of(commitOf(tp(0), 1, c.offset().version(), session))))
                    .isInstanceOf(StoreException.class);
        } finally {
            restoreConnection(s);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> events.contains(ConnectionEvent.RECONNECTED));
        assertThat(events).containsExactly(ConnectionEvent.SUSPENDED, ConnectionEvent.RECONNECTED);
        assertThat(s.isConnected()).isTrue();
        assertThat(s.sessionId()).isEqualTo(session);
        assertThat(g.readOwner(tp(0)).orElseThrow().currentSession()).isTrue();
        assertThat(g.commit("m1", 1, List.of(commitOf(tp(0), 1, c.offset().version(), session)))
                        .committed())
                .containsOnlyKeys(tp(0));
    }

    @Test
    void anExpiredSessionIsReportedLostThenANewSessionAndItsEphemeralNodesAreGone() throws Exception {
        String group = newGroup();
        CoordinationStore s = store();
        GroupStore g = GroupStores.of(s, group);
        g.join("sticky", member("m1"));
        claimed(g, tp(0), "m1");
        List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
        s.addConnectionListener(events::add);
        long old = s.sessionId();

        expire(s);
        await().until(() -> events.contains(ConnectionEvent.RECONNECTED_NEW_SESSION));
        // Up to the new session only: what the new session meets later is not this case's (under load a real
        // client's new connection was once reported LOST and RECONNECTED again right after, in that new session).
        List<ConnectionEvent> untilNew =
                List.copyOf(events.subList(0, events.indexOf(ConnectionEvent.RECONNECTED_NEW_SESSION) + 1));
        assertThat(untilNew).contains(ConnectionEvent.LOST).doesNotContain(ConnectionEvent.RECONNECTED);
        assertThat(untilNew.indexOf(ConnectionEvent.LOST))
                .isLessThan(untilNew.indexOf(ConnectionEvent.RECONNECTED_NEW_SESSION));
        assertThat(s.sessionId()).isNotEqualTo(old).isNotZero();
        assertThat(g.readOwner(tp(0))).isEmpty();
        assertThat(g.isRegistered("m1")).isFalse();
        assertThat(g.readMembers(null).members()).isEmpty();
    }

    // ------------------------------------------------------------------ topics

    @Test
    void topicRegistryRaisesCountsFiresItsHookAndRefusesToLowerThem() {
        CoordinationStore s = store();
        String topic = "topic-" + newGroup();
        s.topics().ensureTopic(topic, 2);
        Hook changed = new Hook();
        assertThat(store().topics().partitionCounts(List.of(topic, "missing-" + topic), changed))
                .containsExactly(Map.entry(topic, 2));

        s.topics().ensureTopic(topic, 4);
        await().until(changed::fired);
        assertThat(s.topics().partitionCount(topic)).hasValue(4);
        assertThatThrownBy(() -> s.topics().ensureTopic(topic, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.topics().list()).containsEntry(topic, 4);

        s.topics().delete(topic);
        assertThat(s.topics().partitionCount(topic)).isEmpty();
    }
}

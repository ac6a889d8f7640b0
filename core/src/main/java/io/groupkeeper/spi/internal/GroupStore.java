package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.StoreException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The per-group primitives of the protocol. Every method is a synchronous round trip (or a few); every
 * {@code Runnable} hook is a one-shot notification that runs at most once, on a store thread, after which the
 * caller reads again (and so re-arms). Hooks may also fire spuriously; callers compare what they read.
 *
 * <p>The fencing contract (invariants I1, I2, I4):
 * <ul>
 *   <li>{@link #claim} takes a partition only if no owner holds it, and in the same atomic write moves the version
 *   the store reports for the partition (ZooKeeper's store: a fence node beside the offset node, whose version is one
 *   half of it), so that version moves on every change of hands;</li>
 *   <li>{@link #commit} writes only if this member's owner node still exists and the offset node still has the
 *   version the member last saw; any other writer (a new owner, an admin, a hand edit) moves the version;</li>
 *   <li>{@link #release} and {@link #releaseAll} delete the owner node only under the same version check (and
 *   {@code releaseAll} writes a final commit in the same atomic write);</li>
 *   <li>every fenced write names the store session of the claim it rests on ({@link Lease#session()}) and never
 *   takes effect in another session: a node deleted and created again restarts its version, so a version seen in one
 *   session proves nothing in the next.</li>
 * </ul>
 * A precondition for callers: the expected version of a commit or release comes from the caller's own claim, commit,
 * {@link #readIfOwned} or {@link #ownedVersion}, never from a plain {@link #readOffset}. ZooKeeper can check a node's
 * version in a transaction but not whose ephemeral node the owner node is, so a caller that presented a version it
 * merely read could write over the owner's offset.
 */
public interface GroupStore {

    String groupId();

    /** Creates the group's nodes if missing; records the assignor name on creation. */
    void ensureGroup(String assignor);

    /** Registers an ephemeral member node; throws {@link MemberIdInUseException} if another session holds it. */
    Registration registerMember(MemberInfo info);

    /**
     * {@link #ensureGroup} then {@link #registerMember}: what a member does as it starts. A store may overlap the two
     * (ZooKeeper sends the group check and the member node's creation together: one round trip instead of two, on the
     * path of every join); the result must be the same.
     */
    default Registration join(String assignor, MemberInfo info) {
        ensureGroup(assignor);
        return registerMember(info);
    }

    /** Whether the member node of {@code memberId} exists in this store's current session. */
    boolean isRegistered(String memberId);

    /**
     * Removes the member node of {@code memberId} if it exists in this store's current session; nothing otherwise. For
     * a member whose registration failed although it may have landed (its reply lost with the connection: neither
     * ZooKeeper's client nor the store can tell), so that its failed start leaves no member node behind. Throws a
     * {@link StoreException} when the store cannot tell (the node may still be there).
     */
    void deregisterMember(String memberId);

    /**
     * The live members; {@code onChange} runs once when membership changes, or when the store cannot tell whether it
     * did (after a reconnect). The leader calls this on every rebalance: a store may keep a standing watch and answer
     * from memory (ZooKeeper does); the same hook object passed again is armed once.
     */
    MembersSnapshot readMembers(Runnable onChange);

    /** A participant in this group's leader election. */
    LeaderElection election(String participantId, LeadershipListener listener);

    /** The currently published assignment (all targets). */
    AssignmentSnapshot readAssignment();

    /** One member's target, if published; {@code onChange} runs once when it changes or appears. */
    Optional<TargetAssignment> readTarget(String memberId, Runnable onChange);

    /**
     * Tries to take ownership of {@code tp} for {@code memberId}. If the owner node already belongs to this member
     * in the current session (a reconnect), ownership is re-confirmed and the offset version moved as for a fresh
     * claim. If it belongs to this member from an earlier session, that stale node is removed first. When the result
     * is {@link ClaimResult.Busy} or {@link ClaimResult.Blocked}, {@code onChange} runs once when that may change.
     */
    ClaimResult claim(TopicPartition tp, String memberId, long generation, Runnable onChange);

    /**
     * {@link #claim} of each partition of {@code partitions}, with the same outcomes, the same hook and the same
     * guarantees for each; returns when every claim is done, one future per partition, completed (exceptionally with
     * the claim's exception when that claim failed: it may have landed). A store whose claims are
     * independent round trips sends them together (ZooKeeper pipelines them on the session's connection), so a member
     * that takes over k partitions waits about one claim's latency rather than k of them. By default, one claim after
     * another.
     */
    default Map<TopicPartition, CompletableFuture<ClaimResult>> claimAll(
            List<TopicPartition> partitions, String memberId, long generation, Runnable onChange) {
        Map<TopicPartition, CompletableFuture<ClaimResult>> results = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            try {
                results.put(tp, CompletableFuture.completedFuture(claim(tp, memberId, generation, onChange)));
            } catch (RuntimeException e) {
                results.put(tp, CompletableFuture.failedFuture(e));
            }
        }
        return results;
    }

    /**
     * Fenced batch commit on behalf of {@code memberId}; see the class comment. A request whose session is not the
     * store's current one is refused (conflicted) without being sent.
     */
    CommitOutcome commit(String memberId, long generation, List<CommitRequest> requests);

    /**
     * Deletes {@code memberId}'s owner node of {@code tp} if the offset node still has {@code expectedVersion} (with
     * {@link OffsetSnapshot#ABSENT}: if no offset node exists) and the store is still in {@code session}. Returns true
     * when the owner node is gone (released now, or no longer there); false, changing nothing, if the version moved
     * or the session is another one: the caller resolves with {@link #ownedVersion}.
     */
    boolean release(TopicPartition tp, String memberId, long expectedVersion, long session);

    /**
     * Releases several of {@code memberId}'s partitions with few round trips: each batch is one atomic write that, per
     * partition, writes its final commit (or checks the offset node's version) and deletes the owner node. A partition
     * whose offset version moved or whose owner node is gone is left out and the rest written again. A final commit
     * of a partition without an offset node ({@link OffsetSnapshot#ABSENT}) creates it. Returns the partitions
     * released; the caller releases the others one by one with {@link #release} (their final commits are then not
     * written: fenced). A transaction that was not sent or whose answer was lost (connection loss) throws {@link
     * StoreException}: those partitions are not fenced, and the caller tries them again, final offsets and all.
     */
    Set<TopicPartition> releaseAll(String memberId, long generation, List<ReleaseRequest> releases);

    /**
     * The offset of {@code tp}; {@code onChange} (nullable) runs once when the offset node changes, at the latest when
     * the connection comes back if it changed meanwhile. A store may leave out this store's own {@link #commit}s (the
     * owner arms the hook to hear of everyone else's writes: an operator's edit, a new owner's claim); the ZooKeeper
     * store does, so a commit costs no read.
     */
    OffsetSnapshot readOffset(TopicPartition tp, Runnable onChange);

    /**
     * The offset, if {@code memberId} holds {@code tp} in {@code session} and that is this store's current session;
     * empty otherwise. Throws {@link CorruptNodeException} when the offset node cannot be decoded.
     */
    Optional<OffsetSnapshot> readIfOwned(TopicPartition tp, String memberId, long session);

    /**
     * The offset node's version ({@link OffsetSnapshot#ABSENT} when there is none), if {@code memberId} holds {@code
     * tp} in {@code session} and that is this store's current session; empty otherwise. Decodes no offset body, so a
     * partition whose offset node is corrupt can still be released.
     */
    OptionalLong ownedVersion(TopicPartition tp, String memberId, long session);

    /**
     * Whether the offset node of {@code tp} as a {@link #claim} of this store returned it ({@code claimed}) is still
     * the write this member saw at {@code version} of incarnation {@code created} (0: unknown) before that claim:
     * nobody, not an operator either, wrote the node in between, even with the same offset. Claims move the version
     * without writing the node, so the versions alone cannot tell; a store that keeps them apart says so here. The
     * default compares the versions, so it answers false after any claim: the caller then writes nothing over it.
     */
    default boolean unwrittenSince(TopicPartition tp, OffsetSnapshot claimed, long version, long created) {
        return !claimed.differsFrom(version, created);
    }

    /** The owner of {@code tp}, if any. */
    Optional<OwnerInfo> readOwner(TopicPartition tp);
}

package io.groupkeeper;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;

/**
 * One member of one consumer group. Created by {@link GroupKeeper#member(String)}; lifecycle
 * LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED.
 *
 * <p>{@link #commit}, {@link #refresh} and the queries are thread-safe; the intended caller is the single thread that
 * processes the member's partitions.
 */
public interface GroupMember extends AutoCloseable {

    String groupId();

    /** This member's id: its static instance id if it has one, else a generated id. */
    String memberId();

    /** Registers the member, joins the leader election and starts following its target assignment. */
    void start();

    /**
     * As {@link #start()}, without waiting: the returned future completes when {@code start()} would have returned,
     * or exceptionally with what it would have thrown (the member is then closed). For a caller with its own start-up
     * work to overlap with the join: the Kafka adapter warms its {@code KafkaConsumer} up meanwhile. Completes on the
     * member's own thread; keep dependent actions short.
     */
    default CompletableFuture<Void> startAsync() {
        return CompletableFuture.runAsync(this::start);
    }

    /**
     * The partitions this member owns right now and has announced to its listener ({@code onPartitionsAssigned} has
     * been called for them): the ones user code may process and commit. A partition claimed but not yet announced is
     * left out, and a commit for it is refused ({@code NOT_OWNED}), so that a thread still working from an earlier
     * claim of the same partition can never write a stale position over what the new claim read.
     */
    SortedSet<TopicPartition> assignment();

    /**
     * The fencing token of an owned partition (announced to the listener; kept during its revocation callback): it
     * grows with every change of hands of that partition in this group and never repeats (ZooKeeper: the zxid of the
     * claim). The commit fence protects offsets only; hand this token to a downstream sink with each write so it can
     * refuse a writer whose token is older than one it has already seen (a paused or partitioned former owner that has
     * not noticed yet). Empty while the partition is not owned.
     */
    OptionalLong fencingToken(TopicPartition partition);

    /** The generation of the target assignment this member follows (0 before the first). */
    long generation();

    /** Whether this member is currently the group's elected rebalancer. */
    boolean isLeader();

    /**
     * Fenced commit of the next offsets to process. Written in one batch; only partitions this member owns are
     * written, and only if nobody else changed their stored offset since this member last saw it.
     */
    CommitResult commit(Map<TopicPartition, Long> offsets);

    /**
     * As {@link #commit(Map)}, also recording each partition's log end offset at the time (where known), so that
     * lag status (OK / WARN / STALL / STOP / REWIND) can be judged from the stored commits.
     */
    CommitResult commit(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets);

    /**
     * As {@link #commit(Map, Map)}, also writing each partition's offset metadata (absent: "", none): a
     * {@link io.groupkeeper.status.StoppedMark} while the consumer keeps the partition stopped, so that lag status says
     * STOP with its reason. A store that keeps no metadata ignores it (this default).
     */
    default CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata) {
        return commit(offsets, logEndOffsets);
    }

    /**
     * As {@link #commit(Map, Map, Map)}, also writing each partition's <em>done value</em> beside its offset, in the
     * same fenced write: the committer's record of the offsets above the committed one that are processed already
     * (the listener container writes its {@code ProgressCodec} text, one JSON object; groupkeeper stores it as it is
     * and gives it back with the offset, see {@link #done}). A partition absent from {@code done} is written without
     * one, which clears the value stored before: a done value never outlives the offset it was written with. A store
     * that keeps no done values ignores them (this default): the next owner then processes those records again.
     *
     * @throws IllegalArgumentException if a done value is not one JSON object
     */
    default CommitResult commit(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> metadata,
            Map<TopicPartition, String> done) {
        return commit(offsets, logEndOffsets, metadata);
    }

    /**
     * From inside {@link RebalanceListener#onPartitionsRevoked}: the final offsets of partitions being revoked, written
     * in the same atomic write that releases them once the callback returns — one round trip instead of a commit and
     * a release, so the next owner starts sooner. Fenced like {@link #commit}: if another writer (an admin, a hand
     * edit) changed a stored offset meanwhile, that change wins and the partition is released without this offset.
     * Returns the partitions whose offsets were taken; offsets of partitions not being revoked right now are refused
     * (commit those with {@link #commit}).
     */
    SortedSet<TopicPartition> commitOnRelease(
            Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets);

    /**
     * As {@link #commitOnRelease(Map, Map)}, also writing each partition's done value beside its final offset (see
     * {@link #commit(Map, Map, Map, Map)}): a graceful handover gives the next owner what is done above the offset, so
     * it processes none of it again. A store that keeps no done values ignores them (this default).
     *
     * @throws IllegalArgumentException if a done value is not one JSON object
     */
    default SortedSet<TopicPartition> commitOnRelease(
            Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> logEndOffsets,
            Map<TopicPartition, String> done) {
        return commitOnRelease(offsets, logEndOffsets);
    }

    /**
     * The done value stored beside the offset of an owned partition (see {@link #commit(Map, Map, Map, Map)}), as this
     * member last saw the node: inside {@link RebalanceListener#onPartitionsAssigned} the one read with the offset the
     * claim resumes from; after {@link #refresh} reports {@link CommitResult.Status#ADOPTED} the adopted node's (an
     * admin reset writes none); after a commit, what it wrote. Empty when the node has none, or the partition is not
     * owned (announced) by this member. The value may have been written with another offset than the one stored now
     * (an operator changed the offset by hand and left it): a reader checks it against the offset.
     */
    default Optional<String> done(TopicPartition partition) {
        return Optional.empty();
    }

    /**
     * The stored offset of an owned partition (announced) as this member last saw its node: inside
     * {@link RebalanceListener#onPartitionsAssigned} the one the claim resumes from; after an external change was
     * adopted ({@link #refresh} or a refused commit reporting {@link CommitResult.Status#ADOPTED}) the adopted one; after
     * a commit, what it wrote. {@link SeenOffset#notSeen()} when the partition is not owned (announced) by this member,
     * or the member has no store (this default); {@link SeenOffset#none()} when the node had no offset when the
     * partition was claimed, or its deletion (an operator's {@code offsets delete}) was adopted since: as in
     * {@link CommitResult#adoptedOffsets()}, a fresh start at the start position.
     *
     * <p>A thread that serves an assignment later than it was announced starts from this, not from the offset
     * announced: an operator's reset or deletion adopted meanwhile must not be overwritten.
     */
    default SeenOffset seenOffset(TopicPartition partition) {
        return SeenOffset.notSeen();
    }

    /**
     * Checks the stored offsets of these owned partitions and adopts external changes (admin reset, hand edit):
     * {@link CommitResult.Status#ADOPTED} with the offset to continue from, {@code UNCHANGED}, or {@code NOT_OWNED}.
     */
    CommitResult refresh(Collection<TopicPartition> partitions);

    /** The stored committed offset of any partition of this group, read from the store now. */
    OptionalLong committed(TopicPartition partition);

    /**
     * Graceful leave: revokes (the listener commits final offsets, best with {@link #commitOnRelease}), releases every
     * partition, leaves the group. While the connection is in doubt the partitions are stopped already (no commit);
     * the leave then waits for the connection's verdict, at most the store's session timeout from when the doubt
     * began: back in the same session, it releases what its session still holds, so that no owner or member node
     * outlives the member; the session over, nothing is left. A member closed by its keeper's {@code close()} does not
     * wait: the keeper's session ends right after.
     */
    @Override
    void close();

    /**
     * As {@link #close()}, without waiting: the returned future completes when the member has left. For a caller that
     * must not block (a simulation stepping every thread itself, a callback).
     */
    default CompletableFuture<Void> closeAsync() {
        return CompletableFuture.runAsync(this::close);
    }
}

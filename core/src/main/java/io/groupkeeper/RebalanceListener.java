package io.groupkeeper;

import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * User code's view of ownership changes. All callbacks of one member run on that member's callback thread, one at a
 * time, in the order the ownership changes happened: within one rebalance step {@link #onPartitionsRevoked} (then
 * those partitions are released), then {@link #onPartitionsAssigned} (possibly in several batches, as previous owners
 * release). {@link #onPartitionsLost} may come at any time; it is queued the instant the connection is in doubt, even
 * while the member's protocol thread waits on ZooKeeper. {@link GroupMember#close()} called from a callback proceeds
 * once that callback has returned.
 *
 * <p>Callbacks should be quick; a revocation may block until processing of the revoked partitions has stopped,
 * because the next owner starts only after this member released them (invariant I1). Exceptions and errors thrown
 * by a callback are logged and do not stop the protocol.
 */
public interface RebalanceListener {

    /**
     * These partitions are about to be released to another member. Stop processing them and hand over their final
     * offsets before returning: {@link GroupMember#commitOnRelease} writes them with the release (one round trip), or
     * {@link GroupMember#commit} writes them at once. After return the member releases ownership.
     *
     * <p>After a reconnection with the same session this may also name partitions already reported
     * {@linkplain #onPartitionsLost lost} that moved to another member meanwhile: their owner nodes are released once
     * this returns (commits for them are rejected; just make sure nothing processes them any more).
     */
    default void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {}

    /**
     * This member now exclusively owns these partitions. Each maps to its committed offset (the next offset to
     * process), or empty if none was ever committed: start there.
     */
    default void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {}

    /**
     * Ownership of these partitions was lost without a release (connection suspended, session expired, or a commit
     * was fenced). Stop processing them at once; commits for them will be rejected.
     */
    default void onPartitionsLost(SortedSet<TopicPartition> partitions) {}

    /**
     * Someone other than this member changed the stored offset of these owned partitions (an admin reset, a hand
     * edit). Call {@link GroupMember#refresh} from the processing thread and continue from the offsets it returns.
     * A commit made before that is not lost: it is refused and reported as adopted ({@link CommitResult}).
     */
    default void onOffsetsChanged(SortedSet<TopicPartition> partitions) {}

    /** A listener that does nothing. */
    RebalanceListener NOOP = new RebalanceListener() {};
}

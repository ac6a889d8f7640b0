package io.groupkeeper;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The result of {@link GroupMember#commit} or {@link GroupMember#refresh}, per partition.
 *
 * <ul>
 *   <li>{@link Status#COMMITTED}: the offset is stored.</li>
 *   <li>{@link Status#ADOPTED}: the stored offset had been changed by someone else (admin reset, hand edit); it was
 *   not overwritten. Continue processing from {@link #adoptedOffsets()} (empty: no offset, apply your start
 *   policy).</li>
 *   <li>{@link Status#NOT_OWNED}: this member does not own the partition (any more); nothing was written.</li>
 *   <li>{@link Status#UNCHANGED}: (refresh; or a commit that did not land and found instead an earlier commit of
 *   this member, whose reply was lost) the stored offset is the one this member last wrote.</li>
 * </ul>
 */
public record CommitResult(
        SortedMap<TopicPartition, Status> statuses, SortedMap<TopicPartition, OptionalLong> adoptedOffsets) {

    public enum Status {
        COMMITTED,
        ADOPTED,
        NOT_OWNED,
        UNCHANGED
    }

    public CommitResult {
        statuses = Collections.unmodifiableSortedMap(new TreeMap<>(statuses));
        adoptedOffsets = Collections.unmodifiableSortedMap(new TreeMap<>(adoptedOffsets));
    }

    public Status status(TopicPartition tp) {
        return statuses.get(tp);
    }

    /** True if every partition was committed (or unchanged). */
    public boolean allCommitted() {
        return statuses.values().stream().allMatch(s -> s == Status.COMMITTED || s == Status.UNCHANGED);
    }

    public static CommitResult of(Map<TopicPartition, Status> statuses, Map<TopicPartition, OptionalLong> adopted) {
        return new CommitResult(new TreeMap<>(statuses), new TreeMap<>(adopted));
    }
}

package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.util.OptionalLong;

/**
 * What the polling thread knows of one owned partition: its position, what the store holds, whether the out-of-range
 * policy stopped it, and its lag. Lives in {@link Positions}; touched by the polling thread only (except {@link #lag},
 * read by a gauge).
 */
final class OwnedPartition {

    final TopicPartition tp;
    final org.apache.kafka.common.TopicPartition ktp;
    /** The next offset to return to the user; -1 while the start position is unresolved. */
    long position = -1;
    /**
     * What commits write instead of {@link #position} when the caller processes records out of fetch order (the
     * listener container's low-water mark, {@code DefaultCoordinatedConsumer.commitAt}); -1: the position.
     */
    long commitAt = -1;
    /** The offset the store holds, as far as this consumer knows. */
    OptionalLong committed = OptionalLong.empty();
    /** The offset metadata to write with its commits ({@code CoordinatedConsumer.offsetMetadata}). */
    String metadata = "";
    /** The metadata the store holds as far as this consumer knows ("" at first; null: unknown, write it). */
    String committedMetadata = "";
    /**
     * The fencing token of the claim this partition was assigned under (-1: not known). Whatever acts for the partition
     * in Kafka (a transactional claim, a commit) does so only while the member still owns it under this token.
     */
    long token = -1;
    /** Stopped by outOfRange=fail. */
    boolean failed;
    /** The log end offset as of the last fetch, -1 while unknown (recorded with commits for lag status). */
    long logEnd = -1;
    /** Records not yet returned to the user ({@code logEnd - position}), -1 while unknown; read by a gauge. */
    volatile long lag = -1;

    OwnedPartition(TopicPartition tp) {
        this.tp = tp;
        this.ktp = Partitions.kafka(tp);
    }

    /** Fetched from: positioned, and not stopped by the out-of-range policy. */
    boolean active() {
        return position >= 0 && !failed;
    }

    /** Waiting for its start position (no stored offset, or the stored one was removed). */
    boolean unresolved() {
        return position < 0 && !failed;
    }

    /** The offset a commit writes: {@link #commitAt} if set, else the position. */
    long committable() {
        return commitAt >= 0 ? commitAt : position;
    }

    /** Its committable offset differs from what the store holds. */
    boolean dirty() {
        return active() && (committed.isEmpty() || committed.getAsLong() != committable()
                || !metadata.equals(committedMetadata));
    }

    /** Active and behind: worth a commit even when unchanged, so lag status can tell STALL from STOP. */
    boolean lagging() {
        return active() && lag > 0;
    }
}

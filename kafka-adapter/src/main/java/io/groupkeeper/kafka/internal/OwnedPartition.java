package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.util.Optional;
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
    /** The offset the store holds, as far as this consumer knows. */
    OptionalLong committed = OptionalLong.empty();
    /** The offset metadata to write with its commits ({@code CoordinatedConsumer.offsetMetadata}). */
    String metadata = "";
    /** The metadata the store holds as far as this consumer knows ("" at first; null: unknown, write it). */
    String committedMetadata = "";
    /** The stored offset and done value it was assigned (or adopted) with ({@link ProgressCommits}). */
    OptionalLong resumeOffset = OptionalLong.empty();

    Optional<String> resumeDone = Optional.empty();
    /** The offset to commit instead of {@link #position}, -1: the position ({@link ProgressCommits#progress}). */
    long progressOffset = -1;
    /** The done value to write with its commits ({@link ProgressCommits#progress}). */
    Optional<String> done = Optional.empty();
    /** The done value the store holds as far as this consumer knows (null: unknown, write ours). */
    Optional<String> committedDone = Optional.empty();
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

    /** What its commits write as the offset: the container's low-water mark if it set one, else the position. */
    long commitOffset() {
        return progressOffset >= 0 ? progressOffset : position;
    }

    /** The stored offset was moved under it (adopted, corrected): the container's progress no longer applies. */
    void forgetProgress() {
        progressOffset = -1;
        done = Optional.empty();
    }

    /** What it commits differs from what the store holds. */
    boolean dirty() {
        return active()
                && (committed.isEmpty()
                        || committed.getAsLong() != commitOffset()
                        || !metadata.equals(committedMetadata)
                        || !done.equals(committedDone));
    }

    /** Active and behind: worth a commit even when unchanged, so lag status can tell STALL from STOP. */
    boolean lagging() {
        return active() && lag > 0;
    }
}

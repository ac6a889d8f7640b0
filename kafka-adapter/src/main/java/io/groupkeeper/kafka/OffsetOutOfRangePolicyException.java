package io.groupkeeper.kafka;

import io.groupkeeper.GroupKeeperException;
import org.apache.kafka.common.TopicPartition;

/**
 * Thrown once by {@link CoordinatedConsumer#poll} when a partition's offset is outside its log and the group's
 * {@link OutOfRangePolicy} is {@link OutOfRangePolicy#FAIL}. The partition has stopped (still owned by this member, so
 * nobody else consumes it); every other partition keeps flowing, and polling again is fine. Set the stored offset to a
 * valid one (admin reset or hand edit) and the consumer adopts it and resumes.
 */
public class OffsetOutOfRangePolicyException extends GroupKeeperException {

    private static final long serialVersionUID = 1L;

    private final String groupId;
    private final transient TopicPartition partition;
    private final long offset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangePolicyException(
            String groupId, TopicPartition partition, long offset, long logStartOffset, long logEndOffset) {
        super("group " + groupId + ": offset " + offset + " of " + partition.topic() + ":" + partition.partition()
                + " is "
                + (offset > logEndOffset
                        ? "above the log end " + logEndOffset
                        : "below the log start " + logStartOffset)
                + " (log " + logStartOffset + ".." + logEndOffset + "); outOfRange=fail: the "
                + "partition is stopped until its stored offset is set inside the log (admin reset or hand edit)");
        this.groupId = groupId;
        this.partition = partition;
        this.offset = offset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public String groupId() {
        return groupId;
    }

    public TopicPartition partition() {
        return partition;
    }

    /** The offset that was out of range (the stored one, or the position retention overtook). */
    public long offset() {
        return offset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /** The log end offset (the offset the next produced record will get). */
    public long logEndOffset() {
        return logEndOffset;
    }
}

package io.groupkeeper.spi;

import io.groupkeeper.TopicPartition;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One fenced offset write: succeeds only if the offset node still has {@code expectedVersion}. {@code logEnd} is the
 * partition's log end offset when the committer knows it; it is kept with the commit for lag status.
 */
public record CommitRequest(TopicPartition partition, long offset, String metadata, long expectedVersion,
                            OptionalLong logEnd) {

    public CommitRequest(TopicPartition partition, long offset, String metadata, long expectedVersion) {
        this(partition, offset, metadata, expectedVersion, OptionalLong.empty());
    }


    public CommitRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(logEnd, "logEnd");
        if (offset < 0) {
            throw new IllegalArgumentException("offset for " + partition + " must be >= 0, was " + offset);
        }
    }
}

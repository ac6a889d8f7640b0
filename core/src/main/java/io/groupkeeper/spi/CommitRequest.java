package io.groupkeeper.spi;

import io.groupkeeper.TopicPartition;
import java.util.Objects;

/** One fenced offset write: succeeds only if the offset node still has {@code expectedVersion}. */
public record CommitRequest(TopicPartition partition, long offset, String metadata, long expectedVersion) {

    public CommitRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(metadata, "metadata");
        if (offset < 0) {
            throw new IllegalArgumentException("offset for " + partition + " must be >= 0, was " + offset);
        }
    }
}

package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One fenced offset write: succeeds only if the offset node still has {@code expectedVersion} and the store is still
 * in {@code session}, the session of the claim that version was seen under (see {@link Lease}). {@code logEnd} is the
 * partition's log end offset when the committer knows it; it is kept with the commit for lag status. {@code metadata}
 * is written as the offset node's metadata ("" for none; e.g. a {@link io.groupkeeper.status.StoppedMark}).
 */
public record CommitRequest(TopicPartition partition, long offset, long expectedVersion, long session,
                            OptionalLong logEnd, String metadata) {

    public CommitRequest(TopicPartition partition, long offset, long expectedVersion, long session) {
        this(partition, offset, expectedVersion, session, OptionalLong.empty(), "");
    }

    public CommitRequest(TopicPartition partition, long offset, long expectedVersion, long session,
                         OptionalLong logEnd) {
        this(partition, offset, expectedVersion, session, logEnd, "");
    }

    public CommitRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(logEnd, "logEnd");
        Objects.requireNonNull(metadata, "metadata");
        if (offset < 0) {
            throw new IllegalArgumentException("offset for " + partition + " must be >= 0, was " + offset);
        }
    }
}

package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One fenced offset write: succeeds only if the offset node still has {@code expectedVersion} and the store is still
 * in {@code session}, the session of the claim that version was seen under (see {@link Lease}). {@code logEnd} is the
 * partition's log end offset when the committer knows it; it is kept with the commit for lag status. {@code metadata}
 * is written as the offset node's metadata ("" for none; e.g. a {@link io.groupkeeper.status.StoppedMark}).
 * {@code done} is written as the offset node's {@code "done"} value beside the offset: the committer's record of what
 * is done above it (the listener container's {@code ProgressCodec} text, a JSON object; opaque to core and to the
 * store, which only checks that it is one JSON object). Empty: the node gets none, so a commit without it clears the
 * one stored.
 */
public record CommitRequest(
        TopicPartition partition,
        long offset,
        long expectedVersion,
        long session,
        OptionalLong logEnd,
        String metadata,
        Optional<String> done) {

    public CommitRequest(TopicPartition partition, long offset, long expectedVersion, long session) {
        this(partition, offset, expectedVersion, session, OptionalLong.empty(), "", Optional.empty());
    }

    public CommitRequest(
            TopicPartition partition, long offset, long expectedVersion, long session, OptionalLong logEnd) {
        this(partition, offset, expectedVersion, session, logEnd, "");
    }

    public CommitRequest(
            TopicPartition partition,
            long offset,
            long expectedVersion,
            long session,
            OptionalLong logEnd,
            String metadata) {
        this(partition, offset, expectedVersion, session, logEnd, metadata, Optional.empty());
    }

    public CommitRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(logEnd, "logEnd");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(done, "done");
        if (offset < 0) {
            throw new IllegalArgumentException("offset for " + partition + " must be >= 0, was " + offset);
        }
    }
}

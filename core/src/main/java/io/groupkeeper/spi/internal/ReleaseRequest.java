package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import java.util.Objects;
import java.util.Optional;

/**
 * One partition to release, fenced like a commit: only if its offset node still has {@code expectedVersion}
 * ({@link OffsetSnapshot#ABSENT}: no offset node exists) and the store is still in {@code session}. With a
 * {@code finalCommit} (whose expected version and session are the same), the release also writes that offset.
 */
public record ReleaseRequest(
        TopicPartition partition, long expectedVersion, long session, Optional<CommitRequest> finalCommit) {

    public ReleaseRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(finalCommit, "finalCommit");
        finalCommit.ifPresent(c -> {
            if (!c.partition().equals(partition) || c.expectedVersion() != expectedVersion || c.session() != session) {
                throw new IllegalArgumentException("final commit " + c + " does not match the release of " + partition
                        + " at version " + expectedVersion + " in session 0x" + Long.toHexString(session));
            }
        });
    }
}

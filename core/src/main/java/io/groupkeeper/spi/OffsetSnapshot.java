package io.groupkeeper.spi;

import io.groupkeeper.status.CommitSample;
import java.util.List;
import java.util.OptionalLong;

/**
 * A stored offset with the version of the node that holds it. {@code offset} is the next offset to process
 * (Kafka's convention); empty when nothing was ever committed. {@code version} moves on every write by anyone:
 * a commit, a claim by a new owner, an admin reset or a hand edit. {@link #ABSENT} when the node does not exist.
 */
public record OffsetSnapshot(OptionalLong offset, String metadata, long version, List<CommitSample> history) {

    public static final long ABSENT = -1;

    public OffsetSnapshot {
        history = List.copyOf(history);
    }

    public OffsetSnapshot(OptionalLong offset, String metadata, long version) {
        this(offset, metadata, version, List.of());
    }

    public static OffsetSnapshot absent() {
        return new OffsetSnapshot(OptionalLong.empty(), "", ABSENT);
    }
}

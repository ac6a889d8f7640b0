package io.groupkeeper.spi.internal;

import io.groupkeeper.status.CommitSample;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A stored offset with the version of the node that holds it. {@code offset} is the next offset to process
 * (Kafka's convention); empty when nothing was ever committed. {@code version} moves on every write by anyone:
 * a commit, a claim by a new owner, an admin reset or a hand edit. {@link #ABSENT} when the node does not exist.
 * {@code created} tells one incarnation of the node from another (ZooKeeper: the zxid of its creation; 0 when unknown):
 * a node deleted and created again by hand restarts its version, so the same version of another incarnation is
 * another write. {@code done} is the node's {@code "done"} value as text (see {@link CommitRequest#done}), empty when
 * it has none.
 */
public record OffsetSnapshot(
        OptionalLong offset,
        String metadata,
        long version,
        List<CommitSample> history,
        long created,
        Optional<String> done) {

    public static final long ABSENT = -1;

    public OffsetSnapshot {
        history = List.copyOf(history);
        Objects.requireNonNull(done, "done");
    }

    public OffsetSnapshot(
            OptionalLong offset, String metadata, long version, List<CommitSample> history, long created) {
        this(offset, metadata, version, history, created, Optional.empty());
    }

    public OffsetSnapshot(OptionalLong offset, String metadata, long version, List<CommitSample> history) {
        this(offset, metadata, version, history, 0, Optional.empty());
    }

    public OffsetSnapshot(OptionalLong offset, String metadata, long version) {
        this(offset, metadata, version, List.of(), 0, Optional.empty());
    }

    /**
     * Whether this is a different state of the node than {@code version} of incarnation {@code created} (0: unknown,
     * then only the version is compared).
     */
    public boolean differsFrom(long version, long created) {
        return this.version != version || (this.created != 0 && created != 0 && this.created != created);
    }

    public static OffsetSnapshot absent() {
        return new OffsetSnapshot(OptionalLong.empty(), "", ABSENT);
    }
}

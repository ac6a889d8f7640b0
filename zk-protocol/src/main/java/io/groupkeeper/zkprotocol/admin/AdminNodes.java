package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.internal.GroupNodes;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import io.groupkeeper.zkprotocol.internal.TransactionBatcher;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;

/**
 * The node bodies an admin reads (group, assignment, member, target, owner, offset, topic) and the one it writes (an
 * offset), decoded and encoded by the store's own codec, so a node the admin calls corrupt is one the protocol calls
 * corrupt ({@link CorruptNodeException}, naming the path); the transaction that creates a group, as a joining member
 * would; and the size rule of one transaction. The admin's reads and writes go through its own client.
 */
public final class AdminNodes {

    /** The most one transaction may cost by default, below ZooKeeper's default {@code jute.maxbuffer} of 1 MiB. */
    public static final int MAX_TRANSACTION_BYTES = TransactionBatcher.MAX_TRANSACTION_BYTES;

    private AdminNodes() {}

    /** A group node: when it was created and its assignor. */
    public record Group(Instant createdAt, String assignor) {}

    /** The assignment node: the generation last published and who published it. */
    public record Assignment(long generation, Optional<String> leader) {}

    /** An owner node: the member holding the partition, the generation of its claim and since when. */
    public record Owner(String memberId, long generation, Instant since) {}

    /**
     * An offset node: the next offset to process (empty: nothing committed), its metadata, who wrote it in which
     * generation and when, the recent commits kept for lag status (the last ten), and its committer's done value
     * (what is processed above the offset, as JSON text; read it with {@link DoneValue}). The admin's writes build
     * their bodies without a done value, so a reset or an import clears it (I4).
     */
    public record Offset(
            OptionalLong offset,
            String metadata,
            Optional<String> committedBy,
            long generation,
            Optional<Instant> updatedAt,
            List<CommitSample> history,
            Optional<String> done) {

        public Offset {
            history = List.copyOf(history);
            Objects.requireNonNull(done, "done");
        }

        /** An offset node without a done value. */
        public Offset(
                OptionalLong offset,
                String metadata,
                Optional<String> committedBy,
                long generation,
                Optional<Instant> updatedAt,
                List<CommitSample> history) {
            this(offset, metadata, committedBy, generation, updatedAt, history, Optional.empty());
        }

        /** An offset node with no offset. */
        public static Offset none() {
            return of(NodeCodec.OffsetBody.none());
        }

        private static Offset of(NodeCodec.OffsetBody b) {
            return new Offset(
                    b.offset(), b.metadata(), b.committedBy(), b.generation(), b.updatedAt(), b.history(), b.done());
        }
    }

    /** {@code history} with {@code sample} appended, the oldest dropped beyond the length an offset node keeps. */
    public static List<CommitSample> append(List<CommitSample> history, CommitSample sample) {
        return NodeCodec.append(history, sample);
    }

    public static Group group(String path, byte[] data) {
        NodeCodec.GroupBody b = NodeCodec.group(path, data);
        return new Group(b.createdAt(), b.assignor());
    }

    public static Assignment assignment(String path, byte[] data) {
        NodeCodec.AssignmentBody b = NodeCodec.assignment(path, data);
        return new Assignment(b.generation(), b.leader());
    }

    public static MemberInfo member(String path, byte[] data) {
        return NodeCodec.member(path, data);
    }

    /** A member's target: the partitions the leader gave it. */
    public static SortedSet<TopicPartition> targetPartitions(String path, byte[] data) {
        return NodeCodec.target(path, data).partitions();
    }

    public static Owner owner(String path, byte[] data) {
        NodeCodec.OwnerBody b = NodeCodec.owner(path, data);
        return new Owner(b.memberId(), b.generation(), b.since());
    }

    public static Offset offset(String path, byte[] data) {
        return Offset.of(NodeCodec.offset(path, data));
    }

    /** An offset node's body as the store writes it. */
    public static byte[] encode(Offset offset) {
        return NodeCodec.offset(new NodeCodec.OffsetBody(
                offset.offset(),
                offset.metadata(),
                offset.committedBy(),
                offset.generation(),
                offset.updatedAt(),
                offset.history(),
                offset.done()));
    }

    /** A registered topic's partition count. */
    public static int topicPartitions(String path, byte[] data) {
        return NodeCodec.topic(path, data);
    }

    /** The operations that create {@code group} with its folders, as a joining member's transaction does. */
    public static List<ZkOp> groupCreation(String group, String assignor, Instant now) {
        return new GroupNodes(group).creation(assignor, now);
    }

    /** Whether a transaction of {@code bytes} fits under {@code limit}, by the store's one size rule. */
    public static boolean fitsOneTransaction(long bytes, long limit) {
        return new TransactionBatcher(limit, op -> 0).fits(bytes);
    }
}

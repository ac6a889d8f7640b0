package io.groupkeeper.testkit.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.status.CommitSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;

/**
 * Node bodies, typed: the model keeps the record a writer stored instead of its JSON bytes (the testkit cannot use
 * the ZooKeeper store's codec, and typed data is all a model needs). {@link Garbage} stands for what an operator typed
 * that does not parse; decoding it, or a body of another kind than the node should hold, fails with the same {@link
 * CorruptNodeException} the ZooKeeper store throws for bad JSON. A null body is an empty node (a folder).
 */
public final class Bodies {

    private Bodies() {
    }

    public record Group(Instant createdAt, String assignor) {
    }

    public record Member(MemberInfo info) {
    }

    public record AssignmentHead(long generation, Optional<String> leader, Instant updatedAt, int members) {
    }

    public record Target(long generation, SortedSet<TopicPartition> partitions, boolean isStatic) {
    }

    public record Owner(String memberId, long generation, Instant since) {
    }

    /** Curator's LeaderLatch stores the participant id in its node. */
    public record Latch(String participantId) {
    }

    public record Topic(int partitions) {
    }

    /** How many recent commits an offset node keeps for lag status (as the ZooKeeper store). */
    public static final int HISTORY = 10;

    public record Offset(OptionalLong offset, String metadata, Optional<String> committedBy, long generation,
                         Optional<Instant> updatedAt, List<CommitSample> history) {
        public Offset {
            history = history.size() <= HISTORY ? List.copyOf(history)
                    : List.copyOf(history.subList(history.size() - HISTORY, history.size()));
        }

        public static Offset none() {
            return new Offset(OptionalLong.empty(), "", Optional.empty(), 0, Optional.empty(), List.of());
        }

        /** What {@code set <offset node> 42} in zkCli means: that offset, nothing else known. */
        public static Offset plain(long offset) {
            return new Offset(OptionalLong.of(offset), "", Optional.empty(), 0, Optional.empty(), List.of());
        }
    }

    /** Data that does not parse as any body: a typo in zkCli, foreign JSON. */
    public record Garbage(String text) {
    }

    public static List<CommitSample> append(List<CommitSample> history, CommitSample sample) {
        List<CommitSample> next = new ArrayList<>(history);
        next.add(sample);
        return next;
    }

    /** {@code data} as a body of {@code type}, or the corrupt-node error the ZooKeeper store gives for it. */
    public static <T> T decode(String path, Object data, Class<T> type) {
        if (type.isInstance(data)) {
            return type.cast(data);
        }
        if (data == null) {
            throw new CorruptNodeException(path, "empty body; expected a JSON object");
        }
        if (data instanceof Garbage g) {
            throw new CorruptNodeException(path, "not JSON: '" + abbreviate(g.text()) + "'");
        }
        throw new CorruptNodeException(path, "foreign JSON: expected " + type.getSimpleName().toLowerCase()
                + ", found " + data.getClass().getSimpleName().toLowerCase());
    }

    /** The offset body of an offset node; a negative plain offset is corrupt, as in the ZooKeeper store. */
    public static Offset offset(String path, Object data) {
        Offset o = decode(path, data, Offset.class);
        if (o.offset().isPresent() && o.offset().getAsLong() < 0) {
            throw new CorruptNodeException(path, "offset must be >= 0, was " + o.offset().getAsLong());
        }
        return o;
    }

    static String abbreviate(String s) {
        String oneLine = s.replaceAll("\\s+", " ");
        return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 77) + "...";
    }
}

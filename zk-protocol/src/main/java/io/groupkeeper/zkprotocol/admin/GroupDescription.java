package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;

/**
 * Everything {@code groups describe} shows of a group: its live members, the published generation, the elected
 * leader, and per partition the owner, the committed offset, the log end and the lag.
 *
 * @param group      the group id
 * @param state      see {@link GroupState}
 * @param createdAt  when the group node was created (empty if unreadable)
 * @param assignor   the assignor recorded at creation
 * @param generation the published generation (0 before the first)
 * @param leader     the elected leader (lowest live latch node), if any
 * @param publishedBy the leader that published the current generation, if recorded
 * @param members    live members, sorted by id
 * @param partitions partitions with an offset, an owner or a target, and (with log bounds) every partition of the
 *                   group's topics; sorted
 * @param logBounds  where log ends came from; empty when not available (then log ends and lags are empty)
 * @param problems   nodes that could not be read (corrupt bodies), named with their paths
 */
public record GroupDescription(
        String group,
        GroupState state,
        Optional<Instant> createdAt,
        String assignor,
        long generation,
        Optional<String> leader,
        Optional<String> publishedBy,
        List<Member> members,
        List<Partition> partitions,
        Optional<String> logBounds,
        List<String> problems) {

    public GroupDescription {
        members = List.copyOf(members);
        partitions = List.copyOf(partitions);
        problems = List.copyOf(problems);
    }

    /**
     * A live member.
     *
     * @param rack   where it runs ({@code "rack"} in its member node: Kafka's {@code client.rack}), if it said
     * @param owned  the partitions it owns now (owner nodes)
     * @param target the partitions the current generation gives it
     */
    public record Member(
            String memberId,
            Optional<String> instanceId,
            String host,
            Optional<String> rack,
            SortedSet<String> topics,
            Optional<Instant> joinedAt,
            SortedSet<TopicPartition> owned,
            SortedSet<TopicPartition> target) {}

    /**
     * One partition.
     *
     * @param owner       the member holding its owner node, if any
     * @param target      the member the current generation gives it to, if any
     * @param committed   the committed offset (next to process), if any
     * @param logEnd      the log end, if known
     * @param lag         {@code logEnd - committed}, if both are known (negative: the committed offset is past the
     *                    log end, e.g. after the topic was recreated)
     * @param committedBy who wrote the committed offset (a member id, or {@code admin:...})
     * @param updatedAt   when it was written, if recorded
     * @param lagTime     lag in time: now minus the timestamp of the next record to process (the first data record at
     *                    or after the committed offset); zero when caught up (committed &ge; log end, or no data
     *                    record follows the committed offset, e.g. only a transaction marker); empty when unknown
     *                    (no committed offset, or the log cannot tell)
     * @param caughtUp    the committed offset is at the log end, or only transaction markers follow it (then
     *                    {@code lag} may be positive while nothing is left to consume)
     * @param corrupt     the offset node exists but cannot be read (named in {@link GroupDescription#problems})
     * @param offsetWrites how often the offset node was written since it was created (ZooKeeper's data version: one
     *                    per commit of the partition, plus a claim's rewrite and admin writes); -1 without a node.
     *                    The monitor derives the commit rate from it
     * @param doneAbove   how many offsets above {@code committed} (the low-water mark of a consumer that completes
     *                    records out of order: every record below it is processed) its committer recorded as
     *                    processed already (the node's {@code "done"} value, {@link DoneValue}); 0 when it has none,
     *                    or one written with another offset (an admin reset or hand edit cleared it), or one that
     *                    cannot be read (named in {@link GroupDescription#problems})
     */
    public record Partition(
            TopicPartition partition,
            Optional<String> owner,
            Optional<String> target,
            OptionalLong committed,
            OptionalLong logEnd,
            OptionalLong lag,
            Optional<String> committedBy,
            Optional<Instant> updatedAt,
            Optional<Duration> lagTime,
            boolean caughtUp,
            boolean corrupt,
            long offsetWrites,
            int doneAbove) {

        /** A partition with nothing recorded as done above its committed offset. */
        public Partition(
                TopicPartition partition,
                Optional<String> owner,
                Optional<String> target,
                OptionalLong committed,
                OptionalLong logEnd,
                OptionalLong lag,
                Optional<String> committedBy,
                Optional<Instant> updatedAt,
                Optional<Duration> lagTime,
                boolean caughtUp,
                boolean corrupt,
                long offsetWrites) {
            this(
                    partition,
                    owner,
                    target,
                    committed,
                    logEnd,
                    lag,
                    committedBy,
                    updatedAt,
                    lagTime,
                    caughtUp,
                    corrupt,
                    offsetWrites,
                    0);
        }
    }
}

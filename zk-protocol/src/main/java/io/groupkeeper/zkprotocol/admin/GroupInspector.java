package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.status.FailingMark;
import io.groupkeeper.status.LagEvaluator;
import io.groupkeeper.status.LagStatus;
import io.groupkeeper.status.LagTimeRule;
import io.groupkeeper.status.PartitionStatus;
import io.groupkeeper.status.StoppedMark;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The admin's reads: the groups under the namespace, a group's description (members, owners, offsets, log ends and
 * lag), its lag status, and the export of its offsets. Writes nothing.
 */
final class GroupInspector {

    private final AdminContext ctx;

    GroupInspector(AdminContext ctx) {
        this.ctx = ctx;
    }

    /** Every group under the namespace, sorted by id. */
    List<GroupSummary> listGroups() {
        List<GroupSummary> out = new ArrayList<>();
        for (String group : ctx.reader.children(AdminLayout.GROUPS)) {
            if (!Names.isValid(group)) {
                continue;
            }
            GroupView v = GroupView.read(ctx.reader, group);
            if (!v.exists) {
                continue; // deleted meanwhile
            }
            out.add(new GroupSummary(
                    group, v.state(), v.members.size(), v.generation, v.electedLeader, v.topics(), (int)
                            v.offsets.values().stream()
                                    .filter(o -> o.body()
                                            .map(b -> b.offset().isPresent())
                                            .orElse(false))
                                    .count()));
        }
        return out;
    }

    /** Members, generation, leader, state and, per partition, owner, committed offset, log end and lag. */
    GroupDescription describe(String group) {
        return describe(ctx.requireGroup(group));
    }

    /**
     * The group's lag status after Burrow: each partition judged by {@link LagEvaluator} from the commits its offset
     * node keeps (with log ends from Kafka when this admin has {@link LogBounds}), and the group's as its worst.
     */
    GroupStatus status(String group, Duration window) {
        return status(group, window, Optional.empty());
    }

    /**
     * As {@link #status(String, Duration)}, plus a time threshold ({@link LagTimeRule}): a partition whose lag in time
     * exceeds {@code maxLagTime} is at least WARN. A partition whose offset node carries a {@link StoppedMark} (its
     * consumer keeps it stopped) is STOP with the mark's reason, unless REWIND; one whose node carries a
     * {@link FailingMark} (its handler fails on every record, which is recovered) is WARN, unless worse. A partition that is caught up (also when only transaction markers
     * follow its committed offset) is judged with no lag, so neither an idle partition nor a transactional topic's
     * last marker reads as STOP.
     */
    GroupStatus status(String group, Duration window, Optional<Duration> maxLagTime) {
        return status(ctx.requireGroup(group), window, maxLagTime);
    }

    /** {@link #describe} and {@link #status(String, Duration, Optional)} from one read of the group. */
    GroupAdmin.Inspection inspect(String group, Duration window, Optional<Duration> maxLagTime) {
        return tryInspect(group, window, maxLagTime).orElseThrow(() -> ctx.unknownGroup(group));
    }

    /** As {@link #inspect}, empty when the group does not exist (e.g. deleted since it was listed). */
    Optional<GroupAdmin.Inspection> tryInspect(String group, Duration window, Optional<Duration> maxLagTime) {
        GroupView v = GroupView.read(ctx.reader, group);
        if (!v.exists) {
            return Optional.empty();
        }
        GroupDescription d = describe(v);
        return Optional.of(new GroupAdmin.Inspection(d, status(v, d, window, maxLagTime)));
    }

    private GroupStatus status(GroupView v, Duration window, Optional<Duration> maxLagTime) {
        return status(v, describe(v), window, maxLagTime);
    }

    private GroupStatus status(GroupView v, GroupDescription d, Duration window, Optional<Duration> maxLagTime) {
        LagEvaluator evaluator = new LagEvaluator(window);
        Optional<LagTimeRule> timeRule = maxLagTime.map(LagTimeRule::new);
        Instant now = ctx.clock.instant();
        LagStatus worst = LagStatus.OK;
        List<GroupStatus.Row> rows = new ArrayList<>();
        for (GroupDescription.Partition p : d.partitions()) {
            GroupView.OffsetNode node = v.offsets.get(p.partition());
            List<CommitSample> history = node == null
                    ? List.of()
                    : node.body().map(AdminNodes.Offset::history).orElse(List.of());
            OptionalLong logEnd = p.caughtUp() && p.committed().isPresent() ? p.committed() : p.logEnd();
            PartitionStatus s = evaluator.evaluate(history, p.committed(), logEnd, now);
            if (p.caughtUp() && s.status() != LagStatus.REWIND && s.status() != LagStatus.OK) {
                // Nothing left to consume (a hand-set offset without commit history would otherwise read as STOP).
                s = new PartitionStatus(
                        LagStatus.OK,
                        OptionalLong.of(0),
                        p.lag().orElse(0) > 0
                                ? "caught up (only transaction markers follow the committed offset)"
                                : "caught up");
            }
            if (timeRule.isPresent()) {
                s = timeRule.get().apply(s, p.lagTime());
            }
            Optional<String> mark =
                    node == null ? Optional.empty() : node.body().flatMap(b -> StoppedMark.read(b.metadata()));
            if (mark.isPresent() && s.status() != LagStatus.REWIND) {
                // Its consumer keeps it stopped (an error policy's stop): STOP whatever the history says, until it
                // runs.
                s = new PartitionStatus(LagStatus.STOP, s.lag(), "stopped by its consumer " + mark.get());
            }
            Optional<String> failing =
                    node == null ? Optional.empty() : node.body().flatMap(b -> FailingMark.read(b.metadata()));
            if (failing.isPresent() && (s.status() == LagStatus.OK || s.status() == LagStatus.WARN)) {
                // Moving on, but by recovering every record (dead letters, skips): at least WARN, saying so.
                s = new PartitionStatus(LagStatus.WARN, s.lag(), "its consumer's handler is failing: " + failing.get());
            }
            worst = worst.worst(s.status());
            rows.add(new GroupStatus.Row(p.partition(), p.owner(), p.committed(), p.logEnd(), s));
        }
        return new GroupStatus(v.group, worst, window, d.logBounds().isPresent(), rows);
    }

    private GroupDescription describe(GroupView v) {
        String group = v.group;
        SortedSet<String> topics = v.topics();
        Map<String, Integer> kafkaCounts =
                ctx.bounds.map(b -> b.partitionCounts(topics)).orElse(Map.of());
        SortedSet<TopicPartition> partitions = new TreeSet<>();
        partitions.addAll(v.offsets.keySet());
        partitions.addAll(v.owners.keySet());
        v.targets.values().forEach(partitions::addAll);
        for (String t : topics) {
            OptionalInt n = ResetPlanner.count(t, kafkaCounts, v);
            for (int p = 0; n.isPresent() && p < n.getAsInt(); p++) {
                partitions.add(new TopicPartition(t, p));
            }
        }
        List<TopicPartition> inLog = partitions.stream()
                .filter(tp -> kafkaCounts.containsKey(tp.topic()) && tp.partition() < kafkaCounts.get(tp.topic()))
                .toList();
        Map<TopicPartition, Long> logEnds =
                ctx.bounds.isPresent() && !inLog.isEmpty() ? ctx.bounds.get().latest(inLog) : Map.of();
        Map<TopicPartition, Long> behind = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OptionalLong c = Optional.ofNullable(v.offsets.get(tp))
                    .flatMap(GroupView.OffsetNode::body)
                    .map(AdminNodes.Offset::offset)
                    .orElse(OptionalLong.empty());
            Long end = logEnds.get(tp);
            if (c.isPresent() && end != null && c.getAsLong() < end) {
                behind.put(tp, c.getAsLong());
            }
        }
        Map<TopicPartition, Optional<Instant>> nextRecordAt =
                ctx.bounds.isPresent() && !behind.isEmpty() ? ctx.bounds.get().recordTimestamps(behind) : Map.of();
        Instant now = ctx.clock.instant();

        List<GroupDescription.Member> members = new ArrayList<>();
        v.members.forEach((id, info) -> {
            SortedSet<TopicPartition> owned = new TreeSet<>();
            v.owners.forEach((tp, o) -> {
                if (o.memberId().equals(id)) {
                    owned.add(tp);
                }
            });
            members.add(new GroupDescription.Member(
                    id,
                    info.instanceId(),
                    info.host(),
                    info.rack(),
                    info.topics(),
                    Optional.of(info.joinedAt()),
                    owned,
                    v.targets.getOrDefault(id, new TreeSet<>())));
        });
        List<GroupDescription.Partition> rows = new ArrayList<>();
        List<String> problems = new ArrayList<>(v.problems);
        for (TopicPartition tp : partitions) {
            GroupView.OffsetNode node = v.offsets.get(tp);
            Optional<AdminNodes.Offset> body = node == null ? Optional.empty() : node.body();
            OptionalLong committed = body.map(AdminNodes.Offset::offset).orElse(OptionalLong.empty());
            Long end = logEnds.get(tp);
            OptionalLong logEnd = end == null ? OptionalLong.empty() : OptionalLong.of(end);
            OptionalLong lag = committed.isPresent() && logEnd.isPresent()
                    ? OptionalLong.of(logEnd.getAsLong() - committed.getAsLong())
                    : OptionalLong.empty();
            boolean caughtUp = false;
            Optional<Duration> lagTime = Optional.empty();
            if (committed.isPresent() && logEnd.isPresent()) {
                if (!behind.containsKey(tp)) {
                    caughtUp = true;
                    lagTime = Optional.of(Duration.ZERO);
                } else if (nextRecordAt.containsKey(tp)) {
                    Optional<Instant> at = nextRecordAt.get(tp);
                    caughtUp = at.isEmpty(); // only transaction markers (or nothing) up to the log end
                    lagTime = Optional.of(at.map(t -> t.isBefore(now) ? Duration.between(t, now) : Duration.ZERO)
                            .orElse(Duration.ZERO));
                }
            }
            boolean corrupt = node != null && node.body().isEmpty();
            int doneAbove = 0;
            Optional<String> done = body.flatMap(AdminNodes.Offset::done);
            if (done.isPresent() && committed.isPresent()) {
                try {
                    doneAbove = DoneValue.doneAbove(committed.getAsLong(), done.get());
                } catch (IllegalArgumentException e) {
                    problems.add(AdminLayout.offset(group, tp) + ": " + e.getMessage() + " (counted as none)");
                }
            }
            rows.add(new GroupDescription.Partition(
                    tp,
                    Optional.ofNullable(v.owners.get(tp)).map(o -> o.memberId()),
                    v.targetOf(tp),
                    committed,
                    logEnd,
                    lag,
                    body.flatMap(AdminNodes.Offset::committedBy),
                    body.flatMap(AdminNodes.Offset::updatedAt),
                    lagTime,
                    caughtUp,
                    corrupt,
                    node == null ? -1 : node.version(),
                    doneAbove));
        }
        return new GroupDescription(
                group,
                v.state(),
                v.body.map(AdminNodes.Group::createdAt),
                v.body.map(AdminNodes.Group::assignor).orElse(""),
                v.generation,
                v.electedLeader,
                v.publishedBy,
                members,
                rows,
                ctx.bounds.map(LogBounds::describe),
                problems);
    }

    /** The group's committed offsets (partitions with no committed offset are left out). */
    SourceOffsets exportOffsets(String group) {
        GroupView v = ctx.requireGroup(group);
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        v.offsets.forEach((tp, node) -> {
            if (node.body().isEmpty()) {
                throw new AdminException(
                        "cannot export group " + group + ": offset node " + ctx.zk.abs(AdminLayout.offset(group, tp))
                                + " is unreadable: " + AdminContext.abbreviate(node.raw()) + " (fix or delete it)");
            }
            node.body().get().offset().ifPresent(o -> {
                offsets.put(tp, o);
                origins.put(tp, ctx.zk.abs(AdminLayout.offset(group, tp)));
            });
        });
        return new SourceOffsets("group " + group, offsets, origins);
    }
}

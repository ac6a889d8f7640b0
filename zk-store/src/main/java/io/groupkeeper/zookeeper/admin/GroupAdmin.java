package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.internal.NodeCodec;
import io.groupkeeper.zookeeper.internal.NodeCodec.OffsetBody;
import io.groupkeeper.zookeeper.internal.ZkNode;
import io.groupkeeper.zookeeper.internal.ZkPaths;
import io.groupkeeper.zookeeper.internal.ZkSession;
import io.groupkeeper.zookeeper.internal.ZkStats;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.status.LagEvaluator;
import io.groupkeeper.status.LagStatus;
import io.groupkeeper.status.LagTimeRule;
import io.groupkeeper.status.PartitionStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Administration of groupkeeper groups in ZooKeeper: list and describe groups, plan and execute offset resets,
 * export and import offsets, migrate offsets from other systems, delete groups and offsets. The {@code groupkeeper}
 * CLI is a thin layer over this class.
 *
 * <pre>{@code
 * try (GroupAdmin admin = GroupAdmin.builder().connectString("zk:2181").logBounds(kafkaBounds).build()) {
 *     ResetPlan plan = admin.planReset("orders-app", PartitionSelection.allTopics(), new ResetSpec.ToEarliest());
 *     print(plan);                                                             // current -> new, per partition
 *     admin.executeReset("orders-app", PartitionSelection.allTopics(), new ResetSpec.ToEarliest());
 * }
 * }</pre>
 *
 * <p><b>Writes are all-or-nothing and race-free with live members.</b> Every write of a plan is one ZooKeeper
 * transaction; each offset node in it is written conditioned on the version read when planning ({@code setData}
 * with that version, or {@code create} where there was no node). Live members commit the same way (conditioned on the
 * version they last saw, together with a check of their owner node), and a claim rewrites the offset node under a
 * version check too. So the reset and every commit or claim are ordered by ZooKeeper: a commit ordered before the
 * reset makes the reset's version check fail, and the reset is planned again from the new offsets (bounded
 * {@linkplain Builder#maxAttempts attempts}); a commit ordered after it finds a version it did not know, writes
 * nothing, and its member adopts the reset offset ({@code CommitResult.Status.ADOPTED}) — it never overwrites it with
 * an older in-memory position. Members also watch their offset nodes and hear of the reset at once. See
 * docs/admin.md.
 *
 * <p><b>Size.</b> A transaction must fit ZooKeeper's {@code jute.maxbuffer} (1 MiB by default). A plan whose
 * transaction would exceed {@link Builder#maxTransactionBytes} (default 900 KiB, roughly 4,000 partitions) is
 * refused with a message that says so: it is never split, since a split write could apply in part.
 *
 * <p>Thread-safe; one ZooKeeper session. {@link #close()} closes the store only if this admin created it.
 */
public final class GroupAdmin implements AutoCloseable {

    /** Default limit of one transaction's estimated size, below ZooKeeper's default jute.maxbuffer of 1 MiB. */
    public static final int DEFAULT_MAX_TRANSACTION_BYTES = 900 * 1024;
    /** Default number of plans tried when concurrent commits keep invalidating them. */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;
    /** Estimated per-operation overhead of a transaction (header, lengths, version) on top of path and body. */
    private static final int OP_OVERHEAD = 32;

    private final ZooKeeperStore store;
    private final boolean ownsStore;
    private final CuratorFramework client;
    private final ZkSession zk;
    private final ZkReader reader;
    private final Optional<LogBounds> bounds;
    private final Clock clock;
    private final int maxTransactionBytes;
    private final int maxAttempts;
    private final java.util.function.Consumer<ResetPlan> beforeWrite;

    private GroupAdmin(Builder b, ZooKeeperStore store, boolean ownsStore) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.client = store.curator();
        this.zk = new ZkSession(client, new ZkStats());
        this.reader = new ZkReader(client, zk);
        this.bounds = Optional.ofNullable(b.logBounds);
        this.clock = b.clock;
        this.maxTransactionBytes = b.maxTransactionBytes;
        this.maxAttempts = b.maxAttempts;
        this.beforeWrite = b.beforeWrite;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** An admin on an already started store, without log bounds. The store stays open on {@link #close()}. */
    public static GroupAdmin on(ZooKeeperStore startedStore) {
        return builder().store(startedStore).build();
    }

    /** The log bounds this admin uses, if any. */
    public Optional<LogBounds> logBounds() {
        return bounds;
    }

    /** The namespace root as an operator would type it in zkCli, e.g. {@code /groupkeeper}. */
    public String root() {
        return zk.abs("");
    }

    // ================================================================== inspect

    /** Every group under the namespace, sorted by id. */
    public List<GroupSummary> listGroups() {
        List<GroupSummary> out = new ArrayList<>();
        for (String group : reader.children(ZkPaths.GROUPS)) {
            if (!Names.isValid(group)) {
                continue;
            }
            GroupView v = GroupView.read(reader, group);
            if (!v.exists) {
                continue; // deleted meanwhile
            }
            out.add(new GroupSummary(group, v.state(), v.members.size(), v.generation, v.electedLeader, v.topics(),
                    (int) v.offsets.values().stream().filter(o -> o.body().map(b -> b.offset().isPresent()).orElse(false)).count()));
        }
        return out;
    }

    /** Members, generation, leader, state and, per partition, owner, committed offset, log end and lag. */
    public GroupDescription describe(String group) {
        return describe(requireGroup(group));
    }

    /**
     * The group's lag status after Burrow: each partition judged by {@link LagEvaluator} from the commits its offset
     * node keeps (with log ends from Kafka when this admin has {@link LogBounds}), and the group's as its worst.
     */
    public GroupStatus status(String group, Duration window) {
        return status(group, window, Optional.empty());
    }

    /**
     * As {@link #status(String, Duration)}, plus a time threshold ({@link LagTimeRule}): a partition whose lag in time
     * exceeds {@code maxLagTime} is at least WARN. A partition that is caught up (also when only transaction markers
     * follow its committed offset) is judged with no lag, so neither an idle partition nor a transactional topic's
     * last marker reads as STOP.
     */
    public GroupStatus status(String group, Duration window, Optional<Duration> maxLagTime) {
        return status(requireGroup(group), window, maxLagTime);
    }

    /** {@link #describe} and {@link #status(String, Duration, Optional)} from one read of the group. */
    public Inspection inspect(String group, Duration window, Optional<Duration> maxLagTime) {
        return tryInspect(group, window, maxLagTime).orElseThrow(() -> unknownGroup(group));
    }

    /** As {@link #inspect}, empty when the group does not exist (e.g. deleted since it was listed). */
    public Optional<Inspection> tryInspect(String group, Duration window, Optional<Duration> maxLagTime) {
        GroupView v = GroupView.read(reader, group);
        if (!v.exists) {
            return Optional.empty();
        }
        GroupDescription d = describe(v);
        return Optional.of(new Inspection(d, status(v, d, window, maxLagTime)));
    }

    /** A group's description and status, read together. */
    public record Inspection(GroupDescription description, GroupStatus status) {
    }

    private GroupStatus status(GroupView v, Duration window, Optional<Duration> maxLagTime) {
        return status(v, describe(v), window, maxLagTime);
    }

    private GroupStatus status(GroupView v, GroupDescription d, Duration window, Optional<Duration> maxLagTime) {
        LagEvaluator evaluator = new LagEvaluator(window);
        Optional<LagTimeRule> timeRule = maxLagTime.map(LagTimeRule::new);
        Instant now = clock.instant();
        LagStatus worst = LagStatus.OK;
        List<GroupStatus.Row> rows = new ArrayList<>();
        for (GroupDescription.Partition p : d.partitions()) {
            GroupView.OffsetNode node = v.offsets.get(p.partition());
            List<CommitSample> history = node == null ? List.of()
                    : node.body().map(OffsetBody::history).orElse(List.of());
            OptionalLong logEnd = p.caughtUp() && p.committed().isPresent() ? p.committed() : p.logEnd();
            PartitionStatus s = evaluator.evaluate(history, logEnd, now);
            if (p.caughtUp() && s.status() != LagStatus.REWIND && s.status() != LagStatus.OK) {
                // Nothing left to consume (a hand-set offset without commit history would otherwise read as STOP).
                s = new PartitionStatus(LagStatus.OK, OptionalLong.of(0), p.lag().orElse(0) > 0
                        ? "caught up (only transaction markers follow the committed offset)" : "caught up");
            }
            if (timeRule.isPresent()) {
                s = timeRule.get().apply(s, p.lagTime());
            }
            worst = worst.worst(s.status());
            rows.add(new GroupStatus.Row(p.partition(), p.owner(), p.committed(), p.logEnd(), s));
        }
        return new GroupStatus(v.group, worst, window, d.logBounds().isPresent(), rows);
    }

    private GroupDescription describe(GroupView v) {
        String group = v.group;
        SortedSet<String> topics = v.topics();
        Map<String, Integer> kafkaCounts = bounds.map(b -> b.partitionCounts(topics)).orElse(Map.of());
        SortedSet<TopicPartition> partitions = new TreeSet<>();
        partitions.addAll(v.offsets.keySet());
        partitions.addAll(v.owners.keySet());
        v.targets.values().forEach(partitions::addAll);
        for (String t : topics) {
            OptionalInt n = count(t, kafkaCounts, v);
            for (int p = 0; n.isPresent() && p < n.getAsInt(); p++) {
                partitions.add(new TopicPartition(t, p));
            }
        }
        List<TopicPartition> inLog = partitions.stream().filter(tp -> kafkaCounts.containsKey(tp.topic())
                && tp.partition() < kafkaCounts.get(tp.topic())).toList();
        Map<TopicPartition, Long> logEnds = bounds.isPresent() && !inLog.isEmpty() ? bounds.get().latest(inLog) : Map.of();
        Map<TopicPartition, Long> behind = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OptionalLong c = Optional.ofNullable(v.offsets.get(tp)).flatMap(GroupView.OffsetNode::body)
                    .map(OffsetBody::offset).orElse(OptionalLong.empty());
            Long end = logEnds.get(tp);
            if (c.isPresent() && end != null && c.getAsLong() < end) {
                behind.put(tp, c.getAsLong());
            }
        }
        Map<TopicPartition, Optional<Instant>> nextRecordAt = bounds.isPresent() && !behind.isEmpty()
                ? bounds.get().recordTimestamps(behind) : Map.of();
        Instant now = clock.instant();

        List<GroupDescription.Member> members = new ArrayList<>();
        v.members.forEach((id, info) -> {
            SortedSet<TopicPartition> owned = new TreeSet<>();
            v.owners.forEach((tp, o) -> {
                if (o.memberId().equals(id)) {
                    owned.add(tp);
                }
            });
            members.add(new GroupDescription.Member(id, info.instanceId(), info.host(), info.topics(),
                    Optional.of(info.joinedAt()), owned, v.targets.getOrDefault(id, new TreeSet<>())));
        });
        List<GroupDescription.Partition> rows = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            GroupView.OffsetNode node = v.offsets.get(tp);
            Optional<OffsetBody> body = node == null ? Optional.empty() : node.body();
            OptionalLong committed = body.map(OffsetBody::offset).orElse(OptionalLong.empty());
            Long end = logEnds.get(tp);
            OptionalLong logEnd = end == null ? OptionalLong.empty() : OptionalLong.of(end);
            OptionalLong lag = committed.isPresent() && logEnd.isPresent()
                    ? OptionalLong.of(logEnd.getAsLong() - committed.getAsLong()) : OptionalLong.empty();
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
            rows.add(new GroupDescription.Partition(tp, Optional.ofNullable(v.owners.get(tp)).map(o -> o.memberId()),
                    v.targetOf(tp), committed, logEnd, lag, body.flatMap(OffsetBody::committedBy),
                    body.flatMap(OffsetBody::updatedAt), lagTime, caughtUp, corrupt, node == null ? -1 : node.version()));
        }
        return new GroupDescription(group, v.state(), v.body.map(NodeCodec.GroupBody::createdAt),
                v.body.map(NodeCodec.GroupBody::assignor).orElse(""), v.generation, v.electedLeader, v.publishedBy,
                members, rows, bounds.map(LogBounds::describe), v.problems);
    }

    // ================================================================== reset

    /**
     * The plan of a reset, computed from the offsets stored now; writes nothing. {@code selection} may be null only
     * with {@link ResetSpec.FromOffsets} (then the file's partitions are taken; otherwise it filters them).
     */
    public ResetPlan planReset(String group, PartitionSelection selection, ResetSpec spec) {
        requireSelection(selection, spec);
        Planning p = prepare(group, selection, spec, Operation.RESET);
        return p.plan(readFresh(p), 1);
    }

    /**
     * Plans and writes a reset in one transaction; if a concurrent commit or claim invalidated the plan, plans again
     * from the new offsets (up to {@link Builder#maxAttempts} times). Returns the plan that was written.
     *
     * @throws AdminException if the input is bad, the plan is too large, or the offsets kept changing; nothing was
     *                        written then
     */
    public ResetPlan executeReset(String group, PartitionSelection selection, ResetSpec spec) {
        requireSelection(selection, spec);
        return execute(prepare(group, selection, spec, Operation.RESET));
    }

    private static void requireSelection(PartitionSelection selection, ResetSpec spec) {
        if (selection == null && !(spec instanceof ResetSpec.FromOffsets)) {
            throw new IllegalArgumentException("select --all-topics or --topic T[:p,...]");
        }
    }

    // ================================================================== export / import

    /** The group's committed offsets (partitions with no committed offset are left out). */
    public SourceOffsets exportOffsets(String group) {
        GroupView v = requireGroup(group);
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        v.offsets.forEach((tp, node) -> {
            if (node.body().isEmpty()) {
                throw new AdminException("cannot export group " + group + ": offset node " + zk.abs(ZkPaths.offset(group, tp))
                        + " is unreadable: " + abbreviate(node.raw()) + " (fix or delete it)");
            }
            node.body().get().offset().ifPresent(o -> {
                offsets.put(tp, o);
                origins.put(tp, zk.abs(ZkPaths.offset(group, tp)));
            });
        });
        return new SourceOffsets("group " + group, offsets, origins);
    }

    /**
     * The plan of an import: the offsets of {@code offsets}, written exactly as given (no clamping; offsets outside a
     * known log are flagged in the notes). The group is created if it does not exist.
     */
    public ResetPlan planImport(String group, SourceOffsets offsets) {
        Planning p = prepare(group, null, new ResetSpec.FromOffsets(offsets), Operation.IMPORT);
        return p.plan(readFresh(p), 1);
    }

    /** Plans and writes an import in one transaction; see {@link #executeReset} for retries. */
    public ResetPlan executeImport(String group, SourceOffsets offsets) {
        return execute(prepare(group, null, new ResetSpec.FromOffsets(offsets), Operation.IMPORT));
    }

    /**
     * The plan of a migration from another system ({@code source} names it, e.g. {@code storm-kafka}): like an import,
     * but targets outside a known log are clamped into it (old systems left offsets beyond the log end).
     */
    public ResetPlan planMigration(String group, String source, SourceOffsets offsets) {
        Planning p = prepare(group, null, new ResetSpec.FromOffsets(offsets), Operation.migrate(source));
        return p.plan(readFresh(p), 1);
    }

    /** Plans and writes a migration in one transaction. */
    public ResetPlan executeMigration(String group, String source, SourceOffsets offsets) {
        return execute(prepare(group, null, new ResetSpec.FromOffsets(offsets), Operation.migrate(source)));
    }

    // ================================================================== delete

    /**
     * Deletes a group with everything below it, in one transaction. Refused while the group has live members unless
     * {@code force} (their member, owner and election nodes are deleted too; they lose their partitions and must be
     * restarted).
     */
    public DeleteResult deleteGroup(String group, boolean force) {
        for (int attempt = 1; ; attempt++) {
            GroupView v = requireGroup(group);
            if (!v.members.isEmpty() && !force) {
                throw new AdminException("group " + group + " has " + v.members.size() + " live member(s) ("
                        + String.join(", ", v.members.keySet()) + "); stop them first, or use --force");
            }
            List<String> nodes = subtree(ZkPaths.group(group));
            List<CuratorOp> ops = new ArrayList<>();
            long bytes = 0;
            try {
                for (int i = nodes.size() - 1; i >= 0; i--) { // children before parents
                    ops.add(client.transactionOp().delete().forPath(nodes.get(i)));
                    bytes += zk.abs(nodes.get(i)).length() + OP_OVERHEAD;
                }
            } catch (Exception e) {
                throw ZkSession.failure("prepare delete of group " + group, e);
            }
            requireFits(bytes, "deleting group " + group + " (" + nodes.size() + " nodes)",
                    "delete its offsets topic by topic first (offsets delete --topic)");
            try {
                client.transaction().forOperations(ops);
                return new DeleteResult(group, "group", nodes.size(), committed(v.offsets, null),
                        new ArrayList<>(v.members.keySet()));
            } catch (KeeperException e) {
                if (isConflict(e) && attempt < maxAttempts) {
                    backoff(attempt);
                    continue; // a node appeared or vanished meanwhile: look again
                }
                throw writeFailure("delete group " + group, e);
            } catch (Exception e) {
                throw new AdminException("delete of group " + group + " failed: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Deletes the committed offsets of one topic of a group in one transaction (each conditioned on the version
     * read): every offset node is kept, with no offset, so its version moves on instead of starting again at 0 (a
     * fence must never repeat). Refused while a live member owns a partition of the topic unless {@code force} (the
     * owner then adopts "no offset" and applies its start position).
     */
    public DeleteResult deleteOffsets(String group, String topic, boolean force) {
        Names.requireValid("topic", topic);
        for (int attempt = 1; ; attempt++) {
            GroupView v = requireGroup(group);
            SortedMap<TopicPartition, GroupView.OffsetNode> nodes = new TreeMap<>();
            v.offsets.forEach((tp, n) -> {
                if (tp.topic().equals(topic)) {
                    nodes.put(tp, n);
                }
            });
            if (nodes.isEmpty()) {
                throw new AdminException("group " + group + " has no offsets for topic '" + topic + "'"
                        + (v.offsets.isEmpty() ? "" : " (it has offsets for " + topicsOf(v.offsets.keySet()) + ")"));
            }
            List<String> owners = new ArrayList<>();
            v.owners.forEach((tp, o) -> {
                if (tp.topic().equals(topic)) {
                    owners.add(tp + " by " + o.memberId());
                }
            });
            if (!owners.isEmpty() && !force) {
                throw new AdminException("topic " + topic + " of group " + group + " has live owners (" + String.join(", ", owners)
                        + "); stop them first, or use --force");
            }
            List<CuratorOp> ops = new ArrayList<>();
            long bytes = 0;
            try {
                for (Map.Entry<TopicPartition, GroupView.OffsetNode> e : nodes.entrySet()) {
                    String path = ZkPaths.offset(group, e.getKey());
                    // Cleared, not deleted: a deleted node comes back at version 0, where an owner's remembered
                    // version may be; a cleared one moves on, so every fenced write prepared before it fails.
                    ops.add(client.transactionOp().setData().withVersion(e.getValue().version()).forPath(path,
                            io.groupkeeper.zookeeper.internal.NodeCodec.offset(
                                    io.groupkeeper.zookeeper.internal.NodeCodec.OffsetBody.none())));
                    bytes += zk.abs(path).length() + OP_OVERHEAD;
                }
            } catch (Exception e) {
                throw ZkSession.failure("prepare delete of offsets", e);
            }
            requireFits(bytes, "deleting " + nodes.size() + " offsets of topic " + topic, "");
            try {
                client.transaction().forOperations(ops);
                return new DeleteResult(group, "offsets of topic " + topic, nodes.size(), committed(nodes, topic),
                        owners.isEmpty() ? List.of() : new ArrayList<>(v.members.keySet()));
            } catch (KeeperException e) {
                if (isConflict(e) && attempt < maxAttempts) {
                    backoff(attempt);
                    continue; // a member committed meanwhile: look again
                }
                throw writeFailure("delete offsets of topic " + topic + " in group " + group, e);
            } catch (Exception e) {
                throw new AdminException("delete of offsets failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        if (ownsStore) {
            store.close();
        }
    }

    // ================================================================== planning

    /** What an operation may do beyond a reset. */
    private record Operation(String name, boolean mayCreateGroup, boolean clamp, String committedBy) {
        static final Operation RESET = new Operation("reset", false, true, "admin:reset");
        static final Operation IMPORT = new Operation("import", true, false, "admin:import");

        static Operation migrate(String source) {
            return new Operation("migrate " + source, true, true, "admin:migrate:" + source);
        }
    }

    /** The offset nodes of the planned partitions (and the group's topic folders), read right before writing. */
    private record Fresh(Map<TopicPartition, Optional<GroupView.OffsetNode>> offsets, SortedSet<String> offsetFolders,
                         SortedSet<String> ownerFolders, boolean groupExists) {
    }

    /** Everything about a plan that does not depend on the offsets stored now (read once, reused per attempt). */
    private final class Planning {
        final GroupView view;
        final Operation op;
        final ResetSpec spec;
        final SortedSet<TopicPartition> selected = new TreeSet<>();
        final Map<String, Integer> kafkaCounts;
        final Map<TopicPartition, Long> start = new HashMap<>();
        final Map<TopicPartition, Long> end = new HashMap<>();
        final Map<TopicPartition, Long> byTime = new HashMap<>();
        final List<String> notes = new ArrayList<>();

        Planning(GroupView view, Operation op, ResetSpec spec, Map<String, Integer> kafkaCounts) {
            this.view = view;
            this.op = op;
            this.spec = spec;
            this.kafkaCounts = kafkaCounts;
        }

        boolean hasBounds(TopicPartition tp) {
            return start.containsKey(tp) && end.containsKey(tp);
        }

        ResetPlan plan(Fresh fresh, int attempt) {
            Instant now = clock.instant();
            List<ResetPlan.Entry> entries = new ArrayList<>();
            for (TopicPartition tp : selected) {
                Optional<GroupView.OffsetNode> node = fresh.offsets.getOrDefault(tp, Optional.empty());
                entries.add(entry(tp, node));
            }
            SortedSet<String> folders = new TreeSet<>();
            boolean createsGroup = !fresh.groupExists;
            for (ResetPlan.Entry e : entries) {
                if (e.writes()) {
                    String t = e.partition().topic();
                    if (!fresh.offsetFolders.contains(t)) {
                        folders.add(ZkPaths.offsetsOfTopic(view.group, t));
                    }
                    if (!fresh.ownerFolders.contains(t)) {
                        folders.add(ZkPaths.ownersOfTopic(view.group, t));
                    }
                }
            }
            List<String> planNotes = new ArrayList<>(notes);
            if (createsGroup) {
                planNotes.add(0, "group " + view.group + " does not exist yet; it is created with the offsets");
            }
            long live = entries.stream().filter(e -> e.writes() && e.owner().isPresent()).count();
            if (live > 0) {
                planNotes.add(live + " partition(s) have a live owner; each owner adopts its new offset at once "
                        + "(offset watch) and at the latest at its next commit, which is refused, never overwriting it");
            }
            ResetPlan plan = new ResetPlan(view.group, op.name, spec instanceof ResetSpec.FromOffsets f
                    ? (op == Operation.RESET ? spec.describe() : "from " + f.offsets().source()) : spec.describe(),
                    createsGroup, entries, planNotes, bounds.map(LogBounds::describe), false, attempt, folders);
            requireFits(estimate(plan, bodies(plan, fresh, now)), op.name + " of " + plan.writes().size()
                    + " partitions of group " + view.group, "select fewer topics or partitions (--topic T or T:0,1,...) per run");
            return plan;
        }

        private ResetPlan.Entry entry(TopicPartition tp, Optional<GroupView.OffsetNode> node) {
            int version = node.map(GroupView.OffsetNode::version).orElse(-1);
            boolean corrupt = node.isPresent() && node.get().body().isEmpty();
            OptionalLong current = node.flatMap(GroupView.OffsetNode::body).map(OffsetBody::offset).orElse(OptionalLong.empty());
            OptionalLong logStart = opt(start.get(tp));
            OptionalLong logEnd = opt(end.get(tp));
            Optional<String> owner = Optional.ofNullable(view.owners.get(tp)).map(o -> o.memberId());
            List<String> note = new ArrayList<>();
            if (corrupt) {
                note.add("current body unreadable: " + abbreviate(node.get().raw()));
            }
            OptionalLong requested;
            if (spec instanceof ResetSpec.ToEarliest) {
                requested = logStart;
            } else if (spec instanceof ResetSpec.ToLatest) {
                requested = logEnd;
            } else if (spec instanceof ResetSpec.ToCurrent) {
                if (current.isPresent()) {
                    requested = current;
                } else if (logEnd.isPresent()) {
                    requested = logEnd;
                    note.add("no committed offset: log end");
                } else {
                    requested = OptionalLong.empty();
                    note.add("skipped: no committed offset" + (bounds.isEmpty() ? " (log end unknown: no --bootstrap)" : ""));
                }
            } else if (spec instanceof ResetSpec.ToOffset s) {
                requested = OptionalLong.of(s.offset());
            } else if (spec instanceof ResetSpec.ShiftBy s) {
                if (current.isPresent()) {
                    requested = OptionalLong.of(saturatedAdd(current.getAsLong(), s.delta()));
                } else {
                    requested = OptionalLong.empty();
                    note.add("skipped: no committed offset to shift");
                }
            } else if (spec instanceof ResetSpec.ToDatetime || spec instanceof ResetSpec.ByDuration) {
                requested = atTime(tp, logEnd, note);
            } else if (spec instanceof ResetSpec.FromOffsets s) {
                requested = OptionalLong.of(s.offsets().offsets().get(tp));
            } else {
                throw new IllegalStateException("unknown spec " + spec);
            }
            OptionalLong target = requested;
            ResetPlan.Clamp clamp = ResetPlan.Clamp.NONE;
            if (requested.isPresent()) {
                long r = requested.getAsLong();
                if (op.clamp && logStart.isPresent() && r < logStart.getAsLong()) {
                    target = logStart;
                    clamp = ResetPlan.Clamp.LOG_START;
                    note.add("clamped from " + r + " to log start " + logStart.getAsLong());
                } else if (op.clamp && logEnd.isPresent() && r > logEnd.getAsLong()) {
                    target = logEnd;
                    clamp = ResetPlan.Clamp.LOG_END;
                    note.add("clamped from " + r + " to log end " + logEnd.getAsLong());
                } else if (r < 0) {
                    target = OptionalLong.of(0);
                    clamp = ResetPlan.Clamp.LOG_START;
                    note.add("clamped from " + r + " to 0");
                } else if (!op.clamp && logStart.isPresent() && logEnd.isPresent()
                        && (r < logStart.getAsLong() || r > logEnd.getAsLong())) {
                    note.add("outside the log [" + logStart.getAsLong() + ", " + logEnd.getAsLong() + "]; written as given");
                }
            }
            return new ResetPlan.Entry(tp, current, requested, target, clamp, logStart, logEnd, owner,
                    String.join("; ", note), version);
        }

        private OptionalLong atTime(TopicPartition tp, OptionalLong logEnd, List<String> note) {
            Long t = byTime.get(tp);
            if (t != null) {
                return OptionalLong.of(t);
            }
            note.add("no record at or after that time: log end");
            return logEnd;
        }
    }

    private Planning prepare(String group, PartitionSelection selection, ResetSpec spec, Operation op) {
        Names.requireValid("group id", group);
        Objects.requireNonNull(spec, "spec");
        GroupView v = GroupView.read(reader, group);
        if (!v.exists && !op.mayCreateGroup) {
            throw unknownGroup(group);
        }
        SourceOffsets source = spec instanceof ResetSpec.FromOffsets f ? f.offsets() : null;
        SortedSet<String> topics = new TreeSet<>();
        if (source != null) {
            source.offsets().keySet().forEach(tp -> topics.add(tp.topic()));
        } else if (selection.isAllTopics()) {
            topics.addAll(v.topics());
            if (topics.isEmpty()) {
                throw new AdminException("group " + group + " has no topics (no members, owners or offsets) to reset");
            }
        } else {
            topics.addAll(selection.topics().keySet());
        }
        readRegistry(v, topics);
        Map<String, Integer> kafkaCounts = bounds.isPresent() && !topics.isEmpty()
                ? Map.copyOf(bounds.get().partitionCounts(topics)) : Map.of();
        Planning p = new Planning(v, op, spec, kafkaCounts);

        // Which partitions, each validated against what is known of its topic.
        if (source != null) {
            int ignored = 0;
            for (TopicPartition tp : source.offsets().keySet()) {
                if (selection != null && !selection.includes(tp.topic(), tp.partition())) {
                    ignored++;
                    continue;
                }
                requireKnown(v, tp, kafkaCounts, " (" + Optional.ofNullable(source.origins().get(tp)).orElse(source.source()) + ")");
                p.selected.add(tp);
            }
            if (ignored > 0) {
                p.notes.add(ignored + " entries of " + source.source() + " are outside " + selection + " and are ignored");
            }
            if (p.selected.isEmpty()) {
                throw new AdminException(source.source() + " has no offsets" + (ignored > 0 ? " for " + selection : ""));
            }
        } else if (selection.isAllTopics()) {
            for (String t : topics) {
                OptionalInt n = count(t, kafkaCounts, v);
                SortedSet<Integer> known = v.knownPartitions(t);
                if (n.isPresent()) {
                    for (int i = 0; i < n.getAsInt(); i++) {
                        p.selected.add(new TopicPartition(t, i));
                    }
                    SortedSet<Integer> beyond = known.tailSet(n.getAsInt());
                    if (!beyond.isEmpty()) {
                        p.notes.add("topic " + t + " has " + n.getAsInt() + " partitions; nodes of partitions " + beyond
                                + " are left untouched");
                    }
                } else if (!known.isEmpty()) {
                    known.forEach(i -> p.selected.add(new TopicPartition(t, i)));
                } else {
                    p.notes.add("topic " + t + " skipped: its partition count is unknown (not in the topic registry"
                            + (bounds.isPresent() ? ", not in " + bounds.get().describe() : "; pass --bootstrap") + ")");
                }
            }
        } else {
            for (Map.Entry<String, Optional<SortedSet<Integer>>> e : selection.topics().entrySet()) {
                String t = e.getKey();
                requireKnownTopic(v, t, kafkaCounts, "");
                if (e.getValue().isPresent()) {
                    for (int i : e.getValue().get()) {
                        TopicPartition tp = new TopicPartition(t, i);
                        requireKnown(v, tp, kafkaCounts, "");
                        p.selected.add(tp);
                    }
                } else {
                    OptionalInt n = count(t, kafkaCounts, v);
                    if (n.isPresent()) {
                        for (int i = 0; i < n.getAsInt(); i++) {
                            p.selected.add(new TopicPartition(t, i));
                        }
                    } else {
                        SortedSet<Integer> known = v.knownPartitions(t);
                        if (known.isEmpty()) {
                            throw new AdminException("the partitions of topic '" + t + "' are unknown (not in the topic registry"
                                    + (bounds.isPresent() ? ", not in " + bounds.get().describe() : "; pass --bootstrap")
                                    + "); name them: --topic " + t + ":0,1,...");
                        }
                        known.forEach(i -> p.selected.add(new TopicPartition(t, i)));
                    }
                }
            }
        }
        if (p.selected.isEmpty()) {
            throw new AdminException("nothing to " + op.name + " in group " + group + " for " + (selection == null ? "" : selection));
        }

        // Log bounds, for the partitions of topics the log knows.
        List<TopicPartition> inLog = p.selected.stream().filter(tp -> kafkaCounts.containsKey(tp.topic())).toList();
        if (bounds.isPresent() && !inLog.isEmpty()) {
            p.start.putAll(bounds.get().earliest(inLog));
            p.end.putAll(bounds.get().latest(inLog));
        }
        if (spec.needsLog()) {
            for (TopicPartition tp : p.selected) {
                if (!p.hasBounds(tp)) {
                    throw new AdminException(spec.describe().split(" ")[0] + " needs the log bounds of " + tp + ": "
                            + (bounds.isEmpty() ? "pass --bootstrap" : "topic " + tp.topic() + " is not in " + bounds.get().describe()));
                }
            }
        }
        Instant at = null;
        if (spec instanceof ResetSpec.ToDatetime s) {
            at = s.timestamp();
        } else if (spec instanceof ResetSpec.ByDuration s) {
            at = clock.instant().minus(s.duration());
        }
        if (at != null) {
            if (spec instanceof ResetSpec.ByDuration d) {
                p.notes.add(d.describe() + ": records from " + at + " on");
            }
            p.byTime.putAll(bounds.get().offsetsForTimestamp(p.selected, at));
        }
        if (bounds.isEmpty() && op.clamp) {
            p.notes.add("log bounds unknown (no --bootstrap): targets are not clamped to the log");
        } else if (bounds.isPresent() && inLog.size() < p.selected.size()) {
            p.notes.add("topics not in " + bounds.get().describe() + " have no log bounds: "
                    + topicsOf(p.selected.stream().filter(tp -> !kafkaCounts.containsKey(tp.topic())).toList()));
        }
        return p;
    }

    private void readRegistry(GroupView v, Collection<String> topics) {
        List<String> missing = topics.stream().filter(t -> !v.registry.containsKey(t)).map(ZkPaths::topic).toList();
        reader.data(missing).forEach((path, node) -> node.ifPresent(n -> {
            try {
                v.registry.put(path.substring(ZkPaths.TOPICS.length() + 1), NodeCodec.topic(zk.abs(path), n.data()));
            } catch (RuntimeException e) {
                v.problems.add(e.getMessage());
            }
        }));
    }

    /** The partition count of a topic: from the log (Kafka) if it knows the topic, else the topic registry. */
    private static OptionalInt count(String topic, Map<String, Integer> kafkaCounts, GroupView v) {
        Integer k = kafkaCounts.get(topic);
        return k != null ? OptionalInt.of(k) : v.registryCount(topic);
    }

    private String countSource(String topic, Map<String, Integer> kafkaCounts) {
        return kafkaCounts.containsKey(topic) ? "in " + bounds.map(LogBounds::describe).orElse("the log") : "in the topic registry";
    }

    private void requireKnownTopic(GroupView v, String topic, Map<String, Integer> kafkaCounts, String where) {
        boolean known = count(topic, kafkaCounts, v).isPresent() || !v.knownPartitions(topic).isEmpty()
                || v.subscribes(topic);
        if (!known) {
            throw new AdminException("unknown topic '" + topic + "'" + where + ": not in "
                    + (bounds.isPresent() ? bounds.get().describe() + ", not in " : "")
                    + "the topic registry, and group " + v.group + " has no offsets, owners or members for it"
                    + (bounds.isEmpty() ? " (pass --bootstrap to look it up in Kafka)" : ""));
        }
    }

    private void requireKnown(GroupView v, TopicPartition tp, Map<String, Integer> kafkaCounts, String where) {
        requireKnownTopic(v, tp.topic(), kafkaCounts, where);
        OptionalInt n = count(tp.topic(), kafkaCounts, v);
        if (n.isPresent()) {
            if (tp.partition() >= n.getAsInt()) {
                throw new AdminException("unknown partition " + tp + where + ": topic " + tp.topic() + " has "
                        + n.getAsInt() + " partition(s) " + countSource(tp.topic(), kafkaCounts));
            }
        } else if (!v.knownPartitions(tp.topic()).contains(tp.partition())) {
            throw new AdminException("unknown partition " + tp + where + ": group " + v.group
                    + " has no offset, owner or target for it and the partition count of " + tp.topic() + " is unknown"
                    + (bounds.isEmpty() ? " (pass --bootstrap)" : ""));
        }
    }

    // ================================================================== writing

    private Fresh readFresh(Planning p) {
        String g = p.view.group;
        Map<String, Optional<List<String>>> folders = reader.children(List.of(ZkPaths.offsets(g), ZkPaths.owners(g)));
        boolean groupExists = reader.data(ZkPaths.group(g)).isPresent();
        Map<String, TopicPartition> paths = new LinkedHashMap<>();
        p.selected.forEach(tp -> paths.put(ZkPaths.offset(g, tp), tp));
        Map<TopicPartition, Optional<GroupView.OffsetNode>> offsets = new HashMap<>();
        if (groupExists) {
            reader.data(paths.keySet()).forEach((path, node) ->
                    offsets.put(paths.get(path), node.map(n -> GroupView.decode(reader, path, n, null))));
        }
        return new Fresh(offsets, new TreeSet<>(folders.get(ZkPaths.offsets(g)).orElse(List.of())),
                new TreeSet<>(folders.get(ZkPaths.owners(g)).orElse(List.of())), groupExists);
    }

    private ResetPlan execute(Planning p) {
        KeeperException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            Fresh fresh = readFresh(p);
            if (!fresh.groupExists && !p.op.mayCreateGroup) {
                throw unknownGroup(p.view.group);
            }
            ResetPlan plan = p.plan(fresh, attempt);
            if (plan.writes().isEmpty()) {
                return plan.asExecuted(attempt);
            }
            Map<TopicPartition, byte[]> bodies = bodies(plan, fresh, clock.instant());
            List<CuratorOp> ops = ops(plan, bodies);
            beforeWrite.accept(plan);
            try {
                client.transaction().forOperations(ops);
                return plan.asExecuted(attempt);
            } catch (KeeperException e) {
                if (alreadyApplied(plan, bodies)) {
                    return plan.asExecuted(attempt); // our own write, retried by the client after a connection loss
                }
                if (!isConflict(e)) {
                    throw writeFailure(p.op.name + " of group " + p.view.group, e);
                }
                last = e;
                backoff(attempt);
            } catch (Exception e) {
                if (alreadyApplied(plan, bodies)) {
                    return plan.asExecuted(attempt);
                }
                throw new AdminException(p.op.name + " of group " + p.view.group + " failed: " + e.getMessage()
                        + "; nothing was written", e);
            }
        }
        throw new AdminException("the offsets of group " + p.view.group + " changed under each of " + maxAttempts
                + " attempts (members committing very often?); nothing was written. Last conflict: "
                + (last == null ? "?" : last.code() + (last.getPath() != null ? " " + last.getPath() : "")));
    }

    private Map<TopicPartition, byte[]> bodies(ResetPlan plan, Fresh fresh, Instant now) {
        Map<TopicPartition, byte[]> bodies = new LinkedHashMap<>();
        String by = plan.operation().startsWith("migrate ") ? "admin:migrate:" + plan.operation().substring(8)
                : "admin:" + plan.operation();
        for (ResetPlan.Entry e : plan.writes()) {
            long generation = fresh.offsets.getOrDefault(e.partition(), Optional.empty())
                    .flatMap(GroupView.OffsetNode::body).map(OffsetBody::generation).orElse(0L);
            // Keep the commit history, with the reset as its newest sample: lag status then shows REWIND (or the jump).
            List<CommitSample> history = fresh.offsets.getOrDefault(e.partition(), Optional.empty())
                    .flatMap(GroupView.OffsetNode::body).map(OffsetBody::history).orElse(List.of());
            if (e.target().isPresent()) {
                history = NodeCodec.append(history, new CommitSample(e.target().getAsLong(), OptionalLong.empty(), now));
            }
            bodies.put(e.partition(), NodeCodec.offset(new OffsetBody(e.target(), "", Optional.of(by), generation,
                    Optional.of(now), history)));
        }
        return bodies;
    }

    private long estimate(ResetPlan plan, Map<TopicPartition, byte[]> bodies) {
        long bytes = 0;
        for (ResetPlan.Entry e : plan.writes()) {
            bytes += zk.abs(ZkPaths.offset(plan.group(), e.partition())).length() + bodies.get(e.partition()).length + OP_OVERHEAD;
        }
        for (String f : plan.createsFolders()) {
            bytes += zk.abs(f).length() + OP_OVERHEAD;
        }
        return bytes + (plan.createsGroup() ? 6 * (zk.abs(ZkPaths.group(plan.group())).length() + 100) : 0);
    }

    private List<CuratorOp> ops(ResetPlan plan, Map<TopicPartition, byte[]> bodies) {
        String g = plan.group();
        List<CuratorOp> ops = new ArrayList<>();
        try {
            if (plan.createsGroup()) {
                zk.ensurePath(ZkPaths.GROUPS, new byte[0]); // a structural, empty parent; harmless on its own
                Instant now = clock.instant();
                ops.add(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(ZkPaths.group(g),
                        NodeCodec.group(new NodeCodec.GroupBody(now, Assignors.defaultAssignor().name()))));
                for (String child : List.of(ZkPaths.members(g), ZkPaths.leader(g), ZkPaths.owners(g), ZkPaths.offsets(g))) {
                    ops.add(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(child, new byte[0]));
                }
                ops.add(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(ZkPaths.assignment(g),
                        NodeCodec.assignment(new NodeCodec.AssignmentBody(0, Optional.empty(), now, 0))));
            }
            for (String folder : plan.createsFolders()) {
                ops.add(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(folder, new byte[0]));
            }
            for (ResetPlan.Entry e : plan.writes()) {
                String path = ZkPaths.offset(g, e.partition());
                byte[] body = bodies.get(e.partition());
                ops.add(e.expectedVersion() < 0
                        ? client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, body)
                        : client.transactionOp().setData().withVersion(e.expectedVersion()).forPath(path, body));
            }
        } catch (StoreException e) {
            throw new AdminException(e.getMessage(), e);
        } catch (Exception e) {
            throw ZkSession.failure("prepare transaction", e);
        }
        return ops;
    }

    /** Whether every node of the plan holds exactly the body we wrote (a transaction retried after a lost reply). */
    private boolean alreadyApplied(ResetPlan plan, Map<TopicPartition, byte[]> bodies) {
        try {
            Map<String, TopicPartition> paths = new LinkedHashMap<>();
            bodies.keySet().forEach(tp -> paths.put(ZkPaths.offset(plan.group(), tp), tp));
            Map<String, Optional<ZkNode>> now = reader.data(paths.keySet());
            for (Map.Entry<String, TopicPartition> e : paths.entrySet()) {
                Optional<ZkNode> n = now.get(e.getKey());
                if (n.isEmpty() || !Arrays.equals(n.get().data(), bodies.get(e.getValue()))) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void requireFits(long bytes, String what, String hint) {
        if (bytes > maxTransactionBytes) {
            throw new AdminException(what + " needs a transaction of about " + (bytes / 1024) + " KiB, more than the "
                    + (maxTransactionBytes / 1024) + " KiB that fit one ZooKeeper transaction (jute.maxbuffer); "
                    + "it is not split, so it could not apply in part" + (hint.isEmpty() ? "" : ": " + hint));
        }
    }

    private List<String> subtree(String root) {
        List<String> all = new ArrayList<>();
        List<String> level = List.of(root);
        while (!level.isEmpty()) {
            all.addAll(level);
            List<String> next = new ArrayList<>();
            reader.children(level).forEach((parent, children) ->
                    children.orElse(List.of()).forEach(c -> next.add(parent + "/" + c)));
            level = next;
        }
        return all; // parents before children
    }

    private static boolean isConflict(KeeperException e) {
        return switch (e.code()) {
            case BADVERSION, NODEEXISTS, NONODE, NOTEMPTY -> true;
            default -> false;
        };
    }

    private AdminException writeFailure(String what, KeeperException e) {
        if (e.code() == KeeperException.Code.NOAUTH) {
            return new AdminException(what + " refused by ZooKeeper: not authorized (the group's nodes have ACLs; "
                    + "pass the digest credentials they were created with)", e);
        }
        return new AdminException(what + " failed: ZooKeeper " + e.code()
                + (e.getPath() != null ? " " + e.getPath() : "") + "; nothing was written", e);
    }

    private void backoff(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, Math.min(100, 5L * attempt) + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted; nothing was written");
        }
    }

    private GroupView requireGroup(String group) {
        GroupView v = GroupView.read(reader, group);
        if (!v.exists) {
            throw unknownGroup(group);
        }
        return v;
    }

    private AdminException unknownGroup(String group) {
        return new AdminException("unknown group '" + group + "' (no node " + zk.abs(ZkPaths.group(group)) + ")");
    }

    private static SortedMap<TopicPartition, Long> committed(Map<TopicPartition, GroupView.OffsetNode> nodes, String topic) {
        SortedMap<TopicPartition, Long> out = new TreeMap<>();
        nodes.forEach((tp, n) -> {
            if (topic == null || tp.topic().equals(topic)) {
                n.body().flatMap(b -> b.offset().isPresent() ? Optional.of(b.offset().getAsLong()) : Optional.empty())
                        .ifPresent(o -> out.put(tp, o));
            }
        });
        return out;
    }

    private static String topicsOf(Collection<TopicPartition> partitions) {
        return String.join(", ", partitions.stream().map(TopicPartition::topic).distinct().sorted().toList());
    }

    private static OptionalLong opt(Long v) {
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    private static String abbreviate(byte[] data) {
        String s = new String(data, java.nio.charset.StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        return "'" + (s.length() <= 60 ? s : s.substring(0, 57) + "...") + "'";
    }

    /**
     * Configures a {@link GroupAdmin}: either on an existing {@link ZooKeeperStore} ({@link #store}) or on its own
     * store ({@link #connectString}, {@link #namespace}, {@link #digest}, {@link #connectionTimeout}), started by
     * {@link #build()} and closed with the admin.
     */
    public static final class Builder {
        private ZooKeeperStore store;
        private String connectString;
        private String namespace = "groupkeeper";
        private String digest;
        private Duration connectionTimeout = Duration.ofSeconds(10);
        private LogBounds logBounds;
        private Clock clock = Clock.systemUTC();
        private int maxTransactionBytes = DEFAULT_MAX_TRANSACTION_BYTES;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private java.util.function.Consumer<ResetPlan> beforeWrite = plan -> { };

        private Builder() {
        }

        /** Use this started store (not closed by the admin). Excludes {@link #connectString}. */
        public Builder store(ZooKeeperStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        public Builder connectString(String connectString) {
            this.connectString = connectString;
            return this;
        }

        /** Default {@code groupkeeper}. */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** ZooKeeper digest credentials {@code user:password}, for groups whose nodes have ACLs. */
        public Builder digest(String userColonPassword) {
            this.digest = userColonPassword;
            return this;
        }

        public Builder connectionTimeout(Duration timeout) {
            this.connectionTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Where log bounds come from (Kafka); without it targets are not clamped and log ends are unknown. */
        public Builder logBounds(LogBounds logBounds) {
            this.logBounds = logBounds;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Refuse plans whose single transaction would be larger than this (default 900 KiB). */
        public Builder maxTransactionBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxTransactionBytes must be >= 1024, was " + bytes);
            }
            this.maxTransactionBytes = bytes;
            return this;
        }

        /** How many times a plan is made again after concurrent writes invalidated it (default 25). */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1, was " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /** Test seam: runs between planning and writing each attempt (to interleave a concurrent write). */
        Builder beforeWrite(java.util.function.Consumer<ResetPlan> hook) {
            this.beforeWrite = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * Builds the admin; with {@link #connectString} this connects (and throws {@link StoreException} with a clear
         * message when ZooKeeper cannot be reached).
         */
        public GroupAdmin build() {
            if (store != null) {
                if (connectString != null) {
                    throw new IllegalStateException("GroupAdmin: give either store(...) or connectString(...), not both");
                }
                return new GroupAdmin(this, store, false);
            }
            if (connectString == null || connectString.isBlank()) {
                throw new IllegalArgumentException("GroupAdmin: connectString (or store) is required");
            }
            ZooKeeperStore.Builder sb = ZooKeeperStore.builder().connectString(connectString).namespace(namespace)
                    .connectionTimeout(connectionTimeout).clock(clock);
            if (digest != null) {
                sb.digest(digest, true);
            }
            ZooKeeperStore s = sb.build();
            s.start();
            return new GroupAdmin(this, s, true);
        }
    }
}

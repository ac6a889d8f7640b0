package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.zkprotocol.ZkPort;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Administration of groupkeeper groups in ZooKeeper: list and describe groups, plan and execute offset resets,
 * export and import offsets, migrate offsets from other systems, delete groups and offsets. The {@code groupkeeper}
 * CLI is a thin layer over this class.
 *
 * <p>Written over the session port ({@link ZkPort}), as the store is: on ZooKeeper, zk-store's {@code
 * io.groupkeeper.zookeeper.admin.ZooKeeperAdmin} connects and builds it; on the testkit's model of ZooKeeper, {@link
 * Builder#port} over the model's port, so the simulator runs this very code (lost replies included).
 *
 * <pre>{@code
 * try (GroupAdmin admin = ZooKeeperAdmin.builder().connectString("zk:2181").logBounds(kafkaBounds).build()) {
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
 * transaction would exceed {@link Builder#maxTransactionBytes} (default 900 KiB, roughly 3,500 partitions; each
 * operation sized as ZooKeeper serializes it) is refused with a message that says so: it is never split, since a
 * split write could apply in part.
 *
 * <p>Thread-safe; one ZooKeeper session. {@link #close()} runs what {@link Builder#onClose} was given (the session
 * when the admin opened it).
 *
 * <p>A facade: reads are {@link GroupInspector}'s, plans {@link ResetPlanner}'s, their writes {@link PlanWriter}'s and
 * deletions {@link GroupDeleter}'s. Refusals name what the operator can do in the library's words ({@link
 * AdminException#remedy()}); the CLI says it with its flags.
 */
public final class GroupAdmin implements AutoCloseable {

    /** Default limit of one transaction's size, below ZooKeeper's default jute.maxbuffer of 1 MiB. */
    public static final int DEFAULT_MAX_TRANSACTION_BYTES = AdminNodes.MAX_TRANSACTION_BYTES;
    /** Default number of plans tried when concurrent commits keep invalidating them. */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;

    private final Runnable onClose;
    private final AdminContext ctx;
    private final GroupInspector inspector;
    private final ResetPlanner planner;
    private final PlanWriter writer;
    private final GroupDeleter deleter;

    private GroupAdmin(Builder b) {
        this.onClose = b.onClose;
        this.ctx = new AdminContext(
                b.port, Optional.ofNullable(b.logBounds), b.clock, b.maxTransactionBytes, b.maxAttempts);
        this.inspector = new GroupInspector(ctx);
        this.planner = new ResetPlanner(ctx);
        this.writer = new PlanWriter(ctx);
        this.deleter = new GroupDeleter(ctx);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** An admin over {@code port}, a connected session, without log bounds; the session stays open on {@link #close()}. */
    public static GroupAdmin on(ZkPort port) {
        return builder().port(port).build();
    }

    /** The log bounds this admin uses, if any. */
    public Optional<LogBounds> logBounds() {
        return ctx.bounds;
    }

    /** The namespace root as an operator would type it in zkCli, e.g. {@code /groupkeeper}. */
    public String root() {
        return ctx.zk.abs("");
    }

    // ================================================================== inspect

    /** Every group under the namespace, sorted by id. */
    public List<GroupSummary> listGroups() {
        return inspector.listGroups();
    }

    /** Members, generation, leader, state and, per partition, owner, committed offset, log end and lag. */
    public GroupDescription describe(String group) {
        return inspector.describe(group);
    }

    /**
     * The group's lag status after Burrow: each partition judged by {@link io.groupkeeper.status.LagEvaluator} from
     * the commits its offset node keeps (with log ends from Kafka when this admin has {@link LogBounds}), and the
     * group's as its worst.
     */
    public GroupStatus status(String group, Duration window) {
        return inspector.status(group, window);
    }

    /**
     * As {@link #status(String, Duration)}, plus a time threshold ({@link io.groupkeeper.status.LagTimeRule}): a
     * partition whose lag in time exceeds {@code maxLagTime} is at least WARN. A partition that is caught up (also when
     * only transaction markers follow its committed offset) is judged with no lag, so neither an idle partition nor a
     * transactional topic's last marker reads as STOP.
     */
    public GroupStatus status(String group, Duration window, Optional<Duration> maxLagTime) {
        return inspector.status(group, window, maxLagTime);
    }

    /** {@link #describe} and {@link #status(String, Duration, Optional)} from one read of the group. */
    public Inspection inspect(String group, Duration window, Optional<Duration> maxLagTime) {
        return inspector.inspect(group, window, maxLagTime);
    }

    /** As {@link #inspect}, empty when the group does not exist (e.g. deleted since it was listed). */
    public Optional<Inspection> tryInspect(String group, Duration window, Optional<Duration> maxLagTime) {
        return inspector.tryInspect(group, window, maxLagTime);
    }

    /** A group's description and status, read together. */
    public record Inspection(GroupDescription description, GroupStatus status) {}

    // ================================================================== reset

    /**
     * The plan of a reset, computed from the offsets stored now; writes nothing. {@code selection} may be null only
     * with {@link ResetSpec.FromOffsets} (then the file's partitions are taken; otherwise it filters them).
     */
    public ResetPlan planReset(String group, PartitionSelection selection, ResetSpec spec) {
        return writer.plan(planner, planner.prepare(group, selection, spec, ResetPlanner.Operation.RESET));
    }

    /**
     * Plans and writes a reset in one transaction; if a concurrent commit or claim invalidated the plan, plans again
     * from the new offsets (up to {@link Builder#maxAttempts} times). Returns the plan that was written.
     *
     * @throws AdminException if the input is bad, the plan is too large, or the offsets kept changing; nothing was
     *                        written then
     */
    public ResetPlan executeReset(String group, PartitionSelection selection, ResetSpec spec) {
        return writer.execute(planner, planner.prepare(group, selection, spec, ResetPlanner.Operation.RESET));
    }

    // ================================================================== export / import

    /** The group's committed offsets (partitions with no committed offset are left out). */
    public SourceOffsets exportOffsets(String group) {
        return inspector.exportOffsets(group);
    }

    /**
     * The plan of an import: the offsets of {@code offsets}, written exactly as given (no clamping; offsets outside a
     * known log are flagged in the notes). The group is created if it does not exist.
     */
    public ResetPlan planImport(String group, SourceOffsets offsets) {
        return writer.plan(planner, importing(group, offsets, ResetPlanner.Operation.IMPORT));
    }

    /** Plans and writes an import in one transaction; see {@link #executeReset} for retries. */
    public ResetPlan executeImport(String group, SourceOffsets offsets) {
        return writer.execute(planner, importing(group, offsets, ResetPlanner.Operation.IMPORT));
    }

    /**
     * The plan of a migration from another system ({@code source} names it, e.g. {@code storm-kafka}): like an import,
     * but targets outside a known log are clamped into it (old systems left offsets beyond the log end).
     */
    public ResetPlan planMigration(String group, String source, SourceOffsets offsets) {
        return writer.plan(planner, importing(group, offsets, ResetPlanner.Operation.migrate(source)));
    }

    /** Plans and writes a migration in one transaction. */
    public ResetPlan executeMigration(String group, String source, SourceOffsets offsets) {
        return writer.execute(planner, importing(group, offsets, ResetPlanner.Operation.migrate(source)));
    }

    private ResetPlanner.Planning importing(String group, SourceOffsets offsets, ResetPlanner.Operation op) {
        return planner.prepare(group, null, new ResetSpec.FromOffsets(offsets), op);
    }

    // ================================================================== delete

    /**
     * Deletes a group with everything below it, in one transaction. Refused while the group has live members unless
     * {@code force} (their member, owner and election nodes are deleted too; they lose their partitions and must be
     * restarted).
     */
    public DeleteResult deleteGroup(String group, boolean force) {
        return deleter.deleteGroup(group, force);
    }

    /**
     * What {@link #deleteGroup} would delete now, from the same read and with the same refusals, deleting nothing (the
     * CLI's dry run): the same deleter, sending nothing.
     */
    public DeleteResult planDeleteGroup(String group, boolean force) {
        return new GroupDeleter(ctx, true).deleteGroup(group, force);
    }

    /**
     * Deletes the committed offsets of one topic of a group in one transaction (each conditioned on the version
     * read): every offset node is kept, with no offset, so its version moves on instead of starting again at 0 (a
     * fence must never repeat). Refused while a live member owns a partition of the topic unless {@code force} (the
     * owner then adopts "no offset" and applies its start position).
     */
    public DeleteResult deleteOffsets(String group, String topic, boolean force) {
        return deleter.deleteOffsets(group, topic, force);
    }

    @Override
    public void close() {
        onClose.run();
    }

    /**
     * Configures a {@link GroupAdmin} over a session port ({@link #port}, required). On ZooKeeper, zk-store's {@code
     * ZooKeeperAdmin.builder()} connects (connect string, namespace, credentials) and fills this in.
     */
    public static final class Builder {
        private ZkPort port;
        private Runnable onClose = () -> {};
        private LogBounds logBounds;
        private Clock clock = Clock.systemUTC();
        private int maxTransactionBytes = DEFAULT_MAX_TRANSACTION_BYTES;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

        private Builder() {}

        /** The session the admin reads and writes through: paths relative to its namespace. */
        public Builder port(ZkPort port) {
            this.port = Objects.requireNonNull(port, "port");
            return this;
        }

        /** Runs on {@link GroupAdmin#close()} (closes the session when the admin opened it); nothing by default. */
        public Builder onClose(Runnable onClose) {
            this.onClose = Objects.requireNonNull(onClose, "onClose");
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

        /** Refuse plans whose single transaction would be larger than this (default 900 KiB, by the store's size rule). */
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

        public GroupAdmin build() {
            if (port == null) {
                throw new IllegalStateException("GroupAdmin: port(...) is required (on ZooKeeper, build it with "
                        + "ZooKeeperAdmin.builder())");
            }
            return new GroupAdmin(this);
        }
    }
}

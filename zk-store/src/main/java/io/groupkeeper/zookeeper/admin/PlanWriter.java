package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.zkprotocol.admin.AdminNodes;
import io.groupkeeper.zkprotocol.admin.AdminLayout;
import io.groupkeeper.zookeeper.internal.ZkSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Writes a plan in one transaction, each offset node conditioned on the version read when planning (or created where
 * there was none), with the group's nodes in front when the plan creates the group. A plan that a concurrent commit or
 * claim invalidated is made again from the new offsets, up to the admin's attempts; a plan too large for one
 * transaction is refused, never split, since a split write could apply in part.
 */
final class PlanWriter {

    private final AdminContext ctx;
    private final Consumer<ResetPlan> beforeWrite;
    private final Sender sender;

    /** Sends a transaction: {@code client.transaction().forOperations(ops)}, but for the tests' lost replies. */
    @FunctionalInterface
    interface Sender {
        void send(CuratorFramework client, List<CuratorOp> ops) throws Exception;
    }

    PlanWriter(AdminContext ctx, Consumer<ResetPlan> beforeWrite, Sender sender) {
        this.ctx = ctx;
        this.beforeWrite = beforeWrite;
        this.sender = sender;
    }

    /** The plan from the offsets stored now, refused if its transaction would not fit; writes nothing. */
    ResetPlan plan(ResetPlanner planner, ResetPlanner.Planning p) {
        ResetPlanner.Fresh fresh = planner.readFresh(p);
        ResetPlan plan = p.plan(fresh, 1);
        requireFits(p, plan, fresh);
        return plan;
    }

    ResetPlan execute(ResetPlanner planner, ResetPlanner.Planning p) {
        KeeperException last = null;
        for (int attempt = 1; attempt <= ctx.maxAttempts; attempt++) {
            ResetPlanner.Fresh fresh = planner.readFresh(p);
            if (!fresh.groupExists() && !p.op.mayCreateGroup()) {
                throw ctx.unknownGroup(p.view.group);
            }
            ResetPlan plan = p.plan(fresh, attempt);
            if (plan.writes().isEmpty()) {
                return plan.asExecuted(attempt);
            }
            Instant at = ctx.clock.instant();
            Map<TopicPartition, byte[]> bodies = bodies(plan, fresh, at);
            List<CuratorOp> ops = ops(plan, bodies);
            requireFits(p, plan, ops);
            beforeWrite.accept(plan);
            if (plan.createsGroup()) {
                try {
                    ctx.zk.ensurePath(AdminLayout.GROUPS, new byte[0]); // a structural, empty parent; harmless on its own
                } catch (StoreException e) {
                    throw new AdminException(e.getMessage(), e);
                }
            }
            String what = p.op.name() + " of group " + p.view.group;
            try {
                sender.send(ctx.client, ops);
                return plan.asExecuted(attempt);
            } catch (KeeperException e) {
                if (AdminContext.isConflict(e)) {
                    if (LostReply.of(ctx, plan, bodies, at, false) == LostReply.Outcome.APPLIED) {
                        return plan.asExecuted(attempt); // the client sent our transaction twice: the first applied
                    }
                    last = e;
                    ctx.backoff(attempt);
                    continue;
                }
                if (!LostReply.outcomeInDoubt(e)) {
                    throw ctx.writeFailure(what, e);
                }
                return afterLostReply(what, plan, bodies, at, attempt, e, "ZooKeeper " + e.code());
            } catch (Exception e) {
                return afterLostReply(what, plan, bodies, at, attempt, e, e.toString());
            }
        }
        throw new AdminException("the offsets of group " + p.view.group + " changed under each of " + ctx.maxAttempts
                + " attempts (members committing very often?); nothing was written. Last conflict: "
                + (last == null ? "?" : last.code() + (last.getPath() != null ? " " + last.getPath() : "")));
    }

    /**
     * The transaction was sent and its reply lost: never planned again (a relative reset would apply twice), but
     * judged from the nodes themselves.
     */
    private ResetPlan afterLostReply(String what, ResetPlan plan, Map<TopicPartition, byte[]> bodies, Instant at,
                                     int attempt, Exception e, String reason) {
        return switch (LostReply.of(ctx, plan, bodies, at, true)) {
            case APPLIED -> plan.asExecuted(attempt); // our own write: its reply was lost, or the client sent it twice
            case NOT_APPLIED -> throw new AdminException(what + " failed: " + reason + "; nothing was written", e);
            case UNKNOWN -> throw new OutcomeUnknownException(what + ": " + reason + " after the transaction was sent, "
                    + "and the offset nodes do not tell whether it was applied; look at the offsets (export them, or "
                    + "plan again without executing) before running it again", e);
        };
    }

    private void requireFits(ResetPlanner.Planning p, ResetPlan plan, ResetPlanner.Fresh fresh) {
        requireFits(p, plan, ops(plan, bodies(plan, fresh, ctx.clock.instant())));
    }

    private void requireFits(ResetPlanner.Planning p, ResetPlan plan, List<CuratorOp> ops) {
        ctx.requireFits(ZkSession.bytes(ops.stream().map(CuratorOp::get).toList()), p.op.name() + " of " + plan.writes().size()
                        + " partitions of group " + p.view.group + (p.selection == null ? "" : " (" + p.selection + ")"),
                AdminException.Remedy.SELECT_FEWER);
    }

    private Map<TopicPartition, byte[]> bodies(ResetPlan plan, ResetPlanner.Fresh fresh, Instant now) {
        Map<TopicPartition, byte[]> bodies = new LinkedHashMap<>();
        String by = plan.operation().startsWith("migrate ") ? "admin:migrate:" + plan.operation().substring(8)
                : "admin:" + plan.operation();
        for (ResetPlan.Entry e : plan.writes()) {
            Optional<AdminNodes.Offset> stored = fresh.offsets().getOrDefault(e.partition(), Optional.empty())
                    .flatMap(GroupView.OffsetNode::body);
            long generation = stored.map(AdminNodes.Offset::generation).orElse(0L);
            // Keep the commit history, with the reset as its newest sample: lag status then shows REWIND (or the jump).
            List<CommitSample> history = stored.map(AdminNodes.Offset::history).orElse(List.of());
            if (e.target().isPresent()) {
                history = AdminNodes.append(history, new CommitSample(e.target().getAsLong(), OptionalLong.empty(), now));
            }
            bodies.put(e.partition(), AdminNodes.encode(new AdminNodes.Offset(e.target(), "", Optional.of(by), generation,
                    Optional.of(now), history)));
        }
        return bodies;
    }

    /** The plan's operations (no side effect: planning builds them too, to size them). */
    private List<CuratorOp> ops(ResetPlan plan, Map<TopicPartition, byte[]> bodies) {
        String g = plan.group();
        List<CuratorOp> ops = new ArrayList<>();
        try {
            if (plan.createsGroup()) {
                ops.addAll(AdminNodes.groupCreation(g, Assignors.defaultAssignor().name(), ctx.clock.instant()).stream().map(ctx.zk::op).toList());
            }
            for (String folder : plan.createsFolders()) {
                ops.add(ctx.client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(folder, new byte[0]));
            }
            for (ResetPlan.Entry e : plan.writes()) {
                String path = AdminLayout.offset(g, e.partition());
                byte[] body = bodies.get(e.partition());
                ops.add(e.expectedVersion() < 0
                        ? ctx.client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, body)
                        : ctx.client.transactionOp().setData().withVersion(e.expectedVersion()).forPath(path, body));
            }
        } catch (StoreException e) {
            throw new AdminException(e.getMessage(), e);
        } catch (Exception e) {
            throw ZkSession.failure("prepare transaction", e);
        }
        return ops;
    }
}

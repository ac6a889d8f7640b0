package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Writes a plan in one transaction, each offset node conditioned on the version read when planning (or created where
 * there was none), with the group's nodes in front when the plan creates the group. A plan that a concurrent commit or
 * claim invalidated is made again from the new offsets, up to the admin's attempts; a plan too large for one
 * transaction is refused, never split, since a split write could apply in part. Written over the session port: the
 * same code runs on ZooKeeper and on the simulator's model, lost replies included.
 */
final class PlanWriter {

    private final AdminContext ctx;

    PlanWriter(AdminContext ctx) {
        this.ctx = ctx;
    }

    /** The plan from the offsets stored now, refused if its transaction would not fit; writes nothing. */
    ResetPlan plan(ResetPlanner planner, ResetPlanner.Planning p) {
        ResetPlanner.Fresh fresh = planner.readFresh(p);
        ResetPlan plan = p.plan(fresh, 1);
        requireFits(p, plan, fresh);
        return plan;
    }

    ResetPlan execute(ResetPlanner planner, ResetPlanner.Planning p) {
        ZkFailure last = null;
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
            Sample sample = new Sample(marked(at), histories(plan, fresh));
            List<ZkOp> ops = ops(plan, bodies);
            requireFits(p, plan, ops);
            if (plan.createsGroup()) {
                try {
                    ctx.zk.ensurePath(
                            AdminLayout.GROUPS, new byte[0]); // a structural, empty parent; harmless on its own
                } catch (StoreException e) {
                    throw new AdminException(e.getMessage(), e);
                }
            }
            String what = p.op.name() + " of group " + p.view.group;
            try {
                ctx.zk.multi(ops);
                return plan.asExecuted(attempt);
            } catch (ZkFailure e) {
                if (AdminContext.isConflict(e)) {
                    if (LostReply.of(ctx, plan, bodies, sample, false) == LostReply.Outcome.APPLIED) {
                        return plan.asExecuted(attempt); // the client sent our transaction twice: the first applied
                    }
                    last = e;
                    ctx.backoff(attempt);
                    ctx.syncQuietly(AdminLayout.group(p.view.group)); // plan again from what the leader has
                    continue;
                }
                if (!LostReply.outcomeInDoubt(e)) {
                    throw ctx.writeFailure(what, e);
                }
                return afterLostReply(what, plan, bodies, sample, attempt, e, "ZooKeeper " + e.code());
            } catch (RuntimeException e) {
                // Not sent (not connected), or sent and failed without an answer: the nodes tell which.
                return afterLostReply(what, plan, bodies, sample, attempt, e, e.getMessage());
            }
        }
        throw new AdminException("the offsets of group " + p.view.group + " changed under each of " + ctx.maxAttempts
                + " attempts (members committing very often?); nothing was written. Last conflict: "
                + (last == null ? "?" : last.code() + (last.path() != null ? " " + last.path() : "")));
    }

    /**
     * The transaction was sent and its reply lost: never planned again (a relative reset would apply twice), but
     * judged from the nodes themselves.
     */
    private ResetPlan afterLostReply(
            String what,
            ResetPlan plan,
            Map<TopicPartition, byte[]> bodies,
            Sample sample,
            int attempt,
            Exception e,
            String reason) {
        return switch (LostReply.of(ctx, plan, bodies, sample, true)) {
            case APPLIED -> plan.asExecuted(attempt); // our own write: its reply was lost, or the client sent it twice
            case NOT_APPLIED -> throw new AdminException(what + " failed: " + reason + "; nothing was written", e);
            case UNKNOWN ->
                throw new OutcomeUnknownException(
                        what + ": " + reason + " after the transaction was sent, "
                                + "and the offset nodes do not tell whether it was applied; look at the offsets (export them, or "
                                + "plan again without executing) before running it again",
                        e);
        };
    }

    private void requireFits(ResetPlanner.Planning p, ResetPlan plan, ResetPlanner.Fresh fresh) {
        requireFits(p, plan, ops(plan, bodies(plan, fresh, ctx.clock.instant())));
    }

    private void requireFits(ResetPlanner.Planning p, ResetPlan plan, List<ZkOp> ops) {
        ctx.requireFits(
                ctx.bytes(ops),
                p.op.name() + " of " + plan.writes().size() + " partitions of group " + p.view.group
                        + (p.selection == null ? "" : " (" + p.selection + ")"),
                AdminException.Remedy.SELECT_FEWER);
    }

    private Map<TopicPartition, byte[]> bodies(ResetPlan plan, ResetPlanner.Fresh fresh, Instant now) {
        Map<TopicPartition, byte[]> bodies = new LinkedHashMap<>();
        String by = plan.operation().startsWith("migrate ")
                ? "admin:migrate:" + plan.operation().substring(8)
                : "admin:" + plan.operation();
        for (ResetPlan.Entry e : plan.writes()) {
            Optional<AdminNodes.Offset> stored = fresh.offsets()
                    .getOrDefault(e.partition(), Optional.empty())
                    .flatMap(GroupView.OffsetNode::body);
            long generation = stored.map(AdminNodes.Offset::generation).orElse(0L);
            // Keep the commit history, with the reset as its newest sample: lag status then shows REWIND (or the jump).
            List<CommitSample> history = stored.map(AdminNodes.Offset::history).orElse(List.of());
            if (e.target().isPresent()) {
                history = AdminNodes.append(
                        history, new CommitSample(e.target().getAsLong(), OptionalLong.empty(), marked(now)));
            }
            // No done value: what a consumer recorded as done above the old offset does not hold above the new one
            // (I4).
            bodies.put(
                    e.partition(),
                    AdminNodes.encode(new AdminNodes.Offset(
                            e.target(), "", Optional.of(by), generation, Optional.of(now), history)));
        }
        return bodies;
    }

    /**
     * The instant of the plan's sample: {@code now} to the microsecond plus {@link #SAMPLE_MARK} nanoseconds. An
     * owner's commit of the plan's target at the plan's instant (a caught-up owner and a shift clamped at the log end)
     * would otherwise write the very sample the plan writes, and a transaction that did not land would be taken for
     * applied after a lost reply or a conflict; members' clocks tick in microseconds or coarser, so the mark is the
     * plan's alone. The body's {@code updatedAt} keeps {@code now}.
     */
    static Instant marked(Instant now) {
        return now.truncatedTo(ChronoUnit.MICROS).plusNanos(SAMPLE_MARK);
    }

    /** See {@link #marked}: a sub-microsecond part no member's commit sample carries. */
    static final long SAMPLE_MARK = 1;

    /** The plan's sample's instant, and each written node's commit history as the plan read it. */
    record Sample(Instant at, Map<TopicPartition, List<CommitSample>> read) {}

    /** The commit history of each partition the plan writes, as the plan read it (empty where it read none). */
    private static Map<TopicPartition, List<CommitSample>> histories(ResetPlan plan, ResetPlanner.Fresh fresh) {
        Map<TopicPartition, List<CommitSample>> out = new LinkedHashMap<>();
        for (ResetPlan.Entry e : plan.writes()) {
            out.put(
                    e.partition(),
                    fresh.offsets()
                            .getOrDefault(e.partition(), Optional.empty())
                            .flatMap(GroupView.OffsetNode::body)
                            .map(AdminNodes.Offset::history)
                            .orElse(List.of()));
        }
        return out;
    }

    /** The plan's operations (no side effect: planning builds them too, to size them). */
    private List<ZkOp> ops(ResetPlan plan, Map<TopicPartition, byte[]> bodies) {
        String g = plan.group();
        List<ZkOp> ops = new ArrayList<>();
        if (plan.createsGroup()) {
            ops.addAll(AdminNodes.groupCreation(g, Assignors.defaultAssignor().name(), ctx.clock.instant()));
        }
        for (String folder : plan.createsFolders()) {
            ops.add(ZkOp.create(folder, new byte[0]));
        }
        for (ResetPlan.Entry e : plan.writes()) {
            String path = AdminLayout.offset(g, e.partition());
            byte[] body = bodies.get(e.partition());
            ops.add(e.expectedVersion() < 0 ? ZkOp.create(path, body) : ZkOp.set(path, body, e.expectedVersion()));
        }
        if (!plan.writes().isEmpty()) {
            // A partition the plan skips (a shift of no committed offset, an unreadable body) is guarded too: one
            // whose node changes before the write (a first commit) makes the plan again, so the reset is what the
            // spec asks of the offsets it lands on, for every partition it selected.
            for (ResetPlan.Entry e : plan.entries()) {
                if (!e.writes() && e.expectedVersion() >= 0) {
                    ops.add(ZkOp.check(AdminLayout.offset(g, e.partition()), e.expectedVersion()));
                }
            }
        }
        return ops;
    }
}

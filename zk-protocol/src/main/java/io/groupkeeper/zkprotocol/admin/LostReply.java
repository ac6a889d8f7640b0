package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.status.CommitSample;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Tells, after a plan's transaction lost its reply (the connection dropped, the session ended, the call timed out),
 * whether ZooKeeper applied it. A transaction applies whole or not at all, so one node that answers settles it: a node
 * still at the version the plan expected was not written by the plan (looked at first: it is the surest answer); a
 * node that holds the body written, or whose commit history still holds the plan's own sample (a live owner adopts a
 * reset and rewrites the node at its next commit, keeping the history) and did not when the plan read it, was (the
 * sample's instant carries a mark no member's commit does, {@link PlanWriter#marked}); a node still absent where the plan
 * created it was not. Anything else (read failed, the nodes moved on without a trace of the plan) is {@link
 * Outcome#UNKNOWN}, which the caller must say, since a relative reset run again would apply twice.
 */
final class LostReply {

    enum Outcome {
        APPLIED,
        NOT_APPLIED,
        UNKNOWN
    }

    /**
     * Lost replies are told from definite refusals (an ACL, an unimplemented or malformed request), after which nothing
     * was written. The port names only the codes the store inspects; the rest ({@link ZkCode#OTHER}: a moved session,
     * a request timeout among them) is judged from the nodes too, which is right whichever it was.
     */
    static boolean outcomeInDoubt(ZkFailure e) {
        return switch (e.code()) {
            case CONNECTIONLOSS, SESSIONEXPIRED, OPERATIONTIMEOUT, OTHER -> true;
            default -> false;
        };
    }

    private LostReply() {}

    /**
     * {@code bodies}: the body the plan wrote to each partition's offset node; {@code sample}: the instant of the plan's
     * samples in those bodies and each node's history as the plan read it; {@code replyLost}: the connection dropped after sending, so the server read from may lag
     * behind the one that took the write and is synced first (after a reply that came back, such as a conflict, the
     * session's order already puts the read behind it).
     */
    static Outcome of(
            AdminContext ctx,
            ResetPlan plan,
            Map<TopicPartition, byte[]> bodies,
            PlanWriter.Sample sample,
            boolean replyLost) {
        try {
            Map<String, ResetPlan.Entry> byPath = new LinkedHashMap<>();
            plan.writes().forEach(e -> byPath.put(AdminLayout.offset(plan.group(), e.partition()), e));
            if (replyLost && !synced(ctx, AdminLayout.group(plan.group()))) {
                return Outcome.UNKNOWN;
            }
            Map<String, Optional<ZkNode>> now = ctx.reader.data(byPath.keySet());
            // A node still at the version the plan read settles it first: the transaction would have moved it. A
            // history is weaker evidence (an owner's own commit of the plan's target at the plan's instant looks
            // like the plan's sample).
            for (Map.Entry<String, ResetPlan.Entry> e : byPath.entrySet()) {
                Optional<ZkNode> node = now.get(e.getKey());
                long expected = e.getValue().expectedVersion();
                if (expected >= 0
                        && node != null
                        && node.isPresent()
                        && node.get().stat().version() == expected) {
                    return Outcome.NOT_APPLIED;
                }
            }
            Outcome seen = Outcome.UNKNOWN;
            for (Map.Entry<String, ResetPlan.Entry> e : byPath.entrySet()) {
                ResetPlan.Entry entry = e.getValue();
                Outcome o = judge(ctx, e.getKey(), entry, now.get(e.getKey()), bodies.get(entry.partition()), sample);
                if (o == Outcome.APPLIED) {
                    return o;
                }
                if (o == Outcome.NOT_APPLIED) {
                    seen = o;
                }
            }
            return seen;
        } catch (RuntimeException e) {
            return Outcome.UNKNOWN;
        }
    }

    private static Outcome judge(
            AdminContext ctx,
            String path,
            ResetPlan.Entry e,
            Optional<ZkNode> node,
            byte[] written,
            PlanWriter.Sample sample) {
        if (node == null || node.isEmpty()) {
            return e.expectedVersion() < 0
                    ? Outcome.NOT_APPLIED
                    : Outcome.UNKNOWN; // deleted since: no trace either way
        }
        ZkNode n = node.get();
        if (Arrays.equals(n.data(), written) || holdsSample(ctx, path, n, e, sample)) {
            return Outcome.APPLIED;
        }
        if (e.expectedVersion() >= 0 && n.stat().version() == e.expectedVersion()) {
            return Outcome.NOT_APPLIED;
        }
        return Outcome.UNKNOWN;
    }

    /** Whether the node's history holds the plan's sample more often than the node as the plan read it did. */
    private static boolean holdsSample(
            AdminContext ctx, String path, ZkNode n, ResetPlan.Entry e, PlanWriter.Sample sample) {
        if (e.target().isEmpty()) {
            return false;
        }
        try {
            long target = e.target().getAsLong();
            Predicate<CommitSample> plans = s -> s.at().equals(sample.at()) && s.offset() == target;
            long before = sample.read().getOrDefault(e.partition(), List.of()).stream()
                    .filter(plans)
                    .count();
            return AdminNodes.offset(ctx.zk.abs(path), n.data()).history().stream()
                            .filter(plans)
                            .count()
                    > before;
        } catch (CorruptNodeException corrupt) {
            return false;
        }
    }

    /** Brings the server this client reads from up to date with the leader, so a write still in flight is seen. */
    private static boolean synced(AdminContext ctx, String path) {
        return ctx.syncQuietly(path);
    }
}

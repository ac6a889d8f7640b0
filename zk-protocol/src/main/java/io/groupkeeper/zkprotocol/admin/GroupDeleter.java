package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * Deletes a group, or the offsets of one of its topics, each in one transaction built from a fresh read; a transaction
 * that lost a race (a node appeared or vanished, a member committed) is built again from a new read, in one retry
 * loop shared by both.
 */
final class GroupDeleter {

    private final AdminContext ctx;
    /** A dry run: every attempt is prepared (read, checked, refused as a delete would be) and nothing is sent. */
    private final boolean dryRun;

    GroupDeleter(AdminContext ctx) {
        this(ctx, false);
    }

    GroupDeleter(AdminContext ctx, boolean dryRun) {
        this.ctx = ctx;
        this.dryRun = dryRun;
    }

    /**
     * One attempt's transaction, the result it has once it lands, and how to tell from a fresh read that it landed
     * (after a lost reply; a deletion is idempotent, so that is all the operator needs to know).
     */
    private record Deletion(List<ZkOp> ops, DeleteResult result, BooleanSupplier landed) {}

    /** How one attempt is built from a fresh read (it may refuse, with an {@link AdminException}). */
    @FunctionalInterface
    private interface Attempt {
        Deletion prepare();
    }

    DeleteResult deleteGroup(String group, boolean force) {
        return delete("delete group " + group, () -> {
            GroupView v = ctx.requireGroup(group);
            // Counted from the member nodes as listed, not as decoded: a live member whose node this version cannot
            // read (a newer one in a rolling upgrade) is live all the same.
            if (!v.memberNodes.isEmpty() && !force) {
                throw new AdminException(
                        "group " + group + " has " + v.memberNodes.size() + " live member(s) ("
                                + String.join(", ", v.memberNodes) + "); stop them first",
                        AdminException.Remedy.FORCE,
                        null);
            }
            List<String> nodes = subtree(AdminLayout.group(group));
            List<ZkOp> ops = new ArrayList<>();
            for (int i = nodes.size() - 1; i >= 0; i--) { // children before parents
                ops.add(ZkOp.delete(nodes.get(i), -1));
            }
            ctx.requireFits(
                    ctx.bytes(ops),
                    "deleting group " + group + " (" + nodes.size() + " nodes)",
                    AdminException.Remedy.DELETE_OFFSETS_FIRST);
            return new Deletion(
                    ops,
                    new DeleteResult(
                            group,
                            "group",
                            nodes.size(),
                            AdminContext.committed(v.offsets, null),
                            new ArrayList<>(v.memberNodes)),
                    () -> {
                        // Gone, or made again since (live members re-create their election node: a shell of the group).
                        GroupView now = GroupView.read(ctx.reader, group);
                        return !now.exists || now.createdZxid != v.createdZxid;
                    });
        });
    }

    DeleteResult deleteOffsets(String group, String topic, boolean force) {
        Names.requireValid("topic", topic);
        return delete("delete offsets of topic " + topic + " in group " + group, () -> {
            GroupView v = ctx.requireGroup(group);
            SortedMap<TopicPartition, GroupView.OffsetNode> nodes = new TreeMap<>();
            v.offsets.forEach((tp, n) -> {
                if (tp.topic().equals(topic)) {
                    nodes.put(tp, n);
                }
            });
            if (nodes.isEmpty()) {
                throw new AdminException("group " + group + " has no offsets for topic '" + topic + "'"
                        + (v.offsets.isEmpty()
                                ? ""
                                : " (it has offsets for " + AdminContext.topicsOf(v.offsets.keySet()) + ")"));
            }
            // Live, or about to be: an owner node; a live member that subscribes (it claims the topic's partitions at
            // its next generation); a target while the group has members (a static member inside its grace period,
            // a partition between one owner's release and the next one's claim). Each would resume from a cleared
            // node at its start position.
            List<String> owners = new ArrayList<>();
            SortedSet<String> holders = new TreeSet<>();
            v.owners.forEach((tp, o) -> {
                if (tp.topic().equals(topic)) {
                    owners.add(tp + " owned by " + o.memberId());
                    holders.add(o.memberId());
                }
            });
            v.members.forEach((m, info) -> {
                if (info.topics().contains(topic) && holders.add(m)) {
                    owners.add("live member " + m + " subscribes to it");
                }
            });
            if (!v.memberNodes.isEmpty()) {
                v.targets.forEach((m, partitions) -> {
                    if (partitions.stream().anyMatch(tp -> tp.topic().equals(topic)) && holders.add(m)) {
                        owners.add("the current generation assigns it to " + m
                                + (v.members.containsKey(m)
                                        ? ""
                                        : " (not connected now: a static member's grace period?)"));
                    }
                });
            }
            if (!owners.isEmpty() && !force) {
                throw new AdminException(
                        "topic " + topic + " of group " + group + " is in use (" + String.join("; ", owners)
                                + "); stop them first",
                        AdminException.Remedy.FORCE,
                        null);
            }
            List<ZkOp> ops = new ArrayList<>();
            for (Map.Entry<TopicPartition, GroupView.OffsetNode> e : nodes.entrySet()) {
                // Cleared, not deleted: a deleted node comes back at version 0, where an owner's remembered
                // version may be; a cleared one moves on, so every fenced write prepared before it fails.
                ops.add(ZkOp.set(
                        AdminLayout.offset(group, e.getKey()),
                        AdminNodes.encode(AdminNodes.Offset.none()),
                        e.getValue().version()));
            }
            ctx.requireFits(ctx.bytes(ops), "deleting " + nodes.size() + " offsets of topic " + topic, null);
            return new Deletion(
                    ops,
                    new DeleteResult(
                            group,
                            "offsets of topic " + topic,
                            nodes.size(),
                            AdminContext.committed(nodes, topic),
                            new ArrayList<>(holders)),
                    () -> cleared(group, nodes.keySet()));
        });
    }

    /**
     * Prepares and sends one deletion per attempt; a conflict (a node appeared or vanished, a member committed) makes
     * it look again, up to the admin's attempts.
     */
    private DeleteResult delete(String what, Attempt attempt) {
        for (int n = 1; ; n++) {
            Deletion d = attempt.prepare(); // a refusal, a bad name, a failed read: as it is
            if (dryRun) {
                return d.result();
            }
            try {
                ctx.zk.multi(d.ops());
                return d.result();
            } catch (ZkFailure e) {
                if (AdminContext.isConflict(e) && n < ctx.maxAttempts) {
                    ctx.backoff(n);
                    ctx.syncQuietly(AdminLayout.group(group(d))); // look again at what the leader has
                    continue;
                }
                if (!LostReply.outcomeInDoubt(e)) {
                    throw ctx.writeFailure(what, e);
                }
                return afterLostReply(what, d, e, "ZooKeeper " + e.code());
            } catch (RuntimeException e) {
                // Not sent (not connected), or sent and failed without an answer: a fresh read tells which.
                return afterLostReply(what, d, e, e.getMessage());
            }
        }
    }

    private static String group(Deletion d) {
        return d.result().group();
    }

    private DeleteResult afterLostReply(String what, Deletion d, Exception e, String reason) {
        boolean landed;
        try {
            landed = d.landed().getAsBoolean();
        } catch (RuntimeException readFailed) {
            throw new AdminException(
                    what + " failed: " + reason + " after the transaction was sent, and reading again "
                            + "failed too, so whether it applied is unknown; a delete is safe to run again",
                    e);
        }
        if (landed) {
            return d.result(); // applied; only its reply was lost
        }
        throw new AdminException(what + " failed: " + reason + "; nothing was written", e);
    }

    /** Whether every offset node of {@code partitions} is cleared, or gone with its group. */
    private boolean cleared(String group, Collection<TopicPartition> partitions) {
        GroupView v = GroupView.read(ctx.reader, group);
        return partitions.stream().allMatch(tp -> {
            GroupView.OffsetNode n = v.offsets.get(tp);
            return n == null || n.body().map(b -> b.offset().isEmpty()).orElse(false);
        });
    }

    /** Every node below {@code root} and itself, parents before children. */
    private List<String> subtree(String root) {
        List<String> all = new ArrayList<>();
        List<String> level = List.of(root);
        while (!level.isEmpty()) {
            all.addAll(level);
            List<String> next = new ArrayList<>();
            ctx.reader
                    .children(level)
                    .forEach((parent, children) -> children.orElse(List.of()).forEach(c -> next.add(parent + "/" + c)));
            level = next;
        }
        return all;
    }
}

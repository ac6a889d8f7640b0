package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place that knows what a group's nodes are and creates them: the group node (with its creation time and
 * assignor), the four empty folders {@code members}, {@code leader}, {@code owners}, {@code offsets}, the {@code
 * assignment} node at generation 0, and the per-topic folders below {@code owners} and {@code offsets}. A member creates them in one transaction as it joins ({@link #ensure}); an admin
 * plan that creates a group puts the same operations ({@link #creation}) in front of its own, so the group and its
 * offsets appear together.
 */
public final class GroupNodes {

    private final String group;
    /** Topics whose folders this client made or saw; a claim that finds one gone forgets it and makes it again. */
    private final Set<String> ensuredTopics = ConcurrentHashMap.newKeySet();

    public GroupNodes(String group) {
        this.group = group;
    }

    /**
     * Makes {@code owners/<topic>}, {@code offsets/<topic>} and {@code fences/<topic>} (with {@code fences} itself, which
     * groups made before the fences lack) unless this instance made them already.
     */
    public void ensureTopicFolders(ZkPort zk, String topic) {
        if (ensuredTopics.add(topic)) {
            try {
                zk.ensurePath(ZkPaths.ownersOfTopic(group, topic), new byte[0]);
                zk.ensurePath(ZkPaths.offsetsOfTopic(group, topic), new byte[0]);
                zk.ensurePath(ZkPaths.fencesOfTopic(group, topic), new byte[0]);
            } catch (RuntimeException e) {
                ensuredTopics.remove(topic);
                throw e;
            }
        }
    }

    /** Forgets that a topic's folders exist (one was deleted under us, by an admin's delete of the topic's offsets). */
    public void forgetTopicFolders(String topic) {
        ensuredTopics.remove(topic);
    }

    /** The four empty folders, then the assignment node (which has a body). */
    public List<String> children() {
        return List.of(
                ZkPaths.members(group),
                ZkPaths.leader(group),
                ZkPaths.owners(group),
                ZkPaths.offsets(group),
                ZkPaths.assignment(group));
    }

    /** Whether a listing of the group node (child names) shows all of the group's folders. */
    public boolean isComplete(Collection<String> childNames) {
        Set<String> present = new HashSet<>(childNames);
        int prefix = ZkPaths.group(group).length() + 1;
        return children().stream().allMatch(f -> present.contains(f.substring(prefix)));
    }

    /** The transaction's operations that create the group node and its five children. */
    public List<ZkOp> creation(String assignor, Instant now) {
        List<ZkOp> ops = new ArrayList<>();
        ops.add(ZkOp.create(ZkPaths.group(group), NodeCodec.group(new NodeCodec.GroupBody(now, assignor))));
        for (String folder : folders()) {
            ops.add(ZkOp.create(folder, new byte[0]));
        }
        ops.add(ZkOp.create(ZkPaths.assignment(group), initialAssignment(now)));
        return ops;
    }

    /**
     * Makes the group complete: usually one listing proves it is; a missing group is created in one transaction; a
     * group created concurrently or left incomplete (a folder deleted by hand) gets what it lacks.
     */
    public void ensure(ZkPort zk, String assignor, Instant now) {
        String path = ZkPaths.group(group);
        if (isComplete(zk.children(path, null))) {
            return;
        }
        if (zk.exists(path, null).isEmpty()) {
            zk.ensurePath(ZkPaths.GROUPS, new byte[0]); // a structural, empty parent; harmless on its own
            try {
                zk.multi(creation(assignor, now));
                return;
            } catch (ZkFailure e) {
                if (e.code() != ZkCode.NODEEXISTS) {
                    throw ZkFailure.toStore("create group " + path, e);
                }
                // Created concurrently (or partly by hand): fill in what is missing below.
            }
        }
        for (String folder : folders()) {
            zk.ensurePath(folder, new byte[0]);
        }
        zk.ensurePath(ZkPaths.assignment(group), initialAssignment(now));
    }

    /**
     * Removes the group if it holds nothing worth keeping — no member, and no owner, offset or fence node: nothing was
     * ever claimed or committed in it (a group of a mistyped name or topic, or a start that failed) — in one
     * transaction, children first (issue 48: such a group left its 10 nodes behind for good). A member that joins
     * meanwhile makes the transaction fail (the {@code members} folder is no longer empty) and the group stays; so does
     * a claim or a commit (their topic folder is no longer empty). The leader latch nodes and targets left by the
     * members that are gone go with it. Returns whether it was removed.
     */
    public boolean removeIfUnused(ZkPort zk) {
        String root = ZkPaths.group(group);
        List<String> all = new ArrayList<>();
        List<String> level = List.of(root);
        Set<String> keepers =
                Set.of(ZkPaths.members(group), ZkPaths.owners(group), ZkPaths.offsets(group), ZkPaths.fences(group));
        while (!level.isEmpty()) {
            List<String> next = new ArrayList<>();
            for (String path : level) {
                all.add(path);
                List<String> children = zk.children(path, null);
                String parent = path.substring(0, Math.max(0, path.lastIndexOf('/')));
                if (!children.isEmpty() && (path.equals(ZkPaths.members(group)) || keepers.contains(parent))) {
                    return false; // a member, or an owner, offset or fence below a topic folder
                }
                children.forEach(c -> next.add(path + "/" + c));
            }
            level = next;
        }
        if (all.size() == 1 && zk.exists(root, null).isEmpty()) {
            return false; // gone already
        }
        List<ZkOp> ops = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            ops.add(ZkOp.delete(all.get(i), -1));
        }
        try {
            zk.multi(ops);
        } catch (ZkFailure e) {
            return false; // someone joined, claimed or committed meanwhile (NOTEMPTY), or it went (NONODE)
        }
        ensuredTopics.clear();
        return true;
    }

    private List<String> folders() {
        return children().subList(0, 4);
    }

    private static byte[] initialAssignment(Instant now) {
        return NodeCodec.assignment(new NodeCodec.AssignmentBody(0, Optional.empty(), now, 0));
    }
}

package io.groupkeeper.testkit.internal;

import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node tree and ZooKeeper's transaction semantics on it: a {@link #multi} applies its operations in order (each
 * sees the effects of the ones before), all under one zxid, or none of them (an undo log restores the tree) and reports
 * the index of the operation that failed. Not thread-safe: the {@link Ensemble} serialises access.
 */
final class DataTree {

    /** A change the watch registry turns into notifications. */
    record Change(WatchEvent.Type type, String path, long zxid) {}

    private final Map<String, Node> nodes = new HashMap<>();

    DataTree() {
        nodes.put("/", new Node(null, 0, 0));
    }

    /** A copy of the tree as it is now: a follower's view frozen at this zxid. */
    DataTree copy() {
        DataTree c = new DataTree();
        nodes.forEach((path, node) -> c.nodes.put(path, node.copy()));
        return c;
    }

    Node get(String path) {
        return nodes.get(path);
    }

    /** Applies {@code ops} atomically under {@code zxid} for {@code session}; on success appends to {@code changes}. */
    List<Op.Result> multi(List<Op> ops, long session, long zxid, List<Change> changes) throws KeeperFailure {
        Deque<Runnable> undo = new ArrayDeque<>();
        List<Change> pending = new ArrayList<>();
        List<Op.Result> results = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            try {
                results.add(apply(ops.get(i), session, zxid, undo, pending));
            } catch (KeeperFailure e) {
                while (!undo.isEmpty()) {
                    undo.pop().run();
                }
                throw e.at(i);
            }
        }
        changes.addAll(pending);
        return results;
    }

    private Op.Result apply(Op op, long session, long zxid, Deque<Runnable> undo, List<Change> changes)
            throws KeeperFailure {
        Node node = nodes.get(op.path());
        if (op instanceof Op.Create c) {
            String parentPath = TreePaths.parent(c.path());
            Node parent = nodes.get(parentPath);
            if (parent == null) {
                throw new KeeperFailure(Code.NONODE, c.path());
            }
            if (parent.ephemeralOwner != 0) {
                throw new KeeperFailure(Code.NOCHILDRENFOREPHEMERALS, c.path());
            }
            String path = c.sequential() ? c.path() + String.format("%010d", parent.cversion) : c.path();
            if (nodes.containsKey(path)) {
                throw new KeeperFailure(Code.NODEEXISTS, path);
            }
            if (c.ephemeral() && session == 0) {
                throw new IllegalArgumentException("an ephemeral node needs a session: " + path);
            }
            Node created = new Node(c.data(), zxid, c.ephemeral() ? session : 0);
            int parentCversion = parent.cversion;
            nodes.put(path, created);
            parent.children.add(TreePaths.name(path));
            parent.cversion++;
            undo.push(() -> {
                nodes.remove(path);
                parent.children.remove(TreePaths.name(path));
                parent.cversion = parentCversion;
            });
            changes.add(new Change(WatchEvent.Type.NODE_CREATED, path, zxid));
            return new Op.Result(path, created.stat());
        }
        if (op instanceof Op.SetData s) {
            requireVersion(node, s.path(), s.version());
            byte[] oldData = node.data;
            int oldVersion = node.version;
            long oldMzxid = node.mzxid;
            node.data = s.data();
            node.version++;
            node.mzxid = zxid;
            undo.push(() -> {
                node.data = oldData;
                node.version = oldVersion;
                node.mzxid = oldMzxid;
            });
            changes.add(new Change(WatchEvent.Type.NODE_DATA_CHANGED, s.path(), zxid));
            return new Op.Result(s.path(), node.stat());
        }
        if (op instanceof Op.Delete d) {
            requireVersion(node, d.path(), d.version());
            if (!node.children.isEmpty()) {
                throw new KeeperFailure(Code.NOTEMPTY, d.path());
            }
            if ("/".equals(d.path())) {
                throw new IllegalArgumentException("the root cannot be deleted");
            }
            Node parent = nodes.get(TreePaths.parent(d.path()));
            int parentCversion = parent.cversion;
            nodes.remove(d.path());
            parent.children.remove(TreePaths.name(d.path()));
            parent.cversion++;
            undo.push(() -> {
                nodes.put(d.path(), node);
                parent.children.add(TreePaths.name(d.path()));
                parent.cversion = parentCversion;
            });
            changes.add(new Change(WatchEvent.Type.NODE_DELETED, d.path(), zxid));
            return new Op.Result(d.path(), null);
        }
        {
            Op.Check c = (Op.Check) op;
            requireVersion(node, c.path(), c.version());
            return new Op.Result(c.path(), node.stat());
        }
    }

    private static void requireVersion(Node node, String path, int version) throws KeeperFailure {
        if (node == null) {
            throw new KeeperFailure(Code.NONODE, path);
        }
        if (version != -1 && version != node.version) {
            throw new KeeperFailure(Code.BADVERSION, path);
        }
    }

    /** The ephemeral nodes of {@code session}, deepest first (none has children: ZooKeeper forbids them). */
    List<String> ephemeralsOf(long session) {
        List<String> paths = new ArrayList<>();
        nodes.forEach((path, node) -> {
            if (node.ephemeralOwner == session) {
                paths.add(path);
            }
        });
        paths.sort(null);
        return paths;
    }

    NodeStat stat(String path) {
        Node n = nodes.get(path);
        return n == null ? null : n.stat();
    }
}

package io.groupkeeper.testkit.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * ZooKeeper's watches on the modelled tree: one-shot data watches (set by a read or an exists check, also on a missing
 * node: then they fire on its creation), one-shot child watches, and persistent recursive watches (fire for the node
 * and every descendant on creation, data change and deletion, never for child-list changes, and stay), and persistent
 * watches on one node (its creation, data changes and deletion). A watcher
 * registered twice on one path is one watch, as in ZooKeeper. Not thread-safe: the {@link Ensemble} serialises access.
 */
final class WatchRegistry {

    /** A watch: the session it belongs to and the watcher to call. */
    record Registration(long session, Watcher watcher) {}

    private final Map<String, Set<Registration>> data = new HashMap<>();
    private final Map<String, Set<Registration>> children = new HashMap<>();
    private final Map<String, Set<Registration>> recursive = new HashMap<>();
    private final Map<String, Set<Registration>> persistent = new HashMap<>();

    void addData(String path, long session, Watcher w) {
        data.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(new Registration(session, w));
    }

    void addChildren(String path, long session, Watcher w) {
        children.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(new Registration(session, w));
    }

    void addRecursive(String path, long session, Watcher w) {
        recursive.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(new Registration(session, w));
    }

    /** A persistent watch on one node: its creation, data changes and deletion, for as long as it is not removed. */
    void addPersistent(String path, long session, Watcher w) {
        persistent.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(new Registration(session, w));
    }

    /** Removes one persistent watch ({@code recursive} or on the node only) of a session's watcher. */
    void removePersistent(String path, long session, Watcher w, boolean recursive) {
        Set<Registration> regs = (recursive ? this.recursive : persistent).get(path);
        if (regs != null) {
            regs.remove(new Registration(session, w));
        }
    }

    void removeRecursive(String path, long session) {
        Set<Registration> regs = recursive.get(path);
        if (regs != null) {
            regs.removeIf(r -> r.session() == session);
        }
    }

    /** Forgets every watch of a session that ended. */
    void removeSession(long session) {
        for (Map<String, Set<Registration>> m : List.of(data, children, recursive, persistent)) {
            m.values().forEach(regs -> regs.removeIf(r -> r.session() == session));
        }
    }

    /**
     * The notifications one change causes, in ZooKeeper's order, each watcher once per event: {@code deliver} gets the
     * registration, the event and whether the watch is persistent (one-shot watches are removed here).
     */
    void trigger(DataTree.Change change, BiConsumer<Registration, Delivery> deliver) {
        String path = change.path();
        String parent = TreePaths.parent(path);
        Map<Registration, Delivery> out = new LinkedHashMap<>();
        switch (change.type()) {
            case NODE_CREATED -> {
                fire(data.remove(path), new WatchEvent(WatchEvent.Type.NODE_CREATED, path, change.zxid()), false, out);
                fire(
                        children.remove(parent),
                        new WatchEvent(WatchEvent.Type.NODE_CHILDREN_CHANGED, parent, change.zxid()),
                        false,
                        out);
            }
            case NODE_DATA_CHANGED ->
                fire(
                        data.remove(path),
                        new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, path, change.zxid()),
                        false,
                        out);
            case NODE_DELETED -> {
                WatchEvent deleted = new WatchEvent(WatchEvent.Type.NODE_DELETED, path, change.zxid());
                fire(data.remove(path), deleted, false, out);
                fire(children.remove(path), deleted, false, out);
                fire(
                        children.remove(parent),
                        new WatchEvent(WatchEvent.Type.NODE_CHILDREN_CHANGED, parent, change.zxid()),
                        false,
                        out);
            }
            default -> throw new IllegalArgumentException(change.toString());
        }
        Set<Registration> onNode = persistent.get(path);
        if (onNode != null) {
            fire(new LinkedHashSet<>(onNode), new WatchEvent(change.type(), path, change.zxid()), true, out);
        }
        for (String p = path; ; p = TreePaths.parent(p)) {
            Set<Registration> regs = recursive.get(p);
            if (regs != null) {
                fire(new LinkedHashSet<>(regs), new WatchEvent(change.type(), path, change.zxid()), true, out);
            }
            if ("/".equals(p)) {
                break;
            }
        }
        out.forEach(deliver);
    }

    /** One notification to hand to a session. */
    record Delivery(WatchEvent event, boolean persistent) {}

    private static void fire(
            Set<Registration> regs, WatchEvent event, boolean persistent, Map<Registration, Delivery> out) {
        if (regs != null) {
            regs.forEach(r -> out.putIfAbsent(r, new Delivery(event, persistent)));
        }
    }
}

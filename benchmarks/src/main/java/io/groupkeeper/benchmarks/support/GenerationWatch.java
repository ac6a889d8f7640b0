package io.groupkeeper.benchmarks.support;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * Observes a group from outside, with its own ZooKeeper session (not counted in the members' stats): the instant
 * the leader's publish of a new generation reaches a watcher of the group's {@code assignment} node (the leader
 * writes it last in every publish), and the instant a member node is deleted (a session expiry, for a crash).
 */
public final class GenerationWatch {

    private final CuratorFramework admin;
    private final String groupPath;

    /** {@code namespaceRoot} like {@code /groupkeeper}. */
    public GenerationWatch(CuratorFramework admin, String namespaceRoot, String group) {
        this.admin = admin;
        this.groupPath = namespaceRoot + "/groups/" + group;
    }

    /**
     * Arms a one-shot watch; the returned holder gets the nanoTime of the next publish (0 until then, and for ever
     * for a group that does not exist yet: nothing to watch).
     */
    public AtomicLong nextPublish() throws Exception {
        AtomicLong at = new AtomicLong();
        try {
            admin.getData().usingWatcher(stampOn(EventType.NodeDataChanged, at)).forPath(groupPath + "/assignment");
        } catch (KeeperException.NoNodeException e) {
            // a new group
        }
        return at;
    }

    /** Arms a one-shot watch on a member node; the holder gets the nanoTime of its deletion (0 until then). */
    public AtomicLong memberDeleted(String memberId) throws Exception {
        AtomicLong at = new AtomicLong();
        String path = groupPath + "/members/" + memberId;
        if (admin.checkExists().usingWatcher(stampOn(EventType.NodeDeleted, at)).forPath(path) == null) {
            at.set(System.nanoTime());
        }
        return at;
    }

    /**
     * Arms a one-shot child watch on the group's members; the holder gets the nanoTime of the next membership change
     * (a member node created or deleted: the event the leader reacts to), 0 until then (for ever for a new group).
     */
    public AtomicLong nextMembershipChange() throws Exception {
        AtomicLong at = new AtomicLong();
        try {
            admin.getChildren()
                    .usingWatcher(stampOn(EventType.NodeChildrenChanged, at))
                    .forPath(groupPath + "/members");
        } catch (KeeperException.NoNodeException e) {
            // a new group
        }
        return at;
    }

    /** A watcher that stores the nanoTime of its first event of {@code type} in {@code at}. */
    private static Watcher stampOn(EventType type, AtomicLong at) {
        return e -> {
            if (e.getType() == type) {
                at.compareAndSet(0, System.nanoTime());
            }
        };
    }

    /** The published generation number, read now. */
    public long generation() throws Exception {
        String body = new String(admin.getData().forPath(groupPath + "/assignment"), StandardCharsets.UTF_8);
        return Json.mapper().readTree(body).path("generation").asLong();
    }
}

package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * An owner's watches on its offset nodes, which do not wake it for its own commits.
 *
 * <p>Why: an owner watches each offset node it holds so that it notices an operator's edit (I3). With one-shot watches
 * every commit of its own fired the watch, and the owner re-read the node to re-arm it and to see that nothing but its
 * own commit had happened: one read per committed partition per commit, four of every five requests an idle member
 * sent (issue 19). Here each node has one persistent watch for as long as it is watched, and the store tells its own
 * commits apart by their transaction id: ZooKeeper names, with each event, the transaction that fired it (3.9+), and
 * a commit's answer names the transaction that wrote the node. A hook fires for any other change.
 *
 * <p>An event may come before the answer of the commit that caused it (ZooKeeper sends the event first, and the
 * caller of a synchronous write may wake after the event thread has run): an event on a node with a commit of this
 * store in flight waits for that commit's answer, and fires unless the answer names its transaction. An event without
 * a transaction id (an older server) fires. Changes made while the client was disconnected are not replayed to a
 * persistent watch, so a reconnection fires every armed hook (the owner reads and compares, as after any hook).
 *
 * <p>A node's watch stays while hooks are armed on it; a change that finds none armed (the owner let the partition go)
 * removes it. A new session starts with no watches: the next {@link #arm} adds it again.
 */
final class OffsetWatches {

    /** How many of its own commits per node the store remembers until their events came. */
    private static final int REMEMBERED_COMMITS = 16;

    private final ZkPort zk;
    private final Consumer<ZkEvent> watcher = this::onEvent;
    /** Guarded by this; keyed by the node's path, as the port's events name it. */
    private final Map<String, Watched> nodes = new HashMap<>();
    /** The server refused a persistent watch: every hook is a one-shot watch of the caller's read. Guarded by this. */
    private boolean refused;

    private static final class Watched {
        /** The session the persistent watch was added in; 0 while it has none. */
        long session;

        final List<Runnable> hooks = new ArrayList<>();
        int commitsInFlight;
        /** Transaction ids of this store's commits of the node whose events have not come yet. */
        final TreeSet<Long> ownCommits = new TreeSet<>();
        /** Events that came while a commit was in flight: their transaction ids. */
        final List<Long> held = new ArrayList<>();
    }

    OffsetWatches(ZkPort zk) {
        this.zk = zk;
    }

    /**
     * Arms {@code hook} for the next change of {@code path} that is not a commit of this store's; adds the node's
     * persistent watch first if this session has none. Call before reading the node, so no change falls in between.
     * Returns false, having armed nothing, when the server refuses persistent watches (before 3.6, or with
     * {@code watchManagerName=WatchManagerOptimized}): the caller then reads with a one-shot watch.
     */
    boolean arm(String path, Runnable hook) {
        String full = path;
        long session = zk.handleSession();
        synchronized (this) {
            if (refused) {
                return false;
            }
            Watched w = nodes.computeIfAbsent(full, k -> new Watched());
            w.hooks.add(hook);
            if (w.session == session && session != 0) {
                return true;
            }
            // Under the lock, as removeWatch's removals are sent: the server then sees the adds and removals of a
            // node's watch in the order this class decided them. A synchronous call is answered by ZooKeeper's send
            // thread, so the event thread, which may wait for the lock meanwhile, is not needed for it.
            try {
                zk.addPersistentWatch(full, false, watcher);
                w.session = session;
                return true;
            } catch (ZkFailure e) {
                refused = true; // before 3.6 the server does not know the request; WatchManagerOptimized fails it
                nodes.clear();
                return false;
            } catch (RuntimeException e) {
                w.hooks.remove(hook);
                throw e;
            }
        }
    }

    /** A commit of {@code path} by this store is about to be sent. */
    void committing(String path) {
        synchronized (this) {
            Watched w = nodes.get(path);
            if (w != null) {
                w.commitsInFlight++;
            }
        }
    }

    /**
     * The answer of a commit announced by {@link #committing}: {@code zxid} is the transaction that wrote the node, or 0
     * when the commit failed or its answer was lost (it may have landed: the events it held fire).
     */
    void committed(String path, long zxid) {
        List<Runnable> due = List.of();
        synchronized (this) {
            Watched w = nodes.get(path);
            if (w == null || w.commitsInFlight == 0) {
                return;
            }
            w.commitsInFlight--;
            if (zxid > 0) {
                w.ownCommits.add(zxid);
                while (w.ownCommits.size() > REMEMBERED_COMMITS) {
                    w.ownCommits.pollFirst();
                }
            }
            if (w.commitsInFlight > 0) {
                return; // the events held wait for the last answer
            }
            boolean foreign = false;
            for (long held : w.held) {
                foreign |= !w.ownCommits.remove(held);
            }
            w.held.clear();
            if (foreign) {
                due = takeHooks(w);
            }
        }
        due.forEach(Runnable::run);
    }

    // ------------------------------------------------------------------ ZooKeeper's event thread

    private void onEvent(ZkEvent event) {
        if (event.isConnectionEvent()) {
            if (event.type() == ZkEvent.Type.CONNECTED) {
                fireAll(); // what changed while disconnected is not replayed to a persistent watch
            }
            return;
        }
        String path = event.path();
        List<Runnable> due;
        synchronized (this) {
            Watched w = nodes.get(path);
            if (w == null) {
                return;
            }
            if (event.type() == ZkEvent.Type.WATCH_REMOVED) {
                // Only this class removes them (removeWatch), after dropping the node's entry; an entry here is a new
                // one, whose watch was added after that removal.
                return;
            }
            zk.stats().watchEvent();
            long zxid = event.zxid();
            if (zxid > 0 && w.ownCommits.remove(zxid)) {
                w.ownCommits.headSet(zxid).clear(); // events come in order: older ones will not
                return;
            }
            if (zxid > 0 && w.commitsInFlight > 0) {
                w.held.add(zxid);
                return;
            }
            due = takeHooks(w);
            if (due.isEmpty()) {
                nodes.remove(path);
                removeWatch(path); // queued under the lock: see arm
            }
        }
        due.forEach(Runnable::run);
    }

    private void fireAll() {
        List<Runnable> due = new ArrayList<>();
        synchronized (this) {
            nodes.values().forEach(w -> due.addAll(takeHooks(w)));
        }
        due.forEach(Runnable::run);
    }

    private static List<Runnable> takeHooks(Watched w) {
        List<Runnable> due = new ArrayList<>(w.hooks);
        w.hooks.clear();
        return due;
    }

    private void removeWatch(String path) {
        zk.removePersistentWatch(path, false, watcher); // quietly: a closing client's watches go with it
    }
}

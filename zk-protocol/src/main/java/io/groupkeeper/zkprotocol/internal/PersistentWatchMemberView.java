package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkPort;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's live view of a group's members, fed by one persistent recursive watch on the members folder.
 *
 * <p>Why: a child watch only says that something changed; the leader must then list the folder and read each new
 * node, two round trips in a row on the path of every join, and a listing of all N names per change. The recursive
 * watch names the node created or deleted: a departure costs no request at all, and a join one read, sent by the
 * event thread the moment the event arrives, so the leader's next {@link #read} answers from memory.
 *
 * <p>Consistency: ZooKeeper delivers one session's events and replies in order, on one thread, so applying them in
 * arrival order yields the folder's state. What happens while the client is disconnected is not replayed to a
 * persistent watch; a disconnect therefore makes the view cold (the next read lists the folder again) and the
 * reconnect fires the hooks, so the leader reads again. A change that arrives during a cold read leaves the view
 * cold too (the read may have missed it; its hooks fire).
 *
 * <p>Lifetime: the first read with a hook adds the watch; a change that finds no hook armed and no read in the last
 * {@link #IDLE_MILLIS} drops it (a leader that was deposed stops reading); closing the client drops it too.
 *
 * <p>A server that refuses persistent watches makes {@link #read} throw {@link Refused}; {@link MemberViewBridge}
 * then uses {@link ChildWatchMemberView}.
 */
final class PersistentWatchMemberView implements MemberView {

    private static final Logger LOG = LoggerFactory.getLogger(PersistentWatchMemberView.class);
    /** A view nobody read for this long is dropped at its next change. */
    static final long IDLE_MILLIS = 60_000;

    private final MemberNodes nodes;
    private final ZkPort zk;
    private final String parent;
    private final Clock clock;
    private final Consumer<ZkEvent> watcher = this::onEvent;

    // Guarded by this.
    private final SortedMap<String, MemberInfo> members = new TreeMap<>();
    private final Map<String, String> problems = new TreeMap<>();
    private final Set<Runnable> hooks = new LinkedHashSet<>();
    /** The watch is armed in {@link #session} and the maps hold the folder's state. */
    private boolean warm;

    private long session;
    /** The watch was added (this session or an earlier one) and not removed. */
    private boolean watching;
    /** Changes seen so far; a cold read that saw it move may have missed one. */
    private long changes;

    private long lastReadMillis;

    /** The server refused the persistent watch (before 3.6, or an optimized watch manager); nothing is armed. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final ZkCode code;

        Refused(ZkCode code) {
            super("persistent watch refused: " + code, null, false, false);
            this.code = code;
        }

        ZkCode code() {
            return code;
        }
    }

    PersistentWatchMemberView(MemberNodes nodes, Clock clock) {
        this.nodes = nodes;
        this.zk = nodes.zk;
        this.parent = nodes.parent;
        this.clock = clock;
    }

    /**
     * The live members; {@code onChange} runs once at the next change of membership (or after a reconnect).
     *
     * @throws Refused if the server refuses persistent watches; {@code onChange} is not armed then
     */
    @Override
    public MembersSnapshot read(Runnable onChange) {
        long startedWith;
        synchronized (this) {
            lastReadMillis = clock.millis();
            hooks.add(onChange);
            if (warm && session == zk.sessionId()) {
                return snapshot();
            }
            startedWith = changes;
            watching = true;
        }
        long sessionId = zk.sessionId();
        try {
            zk.addPersistentWatch(parent, true, watcher);
        } catch (ZkFailure e) {
            // Before 3.6 the server does not know the request; with watchManagerName=WatchManagerOptimized it fails it.
            synchronized (this) {
                hooks.remove(onChange);
                watching = false;
            }
            throw new Refused(e.code());
        }
        SortedMap<String, MemberInfo> loaded = new TreeMap<>();
        Map<String, String> loadedProblems = new TreeMap<>();
        nodes.load(loaded, loadedProblems);
        synchronized (this) {
            members.clear();
            members.putAll(loaded);
            problems.clear();
            problems.putAll(loadedProblems);
            warm = watching && changes == startedWith && sessionId == zk.sessionId() && zk.isConnected();
            session = sessionId;
            return snapshot();
        }
    }

    @Override
    public MembersSnapshot list() {
        return nodes.list();
    }

    private MembersSnapshot snapshot() {
        return new MembersSnapshot(members, List.copyOf(problems.values()));
    }

    // ------------------------------------------------------------------ ZooKeeper's event thread

    private void onEvent(ZkEvent event) {
        synchronized (this) {
            if (!watching) {
                return; // dropped; the removal may not have reached the server yet
            }
        }
        if (event.isConnectionEvent()) {
            onConnectionEvent(event.type());
            return;
        }
        if (event.type() == ZkEvent.Type.WATCH_REMOVED) {
            synchronized (this) { // removed behind this view's back: the next read adds it again
                warm = false;
                watching = false;
            }
            return;
        }
        String path = event.path();
        zk.stats().watchEvent();
        if (path == null || !path.startsWith(parent + "/") || path.indexOf('/', parent.length() + 1) >= 0) {
            // The folder itself (deleted by hand, or made again): start over.
            synchronized (this) {
                warm = false;
                changes++;
            }
            fireHooks();
            return;
        }
        String child = path.substring(parent.length() + 1);
        switch (event.type()) {
            case DELETED -> {
                synchronized (this) {
                    changes++;
                    members.remove(child);
                    problems.remove(child);
                }
                fireHooks();
            }
            case CREATED, DATA_CHANGED -> {
                synchronized (this) {
                    changes++;
                }
                readInBackground(child);
            }
            default -> {
                // A recursive watch reports no child-list events; nothing else can happen to a member node.
            }
        }
    }

    private void onConnectionEvent(ZkEvent.Type state) {
        if (state == ZkEvent.Type.CONNECTED) {
            boolean missedSome;
            synchronized (this) {
                missedSome = !warm && watching;
            }
            if (missedSome) {
                fireHooks(); // changes made while disconnected are not replayed: the leader must read again
            }
            return;
        }
        synchronized (this) {
            warm = false;
        }
    }

    private void readInBackground(String child) {
        String path = parent + "/" + child;
        try {
            zk.readAsync(path, null).whenComplete((read, failed) -> onRead(child, read, failed));
        } catch (RuntimeException e) { // only if the client is closed
            synchronized (this) {
                warm = false;
            }
            fireHooks();
        }
    }

    private void onRead(String child, Optional<ZkNode> read, Throwable failed) {
        synchronized (this) {
            if (failed == null && read.isPresent()) {
                nodes.decode(child, read.get().data(), members, problems);
            } else if (failed == null) {
                members.remove(child);
                problems.remove(child);
            } else {
                warm = false; // connection loss: a cold read settles it
            }
        }
        fireHooks();
    }

    private void fireHooks() {
        List<Runnable> due;
        boolean idle;
        synchronized (this) {
            due = new ArrayList<>(hooks);
            hooks.clear();
            idle = due.isEmpty() && watching && clock.millis() - lastReadMillis > IDLE_MILLIS;
            if (idle) {
                watching = false;
                warm = false;
            }
        }
        if (idle) {
            LOG.debug("members of {}: no reader for {} ms; dropping the watch", zk.abs(parent), IDLE_MILLIS);
            removeWatch();
        }
        for (Runnable hook : due) {
            hook.run();
        }
    }

    private void removeWatch() {
        zk.removePersistentWatch(parent, true, watcher); // quietly: a failed removal is harmless
    }

    /** For tests: whether the view answers from memory. */
    synchronized boolean isWarm() {
        return warm;
    }

    /** For tests: whether the watch is held. */
    synchronized boolean isWatching() {
        return watching;
    }
}

package io.groupkeeper.testkit.internal;

import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.SimulatedThreads;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The modelled ZooKeeper ensemble: the tree, the global zxid counter, sessions and watches, behind one lock (the
 * model is linearizable, like a single ZooKeeper server, unless {@link #lagFollowers} lets clients read from followers
 * that apply transactions late). Session 0 is the operator's: always connected, no ephemeral
 * nodes, no watches.
 *
 * <p>Sessions: a session lives while its client is connected; a disconnected session expires once its timeout has
 * passed on the {@link Clock} (checked at every operation and by {@link #expireDueSessions()}), or at once by {@link
 * #expire}. Expiry deletes the session's ephemeral nodes in one transaction (firing other sessions' watches), drops its
 * watches and tells its client through {@link SessionObserver#expired}. While a client is disconnected its one-shot
 * notifications are held and delivered after it reconnects (ZooKeeper's client re-registers its watches and the server
 * fires those whose node changed meanwhile); notifications of persistent watches are dropped (ZooKeeper does not
 * replay them).
 *
 * <p>Delivery: every notification goes to the session's {@link EventLane}, queued under the lock (so each lane sees
 * the zxid order) and handed to the lane's executor after the lock is released.
 *
 * <p>About 640 lines: the servers' side of the model (the tree, sessions, watches, follower views, a follower left
 * behind by a late landing, and the delivery of notifications) under one lock, since every one of them must change in
 * the order of one zxid.
 */
public final class Ensemble {

    /** Hears that the server expired a client's session. Called without the ensemble's lock held. */
    @FunctionalInterface
    public interface SessionObserver {
        void expired(long session);
    }

    /**
     * Hears every transaction the model applies, after it applied and under the ensemble's lock: a client's, the
     * operator's (session 0) and an ending session's deletes (session 0 too). For checkers; it must not call back.
     */
    @FunctionalInterface
    public interface TransactionObserver {
        void applied(long session, long zxid, List<Op> ops);
    }

    /** A node's data with its stat. */
    public record Read(byte[] data, NodeStat stat) {}

    private static final class Session {
        final long id;
        final Duration timeout;
        final EventLane lane;
        final SessionObserver observer;
        boolean connected = true;
        Instant disconnectedAt;
        final List<Runnable> held = new ArrayList<>();
        /**
         * A silent cut not noticed yet: the connection is still open, so persistent watches' notifications wait in it
         * too (in {@link #held}, listed in {@link #buffered}) and arrive if the network returns before the client
         * notices; once it notices, the connection is gone and they with it.
         */
        boolean silent;

        final Set<Runnable> buffered = Collections.newSetFromMap(new IdentityHashMap<>());
        /** A transaction of this session that landed late ({@link #multiLandingLate}): its reads lag behind it. */
        Hold hold;

        Session(long id, Duration timeout, EventLane lane, SessionObserver observer) {
            this.id = id;
            this.timeout = timeout;
            this.lane = lane;
            this.observer = observer;
        }
    }

    /**
     * The follower a session reconnected to after a transaction's answer was lost ({@link #multiLandingLate}): it has
     * not applied that transaction ({@code zxid}) yet, so the session reads {@code before} (the tree just before it) and
     * hears of nothing from {@code zxid} on ({@code pending}) until the follower catches up: at {@code until} on the
     * clock, or once the session must see {@code zxid} (a {@code sync}, its own next write, a watch it adds).
     */
    private static final class Hold {
        final long zxid;
        final DataTree before;
        final Instant until;
        /** The latest transaction of the session that landed late meanwhile: the follower has it once caught up. */
        long last;

        final List<Pending> pending = new ArrayList<>();

        Hold(long zxid, DataTree before, Instant until) {
            this.zxid = zxid;
            this.before = before;
            this.until = until;
            this.last = zxid;
        }
    }

    /** A notification (of {@code zxid}) a lagging follower will send once it has caught up. */
    private record Pending(Runnable call, boolean persistent, long zxid) {}

    @FunctionalInterface
    private interface Body<T> {
        T run() throws KeeperFailure;
    }

    private final Clock clock;
    private final DataTree tree = new DataTree();
    private final WatchRegistry watches = new WatchRegistry();
    private final Map<Long, Session> sessions = new HashMap<>();
    private long zxid;
    private volatile TransactionObserver observer = (session, zxid, ops) -> {};
    private long nextSession = 0x1000000000000L;
    // Guarded by this; emptied by every operation on its way out.
    private final Set<EventLane> toKick = new LinkedHashSet<>();
    private final List<Session> toNotify = new ArrayList<>();
    /** Follower lag for client reads ({@link #lagFollowers}); null: every read sees every committed write. */
    private Followers followers;

    private final List<Runnable> tickers = new CopyOnWriteArrayList<>();
    private volatile SimulatedThreads threads = SimulatedThreads.NONE;

    public Ensemble(Clock clock) {
        this.clock = clock;
    }

    /** How its clients' callers wait for requests a silent cut holds (none can by default: they fail at once). */
    public SimulatedThreads threads() {
        return threads;
    }

    public void threads(SimulatedThreads threads) {
        this.threads = threads;
    }

    public Clock clock() {
        return clock;
    }

    /** Runs {@code ticker} after every operation, without the lock held: a client's timers on the ensemble's clock. */
    public void onTick(Runnable ticker) {
        tickers.add(ticker);
    }

    public void removeTick(Runnable ticker) {
        tickers.remove(ticker);
    }

    /**
     * From now on clients read from {@code count} followers that apply transactions late ({@link Followers}): at most
     * {@code maxLag} transactions behind, never behind what the reading session sent, was notified of or synced to, by
     * steps drawn from {@code random}. Only on an ensemble that has applied nothing yet.
     */
    public synchronized void lagFollowers(int count, Random random, int maxLag) {
        if (zxid != 0 || !sessions.isEmpty()) {
            throw new IllegalStateException("follower lag is switched on before the first session and transaction");
        }
        followers = new Followers(count, random, maxLag);
    }

    /**
     * The tree a read of {@code session} sees: the leader's for the operator, else its follower's (the one frozen before
     * a transaction that landed late, while the session's hold lasts).
     */
    private DataTree view(long session) {
        if (session == 0) {
            return tree;
        }
        Session s = sessions.get(session);
        if (s != null && s.hold != null) {
            return s.hold.before;
        }
        return followers == null ? tree : followers.view(session, zxid);
    }

    private void saw(long session, long upTo) {
        Session s = session == 0 ? null : sessions.get(session);
        if (s != null && s.hold != null && upTo >= s.hold.zxid) {
            endHoldLocked(s); // the follower caught up: it has applied the late transaction
        }
        if (followers != null && session != 0) {
            followers.saw(session, upTo);
        }
    }

    /**
     * The follower of {@code s}'s hold has caught up: from now on its reads see the late transactions (never backwards:
     * its follower's floor rises past them), and the notifications it held back are sent, in order.
     */
    private void endHoldLocked(Session s) {
        Hold h = s.hold;
        s.hold = null;
        long seen = h.last;
        for (Pending p : h.pending) {
            queueLocked(s, p.call(), p.persistent());
            seen = Math.max(seen, p.zxid()); // a follower notifies once it applied the change
        }
        if (followers != null) {
            followers.saw(s.id, seen);
        }
    }

    /** Ends every hold whose catch-up time has come on the clock (checked at every operation). */
    private void endDueHoldsLocked() {
        Instant now = clock.instant();
        for (Session s : sessions.values()) {
            if (s.hold != null && !now.isBefore(s.hold.until)) {
                endHoldLocked(s);
            }
        }
    }

    /** Leaves a one-shot watch set by a read of {@code seen}, or fires it now if the leader's node differs already. */
    private void watch(long session, String path, Watcher w, DataTree seen, boolean children) {
        WatchEvent.Type missed = null;
        if (seen != tree) {
            missed = children
                    ? Followers.missedChildren(seen.get(path), tree.get(path))
                    : Followers.missedData(seen.get(path), tree.get(path));
        }
        if (missed == null) {
            if (children) {
                watches.addChildren(path, session, w);
            } else {
                watches.addData(path, session, w);
            }
            return;
        }
        WatchEvent event = new WatchEvent(missed, path, zxid);
        Session s = sessions.get(session);
        if (s.hold != null && seen == s.hold.before) { // the follower fires it once it has caught up
            s.hold.pending.add(new Pending(() -> w.process(event), false, zxid));
            return;
        }
        s.lane.add(() -> w.process(event));
        toKick.add(s.lane);
        saw(session, zxid);
    }

    private <T> T locked(Body<T> body) throws KeeperFailure {
        T result;
        List<EventLane> kicks;
        List<Session> expired;
        synchronized (this) {
            try {
                expireDueLocked();
                endDueHoldsLocked();
                result = body.run();
            } finally {
                kicks = new ArrayList<>(toKick);
                toKick.clear();
                expired = new ArrayList<>(toNotify);
                toNotify.clear();
            }
        }
        kicks.forEach(EventLane::kick);
        expired.forEach(s -> s.observer.expired(s.id));
        tickers.forEach(Runnable::run);
        return result;
    }

    private <T> T lockedUnchecked(Body<T> body) {
        try {
            return locked(body);
        } catch (KeeperFailure e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ sessions

    public long openSession(Duration timeout, EventLane lane, SessionObserver observer) {
        return lockedUnchecked(() -> {
            long id = nextSession++;
            sessions.put(id, new Session(id, timeout, lane, observer));
            return id;
        });
    }

    /** A client closes its session: its ephemeral nodes go, its client is not told (it asked). */
    public void closeSession(long id) {
        lockedUnchecked(() -> {
            Session s = sessions.remove(id);
            if (s != null) {
                endLocked(s);
            }
            return null;
        });
    }

    /** The server expires a session now (as a long network partition would). */
    public void expire(long id) {
        lockedUnchecked(() -> {
            Session s = sessions.remove(id);
            if (s != null) {
                endLocked(s);
                toNotify.add(s);
            }
            return null;
        });
    }

    /** Expires every disconnected session whose timeout has passed on the clock. */
    public void expireDueSessions() {
        lockedUnchecked(() -> null);
    }

    private void expireDueLocked() {
        Instant now = clock.instant();
        List<Session> due = sessions.values().stream()
                .filter(s -> !s.connected && !now.isBefore(s.disconnectedAt.plus(s.timeout)))
                .toList();
        for (Session s : due) {
            sessions.remove(s.id);
            endLocked(s);
            toNotify.add(s);
        }
    }

    private void endLocked(Session s) {
        s.hold = null;
        watches.removeSession(s.id);
        s.buffered.clear();
        if (followers != null) {
            followers.forget(s.id);
        }
        s.held.clear();
        List<Op> deletes = new ArrayList<>();
        for (String path : tree.ephemeralsOf(s.id)) {
            deletes.add(new Op.Delete(path, -1));
        }
        if (!deletes.isEmpty()) {
            try {
                applyLocked(deletes, 0);
            } catch (KeeperFailure e) {
                throw new IllegalStateException("expiry of session 0x" + Long.toHexString(s.id) + " failed", e);
            }
        }
    }

    public synchronized boolean isAlive(long id) {
        return sessions.containsKey(id);
    }

    public synchronized boolean isConnected(long id) {
        Session s = sessions.get(id);
        return s != null && s.connected;
    }

    /** The client lost its connection; the session's timeout starts running on the clock. */
    public void disconnect(long id) {
        lockedUnchecked(() -> {
            Session s = sessions.get(id);
            if (s != null && s.connected) {
                s.connected = false;
                s.disconnectedAt = clock.instant();
            } else if (s != null && s.silent) { // the client noticed a silent cut: its connection is closed now
                s.held.removeAll(s.buffered);
                s.buffered.clear();
            }
            if (s != null) {
                s.silent = false;
            }
            return null;
        });
    }

    /**
     * The network drops without the client noticing: the server stops hearing it (its session's timeout starts), and
     * notifications wait in the open connection, persistent ones included, until the network returns or the client
     * notices ({@link #disconnect}, which drops the persistent ones).
     */
    public void cutSilently(long id) {
        lockedUnchecked(() -> {
            Session s = sessions.get(id);
            if (s != null && s.connected) {
                s.connected = false;
                s.disconnectedAt = clock.instant();
                s.silent = true;
            }
            return null;
        });
    }

    /** The client reconnects: true if its session is still alive (its held notifications are released then). */
    public boolean reconnect(long id) {
        return lockedUnchecked(() -> {
            Session s = sessions.get(id);
            if (s == null) {
                return false;
            }
            s.connected = true;
            s.disconnectedAt = null;
            s.silent = false;
            return true;
        });
    }

    /** Hands a reconnected session the notifications held while it was away (after its reconnection event). */
    public void releaseHeld(long id) {
        lockedUnchecked(() -> {
            Session s = sessions.get(id);
            if (s != null) {
                s.held.forEach(s.lane::add);
                s.held.clear();
                s.buffered.clear();
                toKick.add(s.lane);
            }
            return null;
        });
    }

    private Session requireSession(long id) throws KeeperFailure {
        if (id == 0) {
            return null;
        }
        Session s = sessions.get(id);
        if (s == null) {
            throw new KeeperFailure(Code.SESSIONEXPIRED, null);
        }
        if (!s.connected) {
            throw new KeeperFailure(Code.CONNECTIONLOSS, null);
        }
        return s;
    }

    // ------------------------------------------------------------------ reads

    /** The node's data and stat; NONODE if missing. With {@code w}, a data watch is left on the node. */
    public Read getData(long session, String path, Watcher w) throws KeeperFailure {
        return locked(() -> {
            requireSession(session);
            DataTree seen = view(session);
            Node n = seen.get(path);
            if (n == null) {
                throw new KeeperFailure(Code.NONODE, path);
            }
            if (w != null && session != 0) {
                watch(session, path, w, seen, false);
            }
            return new Read(n.data, n.stat());
        });
    }

    /** The node's stat or null; with {@code w}, a watch for its change, deletion or creation is left. */
    public NodeStat exists(long session, String path, Watcher w) throws KeeperFailure {
        return locked(() -> {
            requireSession(session);
            DataTree seen = view(session);
            if (w != null && session != 0) {
                watch(session, path, w, seen, false);
            }
            return seen.stat(path);
        });
    }

    /** The children's names, sorted; NONODE if missing. With {@code w}, a child watch is left. */
    public List<String> getChildren(long session, String path, Watcher w) throws KeeperFailure {
        return locked(() -> {
            requireSession(session);
            DataTree seen = view(session);
            Node n = seen.get(path);
            if (n == null) {
                throw new KeeperFailure(Code.NONODE, path);
            }
            if (w != null && session != 0) {
                watch(session, path, w, seen, true);
            }
            return List.copyOf(n.children);
        });
    }

    public void addPersistentRecursiveWatch(long session, String path, Watcher w) throws KeeperFailure {
        locked(() -> {
            requireSession(session);
            watches.addRecursive(path, session, w);
            saw(session, zxid);
            return null;
        });
    }

    /** Adds a persistent watch on {@code path} ({@code recursive}: on its subtree too). */
    public void addPersistentWatch(long session, String path, Watcher w, boolean recursive) throws KeeperFailure {
        locked(() -> {
            requireSession(session);
            if (recursive) {
                watches.addRecursive(path, session, w);
            } else {
                watches.addPersistent(path, session, w);
            }
            saw(session, zxid); // registered in order with its reads: they see what came before it
            return null;
        });
    }

    /** Removes one persistent watch of {@code w}. */
    public void removePersistentWatch(long session, String path, Watcher w, boolean recursive) {
        lockedUnchecked(() -> {
            watches.removePersistent(path, session, w, recursive);
            return null;
        });
    }

    public void removePersistentRecursiveWatches(long session, String path) {
        lockedUnchecked(() -> {
            watches.removeRecursive(path, session);
            return null;
        });
    }

    // ------------------------------------------------------------------ writes

    /** Applies a transaction atomically; see {@link DataTree#multi}. */
    public List<Op.Result> multi(long session, List<Op> ops) throws KeeperFailure {
        return locked(() -> {
            requireSession(session);
            try {
                return applyLocked(ops, session);
            } finally {
                saw(session, zxid); // answered by the follower once it applied the transaction (or its failure)
            }
        });
    }

    /**
     * A transaction that reached the server before its client's connection went (its answer lost): applied if the
     * session is still alive, connected or not.
     */
    public List<Op.Result> multiArrived(long session, List<Op> ops) throws KeeperFailure {
        return locked(() -> {
            if (!sessions.containsKey(session)) {
                throw new KeeperFailure(Code.SESSIONEXPIRED, null);
            }
            return applyLocked(ops, session);
        });
    }

    /**
     * A transaction whose answer is lost and whose client reconnects, in the same session, to a follower that has not
     * applied it yet: applied now (or refused, answered as by {@link #multi}: then nothing lags), but unlike an answered
     * write it does not raise what the session's reads must see. Until the follower catches up, after {@code catchUp}
     * on the clock or once the session must see the transaction (a {@code sync}, its own next write, a watch it adds),
     * the session reads the tree as it was just before the transaction, and the notifications of it and of everything
     * after it wait (a one-shot watch set on that view and already stale fires then). Reads never go backwards: the
     * frozen view is the leader's tree just before the transaction, at least what the session saw; the catch-up raises
     * its follower's floor past the transaction. The follower bound of {@link #lagFollowers} does not hold for this
     * view: it is a follower that stays behind for a while (the client's caller decides how long).
     */
    public List<Op.Result> multiLandingLate(long session, List<Op> ops, Duration catchUp) throws KeeperFailure {
        return locked(() -> {
            Session s = requireSession(session);
            if (s == null) {
                throw new IllegalArgumentException("the operator's writes are always answered");
            }
            Hold previous = s.hold;
            if (previous == null) { // held before it applies: its own notifications wait too
                s.hold = new Hold(zxid + 1, tree.copy(), clock.instant().plus(catchUp));
            }
            List<Op.Result> results;
            try {
                results = applyLocked(ops, session);
            } catch (KeeperFailure refused) {
                s.hold = previous; // nothing applied, nothing notified: nothing lags
                throw refused;
            }
            if (previous != null) {
                previous.last = zxid; // a follower already behind: it lacks this one too
            }
            return results;
        });
    }

    /** ZooKeeper's {@code sync}: the session's next reads see every transaction committed before it. */
    public void sync(long session) throws KeeperFailure {
        locked(() -> {
            requireSession(session);
            saw(session, zxid);
            return null;
        });
    }

    private List<Op.Result> applyLocked(List<Op> ops, long session) throws KeeperFailure {
        List<DataTree.Change> changes = new ArrayList<>();
        List<Op.Result> results = tree.multi(ops, session, zxid + 1, changes);
        zxid++;
        if (followers != null) {
            followers.applied(zxid, session, ops);
        }
        observer.applied(session, zxid, ops);
        for (DataTree.Change change : changes) {
            watches.trigger(change, (reg, delivery) -> deliverLocked(reg, delivery));
        }
        return results;
    }

    private void deliverLocked(WatchRegistry.Registration reg, WatchRegistry.Delivery delivery) {
        Session s = sessions.get(reg.session());
        if (s == null) {
            return;
        }
        Runnable call = () -> reg.watcher().process(delivery.event());
        if (s.hold != null && delivery.event().zxid() >= s.hold.zxid) {
            s.hold.pending.add(
                    new Pending(call, delivery.persistent(), delivery.event().zxid())); // not applied there yet
            return;
        }
        saw(s.id, delivery.event().zxid()); // a follower notifies once it applied the change
        queueLocked(s, call, delivery.persistent());
    }

    /** Hands a notification to a session's lane, or holds it while its client is disconnected (drops a persistent one). */
    private void queueLocked(Session s, Runnable call, boolean persistent) {
        if (s.connected) {
            s.lane.add(call);
            toKick.add(s.lane);
        } else if (!persistent) {
            s.held.add(call);
        } else if (s.silent) {
            s.held.add(call);
            s.buffered.add(call);
        }
    }

    /** Makes {@code o} the one observer of every applied transaction. */
    public void observeTransactions(TransactionObserver o) {
        observer = o;
    }

    /** The latest zxid. */
    public synchronized long lastZxid() {
        return zxid;
    }
}

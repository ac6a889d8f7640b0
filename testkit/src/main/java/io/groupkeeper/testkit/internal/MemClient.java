package io.groupkeeper.testkit.internal;

import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client of the modelled ensemble, as a Curator client plus the ZooKeeper store's {@code ZkSession}: it holds one
 * session at a time, replaces an expired one at once (or at the next {@link #reconnect()}), reports connection
 * changes in Curator's sequences, and offers the reads, watches and transactions the store is written against, with
 * the same failure translation ({@link StoreException} naming the path; {@link KeeperFailure} where the ZooKeeper
 * store inspects a {@code KeeperException}).
 *
 * <p>Connection events, as {@code ZooKeeperStore} maps Curator's states: {@code CONNECTED} at start; {@code SUSPENDED}
 * on a disconnect; {@code RECONNECTED} when the session survived it; {@code LOST} when the session expired, then
 * {@code RECONNECTED_NEW_SESSION} once a new session is established. All events and watch notifications of this client
 * run on its {@link EventLane}, in order.
 */
public final class MemClient {

    private static final Logger LOG = LoggerFactory.getLogger(MemClient.class);

    private final Ensemble ensemble;
    private final String namespace;
    private final Duration sessionTimeout;
    private final EventLane lane;
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private final Set<Long> pastSessions = ConcurrentHashMap.newKeySet();
    private volatile long session;
    private volatile boolean closed;
    // Guarded by this.
    private boolean lostReported;
    private boolean suspended;
    private int failingWrites;
    private boolean failingAfterApply;
    private boolean cutPublish;

    public MemClient(Ensemble ensemble, String namespace, Duration sessionTimeout, EventLane lane) {
        this.ensemble = ensemble;
        this.namespace = namespace;
        this.sessionTimeout = sessionTimeout;
        this.lane = lane;
    }

    // ------------------------------------------------------------------ session lifecycle

    public void start() {
        session = ensemble.openSession(sessionTimeout, lane, this::onExpired);
        ensureNamespace();
        emit(ConnectionEvent.CONNECTED);
    }

    /** Curator creates the namespace's nodes before its first operation; so does this client. */
    private void ensureNamespace() {
        String path = "";
        for (String segment : namespace.split("/")) {
            path = path + "/" + segment;
            try {
                if (ensemble.exists(session, path, null) == null) {
                    ensemble.multi(session, List.of(Op.Create.persistent(path, null)));
                }
            } catch (KeeperFailure e) {
                if (e.code() != Code.NODEEXISTS) {
                    throw failure("create namespace " + path, e);
                }
            }
        }
    }

    public void close() {
        closed = true;
        long s = session;
        listeners.clear();
        lane.clear();
        if (s != 0) {
            ensemble.closeSession(s);
        }
    }

    public void addListener(ConnectionListener l) {
        listeners.add(l);
    }

    public void removeListener(ConnectionListener l) {
        listeners.remove(l);
    }

    /** The client loses its connection (the session lives on until its timeout passes on the clock). */
    public void disconnect() {
        synchronized (this) {
            if (suspended || closed) {
                return;
            }
            suspended = true;
        }
        ensemble.disconnect(session);
        emit(ConnectionEvent.SUSPENDED);
    }

    /** The client gets its connection back: the same session if it survived, else a new one. */
    public void reconnect() {
        synchronized (this) {
            if (!suspended || closed) {
                return;
            }
            suspended = false;
        }
        long old = session;
        if (ensemble.reconnect(old)) {
            emit(ConnectionEvent.RECONNECTED);
            ensemble.releaseHeld(old);
            return;
        }
        newSession(old);
    }

    /** The server expired {@code expired}: LOST now; a connected client gets a new session right away. */
    private void onExpired(long expired) {
        boolean renew;
        synchronized (this) {
            if (expired != session || closed) {
                return;
            }
            renew = !suspended;
            if (renew) {
                suspended = false;
            }
            lostReported = true;
        }
        if (renew) {
            emit(ConnectionEvent.SUSPENDED); // the server closed the connection first
        }
        emit(ConnectionEvent.LOST);
        if (renew) {
            newSession(expired);
        }
    }

    private void newSession(long old) {
        boolean reportLost;
        synchronized (this) {
            reportLost = !lostReported;
            lostReported = false;
        }
        if (reportLost) {
            emit(ConnectionEvent.LOST);
        }
        pastSessions.add(old);
        session = ensemble.openSession(sessionTimeout, lane, this::onExpired);
        LOG.debug("session 0x{} replaced by 0x{}", Long.toHexString(old), Long.toHexString(session));
        emit(ConnectionEvent.RECONNECTED_NEW_SESSION);
    }

    /** The server expires this client's current session now. */
    public void expireSession() {
        ensemble.expire(session);
    }

    /**
     * The next {@code count} writes fail with a connection loss; with {@code afterApply} each is applied first (the
     * request reached the server, the answer was lost), so the caller cannot tell whether it landed.
     */
    /** The next publish of a leader on this client loses the connection after its first transaction. */
    public synchronized void cutNextPublish() {
        cutPublish = true;
    }

    synchronized boolean takePublishCut() {
        boolean cut = cutPublish;
        cutPublish = false;
        return cut;
    }

    public synchronized void failNextWrites(int count, boolean afterApply) {
        this.failingWrites = count;
        this.failingAfterApply = afterApply;
    }

    /**
     * A CONNECTIONLOSS is the connection breaking: as with ZooKeeper's client, the listeners hear SUSPENDED, and (the
     * servers still there) RECONNECTED with the same session right after.
     */
    KeeperFailure connectionLoss() {
        disconnect();
        reconnect();
        return new KeeperFailure(Code.CONNECTIONLOSS, null);
    }

    /** Queues {@code event} for the listeners registered now (and still registered when it runs). */
    private void emit(ConnectionEvent event) {
        List<ConnectionListener> registered = List.copyOf(listeners);
        lane.add(() -> {
            for (ConnectionListener l : registered) {
                if (!listeners.contains(l)) {
                    continue;
                }
                try {
                    l.stateChanged(event);
                } catch (RuntimeException e) {
                    LOG.error("connection listener failed", e);
                }
            }
        });
        lane.kick();
    }

    /** Runs {@code task} on this client's event lane, after everything queued before it. */
    public void onLane(Runnable task) {
        lane.add(task);
        lane.kick();
    }

    // ------------------------------------------------------------------ session facts

    public long sessionId() {
        return session;
    }

    /** The session of the client's connection now (Curator's current handle); 0 when closed. */
    public long handleSession() {
        return closed ? 0 : session;
    }

    public boolean isConnected() {
        return !closed && ensemble.isConnected(session);
    }

    public boolean isPastSession(long owner) {
        return owner != 0 && pastSessions.contains(owner);
    }

    public boolean isCurrentSession(long owner) {
        return owner != 0 && owner == session;
    }

    public String abs(String path) {
        return "/" + namespace + path;
    }

    public String describe() {
        return "in-memory-zookeeper:/" + namespace;
    }

    public Ensemble ensemble() {
        return ensemble;
    }

    // ------------------------------------------------------------------ reads

    /** Wraps a hook as a watcher that runs it at most once. */
    public Watcher watcher(Runnable hook) {
        AtomicBoolean fired = new AtomicBoolean();
        return event -> {
            if (fired.compareAndSet(false, true)) {
                hook.run();
            }
        };
    }

    /** Reads a node, arming {@code hook} (nullable) for its next change, creation or deletion. */
    public Optional<Ensemble.Read> read(String path, Runnable hook) {
        requireConnected("read " + abs(path));
        Watcher w = hook == null ? null : watcher(hook);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return Optional.of(ensemble.getData(session, abs(path), w));
            } catch (KeeperFailure e) {
                if (e.code() != Code.NONODE) {
                    throw failure("read " + abs(path), e);
                }
                if (w == null || exists(path, w) == null) {
                    return Optional.empty();
                }
            }
        }
        throw new StoreException("node " + abs(path) + " keeps appearing and disappearing");
    }

    /** Reads a node and arms {@code hook} for its next change or deletion; empty, nothing armed, when missing. */
    public Optional<Ensemble.Read> readIfPresentWatching(String path, Runnable hook) {
        requireConnected("read " + abs(path));
        try {
            return Optional.of(ensemble.getData(session, abs(path), watcher(hook)));
        } catch (KeeperFailure e) {
            if (e.code() == Code.NONODE) {
                return Optional.empty();
            }
            throw failure("read " + abs(path), e);
        }
    }

    public NodeStat exists(String path, Watcher w) {
        requireConnected("check " + abs(path));
        try {
            return ensemble.exists(session, abs(path), w);
        } catch (KeeperFailure e) {
            throw failure("check " + abs(path), e);
        }
    }

    public List<String> children(String path, Runnable hook) {
        requireConnected("list " + abs(path));
        try {
            return ensemble.getChildren(session, abs(path), hook == null ? null : watcher(hook));
        } catch (KeeperFailure e) {
            if (e.code() == Code.NONODE) {
                return List.of();
            }
            throw failure("list " + abs(path), e);
        }
    }

    public void addPersistentRecursiveWatch(String path, Watcher w) {
        requireConnected("watch " + abs(path));
        try {
            ensemble.addPersistentRecursiveWatch(session, abs(path), w);
        } catch (KeeperFailure e) {
            throw failure("watch " + abs(path), e);
        }
    }

    // ------------------------------------------------------------------ writes

    /** Creates a persistent node, and missing parents, if it does not exist. */
    public void ensurePath(String path, Object data) {
        requireConnected("create " + abs(path));
        if (exists(path, null) != null) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (String p = path; !p.isEmpty() && !"/".equals(p); p = Paths.parent(p)) {
            if (exists(p, null) != null) {
                break;
            }
            missing.add(0, p);
        }
        for (int i = 0; i < missing.size(); i++) {
            try {
                write(List.of(Op.Create.persistent(missing.get(i), i == missing.size() - 1 ? data : null)));
            } catch (KeeperFailure e) {
                if (e.code() != Code.NODEEXISTS) {
                    throw failure("create " + abs(path), e);
                }
            }
        }
    }

    /** One write outside a transaction (a create, set or delete); its failure as the transaction's. */
    public Op.Result write(Op op) throws KeeperFailure {
        requireConnected("write " + abs(op.path()));
        try {
            return write(List.of(op)).get(0);
        } catch (KeeperFailure e) {
            throw new KeeperFailure(e.code(), e.path());
        }
    }

    private List<Op.Result> write(List<Op> ops) throws KeeperFailure {
        boolean fail;
        boolean afterApply;
        synchronized (this) {
            fail = failingWrites > 0;
            afterApply = failingAfterApply;
            if (fail) {
                failingWrites--;
            }
        }
        List<Op> absolute = ops.stream().map(this::absolute).toList();
        if (fail && !afterApply) {
            throw connectionLoss();
        }
        List<Op.Result> results = ensemble.multi(session, absolute);
        if (fail) {
            throw connectionLoss();
        }
        return results.stream().map(r -> new Op.Result(r.path().substring(namespace.length() + 1), r.stat())).toList();
    }

    /** Runs a transaction; throws the {@link KeeperFailure} so callers can see which operation failed. */
    public List<Op.Result> multi(List<Op> ops) throws KeeperFailure {
        requireConnected("transaction of " + ops.size() + " operations");
        return write(ops);
    }

    /**
     * Runs a transaction only in {@code session}: SESSIONEXPIRED without sending when the client has another session
     * now (as the ZooKeeper store's {@code multiInSession}: a handle never outlives its session).
     */
    public List<Op.Result> multiInSession(long session, List<Op> ops) throws KeeperFailure {
        requireConnected("transaction of " + ops.size() + " operations");
        if (session == 0 || session != handleSession()) {
            throw new KeeperFailure(Code.SESSIONEXPIRED, null);
        }
        return write(ops);
    }

    private Op absolute(Op op) {
        String p = abs(op.path());
        if (op instanceof Op.Create c) {
            return new Op.Create(p, c.data(), c.ephemeral(), c.sequential());
        }
        if (op instanceof Op.SetData s) {
            return new Op.SetData(p, s.data(), s.version());
        }
        if (op instanceof Op.Delete d) {
            return new Op.Delete(p, d.version());
        }
        return new Op.Check(p, ((Op.Check) op).version());
    }

    public void requireConnected(String what) {
        if (!isConnected()) {
            throw new StoreException("in-memory ZooKeeper: " + what + " not attempted: not connected");
        }
    }

    public static StoreException failure(String what, KeeperFailure e) {
        return new StoreException("in-memory ZooKeeper: " + what + " failed: " + e.getMessage(), e);
    }
}

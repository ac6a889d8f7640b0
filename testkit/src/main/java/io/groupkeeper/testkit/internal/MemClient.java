package io.groupkeeper.testkit.internal;

import static io.groupkeeper.testkit.internal.PortTranslation.failure;
import static io.groupkeeper.testkit.internal.PortTranslation.node;
import static io.groupkeeper.testkit.internal.PortTranslation.op;
import static io.groupkeeper.testkit.internal.PortTranslation.stat;
import static io.groupkeeper.testkit.internal.PortTranslation.zkFailure;

import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.SimulatedThreads;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import io.groupkeeper.zkprotocol.WireSize;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkLatch;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.ZkStat;
import io.groupkeeper.zkprotocol.ZkStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client of the modelled ensemble, as a Curator client plus zk-store's {@code ZkSession}: the session port ({@link
 * ZkPort}) the store (zk-protocol's, the one that ships) runs on in memory. It holds one session at a time, replaces an
 * expired one at once (or at the next {@link #reconnect()}), reports connection changes in Curator's sequences, and
 * offers the reads, watches and transactions of the port, with the same failure translation ({@code StoreException}
 * naming the path; {@link ZkFailure} where the store inspects the outcome). Answers of background requests come at
 * once, in the caller's thread (the model is one linearizable server), except those a silent cut holds ({@link
 * #cutSilently()}).
 *
 * <p>Connection events, as {@code ZooKeeperStore} maps Curator's states: {@code CONNECTED} at start; {@code SUSPENDED}
 * on a disconnect; {@code RECONNECTED} when the session survived it; {@code LOST} when the session expired, then
 * {@code RECONNECTED_NEW_SESSION} once a new session is established. Watch notifications run on its {@link
 * EventLane}, in order; connection events on the same lane, or on a lane of their own (as Curator's state thread),
 * ordered among themselves only.
 *
 * <p>About 900 lines because it is one whole client: the port's reads, watches and writes, and the connection
 * faults (lost answers, expiry in doubt, silent cuts, Curator's LOST timing), which all turn on the same session and
 * suspension state under one lock; splitting them apart would expose that state to another class. What does not turn
 * on it is apart: the translation between the port's types and the model's ({@link PortTranslation}) and the plan of
 * the faults armed on the next writes ({@link WriteFaults}).
 */
public final class MemClient implements ZkPort {

    private static final Logger LOG = LoggerFactory.getLogger(MemClient.class);

    private final Ensemble ensemble;
    private final String namespace;
    private final Duration sessionTimeout;
    private final EventLane lane;
    /** Where connection listeners run: {@link #lane} itself, or a lane of their own (Curator's state thread). */
    private final EventLane stateLane;

    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private final ZkStats stats = new ZkStats();
    private final long transactionLimit;
    /** The model's watcher of each persistent watcher of the store, and the session it was added in. */
    private final Map<Consumer<ZkEvent>, Watcher> persistentWatchers =
            Collections.synchronizedMap(new LinkedHashMap<>()); // in order: runs are reproducible

    private final Map<Consumer<ZkEvent>, Long> persistentSessions = new ConcurrentHashMap<>();
    private final Set<Long> pastSessions = ConcurrentHashMap.newKeySet();
    private volatile long session;
    private volatile boolean closed;
    // Guarded by this.
    private boolean lostReported;
    private boolean suspended;
    /** The connection is down until the session expires, then comes back ({@link #failNextWrites(int, boolean, boolean)}). */
    private boolean downUntilExpiry;
    /** A silent cut: the server no longer hears this client, which has not noticed yet ({@link #cutSilently()}). */
    private boolean silent;
    /**
     * How the silent cut under way ends for the requests it holds: true when the network returns first (they are sent
     * then), false when it is noticed or the session is gone (they fail with a lost connection); null without a cut.
     */
    private CompletableFuture<Boolean> cut;
    /** When SUSPENDED was reported; a LOST deferred until a session timeout after it (as Curator), or null. */
    private Instant suspendedAt;

    private Instant lostDue;
    private final Runnable ticker = this::checkLostDue;
    private final WriteFaults faults = new WriteFaults();

    public MemClient(
            Ensemble ensemble, String namespace, Duration sessionTimeout, EventLane lane, long transactionLimit) {
        this(ensemble, namespace, sessionTimeout, lane, lane, transactionLimit);
    }

    /**
     * A client whose connection listeners run on {@code stateLane}: with a lane other than {@code lane}, connection
     * events are ordered among themselves but not with watch notifications, as Curator delivers connection states on a
     * thread of its own while ZooKeeper's event thread delivers watches (and the persistent watchers' own
     * disconnected/connected events, which stay on {@code lane}).
     */
    public MemClient(
            Ensemble ensemble,
            String namespace,
            Duration sessionTimeout,
            EventLane lane,
            EventLane stateLane,
            long transactionLimit) {
        this.stateLane = stateLane;
        this.transactionLimit = transactionLimit;
        this.ensemble = ensemble;
        this.namespace = namespace;
        this.sessionTimeout = sessionTimeout;
        this.lane = lane;
    }

    // ------------------------------------------------------------------ session lifecycle

    public void start() {
        ensemble.onTick(ticker);
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
        endCut(false);
        ensemble.removeTick(ticker);
        long s = session;
        listeners.clear();
        lane.clear();
        stateLane.clear();
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
            downUntilExpiry = false; // this cut decides when the connection comes back
            silent = false; // noticed now
            if (suspended || closed) {
                return;
            }
            suspended = true;
            suspendedAt = ensemble.clock().instant();
        }
        ensemble.disconnect(session);
        endCut(false); // the requests a silent cut held fail before the listeners hear of it, as ZooKeeper's client
        emit(ConnectionEvent.SUSPENDED);
    }

    /** A silent cut ends for the requests it holds: sent now ({@code healed}) or lost. */
    private void endCut(boolean healed) {
        CompletableFuture<Boolean> ended;
        synchronized (this) {
            ended = cut;
            cut = null;
        }
        if (ended != null) {
            ended.complete(healed);
        }
    }

    /**
     * A silent cut: the network drops without the client noticing. The server stops hearing it (the session's timeout
     * starts running on the clock, its notifications are held), while the client reports nothing until it notices
     * ({@link #noticeCut()}, at its read timeout: two thirds of the session timeout, as ZooKeeper's client) or the
     * network comes back first ({@link #reconnect()}: nothing was noticed, held notifications arrive). Meanwhile a
     * request from a thread of the ensemble's {@link SimulatedThreads} that can wait hangs: a blocking call holds its
     * caller, a background one returns a future that completes on the event lane; both are sent when the network
     * returns, and fail with a lost connection when the cut is noticed (a write among them may have landed all the same:
     * {@link #landMaybe}). Requests from other threads fail at once.
     */
    public void cutSilently() {
        synchronized (this) {
            if (suspended || closed || silent) {
                return;
            }
            silent = true;
            cut = new CompletableFuture<>();
        }
        ensemble.cutSilently(session);
    }

    /** The client notices a silent cut: SUSPENDED now (the session's timeout has been running since the cut). */
    public void noticeCut() {
        synchronized (this) {
            if (!silent) {
                return;
            }
        }
        disconnect();
    }

    /** The client gets its connection back: the same session if it survived, else a new one. */
    public void reconnect() {
        boolean unnoticed;
        synchronized (this) {
            unnoticed = silent && !closed;
            silent = false;
        }
        if (unnoticed) {
            if (ensemble.reconnect(session)) {
                ensemble.releaseHeld(session); // a cut shorter than the read timeout: nothing to report
                endCut(true); // the requests it held are sent now: answered after the notifications held before them
            } else {
                endCut(false);
                emit(ConnectionEvent.SUSPENDED);
                newSession(session);
            }
            return;
        }
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
        boolean back;
        boolean wasSilent;
        boolean deferred = false;
        synchronized (this) {
            if (expired != session || closed) {
                return;
            }
            back = downUntilExpiry;
            downUntilExpiry = false;
            wasSilent = silent;
            if (silent) { // expired before the cut was noticed: noticed now, the network still down
                silent = false;
                suspended = true;
                suspendedAt = ensemble.clock().instant();
            }
            renew = !suspended;
            if (!renew && !back) {
                // Curator reports LOST a session timeout after SUSPENDED (or on reconnecting), not when the server
                // expired the session: after a silent cut that is later.
                Instant due = suspendedAt.plus(sessionTimeout);
                if (ensemble.clock().instant().isBefore(due)) {
                    lostDue = due;
                    deferred = true;
                }
            }
            if (!deferred) {
                lostReported = true;
            }
        }
        if (wasSilent) {
            endCut(false);
        }
        if (renew || wasSilent) {
            emit(ConnectionEvent.SUSPENDED); // the server closed the connection first, or the cut is noticed now
        }
        if (deferred) {
            return; // LOST at lostDue (checkLostDue) or on reconnecting (newSession)
        }
        emit(ConnectionEvent.LOST);
        if (renew) {
            newSession(expired);
        } else if (back) {
            reconnect(); // the connection that was down until the expiry comes back: a new session
        }
    }

    /** Reports a deferred LOST once the clock has passed a session timeout since SUSPENDED (run on every operation). */
    private void checkLostDue() {
        synchronized (this) {
            if (lostDue == null || closed || ensemble.clock().instant().isBefore(lostDue)) {
                return;
            }
            lostDue = null;
            lostReported = true;
        }
        emit(ConnectionEvent.LOST);
    }

    private void newSession(long old) {
        boolean reportLost;
        synchronized (this) {
            silent = false;
            lostDue = null;
            reportLost = !lostReported;
            lostReported = false;
        }
        endCut(false);
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
     * The next publish of a leader on this client that takes more than one transaction loses the connection after its
     * first: a generation published in part.
     */
    public void cutNextPublish() {
        faults.cutNextPublish();
    }

    /**
     * The next {@code count} writes fail with a connection loss; with {@code afterApply} each is applied first (the
     * request reached the server, the answer was lost), so the caller cannot tell whether it landed.
     */
    public void failNextWrites(int count, boolean afterApply) {
        failNextWrites(count, afterApply, false);
    }

    /**
     * As {@link #failNextWrites(int, boolean)}; with {@code sessionExpires} the first of them also outlives its
     * session: the connection drops with the request in flight (the caller gets CONNECTIONLOSS, the listeners
     * SUSPENDED) and stays down until the session has expired on the clock (LOST), then comes back in a new session
     * (RECONNECTED_NEW_SESSION). Whether the write landed, and that an ephemeral node it created went with the session,
     * is left for the caller to find out in its new session. A {@link #disconnect()} from outside meanwhile (another
     * cut) takes the connection over: it comes back when that cut's {@link #reconnect()} says so.
     */
    public void failNextWrites(int count, boolean afterApply, boolean sessionExpires) {
        faults.failNext(count, afterApply, sessionExpires);
    }

    /**
     * The next claim transaction (one that creates an ephemeral node under an {@code owners} folder) that the server
     * applies loses its answer: the caller gets a connection loss, the listeners SUSPENDED and RECONNECTED in the same
     * session, and the client is now on a follower that has not applied the claim: its reads miss it until the follower
     * catches up after {@code catchUp} on the clock, or at a {@code sync} (or the client's own next write, or a watch it
     * adds), and never go backwards ({@link Ensemble#multiLandingLate}). A claim the server refuses is answered as usual
     * and the fault waits for the next one. {@code landed} runs once it has landed, in the claiming thread, before the
     * caller hears of the lost answer (a simulation queues a fault of its own there).
     */
    public void landNextClaimLate(Duration catchUp, Runnable landed) {
        landNextClaimLate(catchUp, false, landed);
    }

    /**
     * As {@link #landNextClaimLate(Duration, Runnable)}; with {@code staysDown} the connection stays down after the lost
     * answer (SUSPENDED only; {@code landed} runs then) until {@link #reconnect()}, which comes back in the same session
     * (if it is still alive) on the follower that has not applied the claim.
     */
    public void landNextClaimLate(Duration catchUp, boolean staysDown, Runnable landed) {
        faults.landNextClaimLate(new WriteFaults.LateClaim(catchUp, staysDown, landed));
    }

    /**
     * A CONNECTIONLOSS is the connection breaking: as with ZooKeeper's client, the listeners hear SUSPENDED, and (the
     * servers still there) RECONNECTED with the same session right after.
     */
    ZkFailure connectionLoss() {
        disconnect();
        reconnect();
        return new ZkFailure(ZkCode.CONNECTIONLOSS, null);
    }

    /**
     * A CONNECTIONLOSS whose connection stays down until the session has expired on the clock: SUSPENDED now, LOST
     * when the server ends the session (deleting its ephemeral nodes), RECONNECTED_NEW_SESSION right after.
     */
    private ZkFailure connectionLossUntilExpiry() {
        synchronized (this) {
            if (suspended || closed) {
                return new ZkFailure(ZkCode.CONNECTIONLOSS, null);
            }
            suspended = true;
            suspendedAt = ensemble.clock().instant();
            downUntilExpiry = true;
        }
        ensemble.disconnect(session);
        emit(ConnectionEvent.SUSPENDED);
        return new ZkFailure(ZkCode.CONNECTIONLOSS, null);
    }

    /**
     * Queues {@code event} for the listeners registered now (and still registered when it runs), after the connection
     * event of the persistent watchers (ZooKeeper's event thread hears of it before Curator's listeners do).
     */
    private void emit(ConnectionEvent event) {
        List<ConnectionListener> registered = List.copyOf(listeners);
        long s = session;
        Map<Consumer<ZkEvent>, Watcher> watchers;
        synchronized (persistentWatchers) {
            watchers = new LinkedHashMap<>(persistentWatchers);
        }
        watchers.forEach((consumer, w) -> {
            if (event == ConnectionEvent.RECONNECTED && persistentSessions.getOrDefault(consumer, 0L) == s) {
                lane.add(() -> consumer.accept(new ZkEvent(ZkEvent.Type.CONNECTED, null, 0)));
            } else if (event == ConnectionEvent.SUSPENDED || event == ConnectionEvent.LOST) {
                lane.add(() -> consumer.accept(new ZkEvent(ZkEvent.Type.DISCONNECTED, null, 0)));
            }
        });
        stateLane.add(() -> {
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
        if (stateLane != lane) {
            stateLane.kick();
        }
    }

    /** Runs {@code task} on this client's event lane, after everything queued before it. */
    public void onLane(Runnable task) {
        lane.add(task);
        lane.kick();
    }

    // ------------------------------------------------------------------ session facts

    @Override
    public long sessionId() {
        return session;
    }

    /** The session of the client's connection now (Curator's current handle); 0 when closed. */
    @Override
    public long handleSession() {
        return closed ? 0 : session;
    }

    @Override
    public boolean isConnected() {
        return !closed && ensemble.isConnected(session);
    }

    @Override
    public boolean isPastSession(long owner) {
        return owner != 0 && pastSessions.contains(owner);
    }

    @Override
    public boolean isCurrentSession(long owner) {
        return owner != 0 && owner == session;
    }

    @Override
    public String abs(String path) {
        return "/".equals(path) ? "/" + namespace : "/" + namespace + path;
    }

    /** The namespaced path of a full one. */
    private String relative(String full) {
        String prefix = "/" + namespace;
        if (full == null || !full.startsWith(prefix)) {
            return full;
        }
        return full.length() == prefix.length() ? "/" : full.substring(prefix.length());
    }

    @Override
    public ZkStats stats() {
        return stats;
    }

    @Override
    public long transactionLimit() {
        return transactionLimit;
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
            stats.watchEvent();
            if (fired.compareAndSet(false, true)) {
                hook.run();
            }
        };
    }

    @Override
    public Optional<ZkNode> read(String path, Runnable hook) {
        awaitSend("read " + abs(path));
        Watcher w = hook == null ? null : watcher(hook);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                stats.read();
                return Optional.of(node(ensemble.getData(session, abs(path), w)));
            } catch (KeeperFailure e) {
                if (e.code() != Code.NONODE) {
                    throw failure("read " + abs(path), e);
                }
                if (w == null || existsWatching(path, w) == null) {
                    return Optional.empty();
                }
            }
        }
        throw new StoreException("node " + abs(path) + " keeps appearing and disappearing");
    }

    @Override
    public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
        awaitSend("read " + abs(path));
        try {
            stats.read();
            return Optional.of(node(ensemble.getData(session, abs(path), hook == null ? null : watcher(hook))));
        } catch (KeeperFailure e) {
            if (e.code() == Code.NONODE) {
                return Optional.empty();
            }
            throw failure("read " + abs(path), e);
        }
    }

    @Override
    public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
        return background(
                () -> {
                    try {
                        return CompletableFuture.completedFuture(readIfPresentWatching(path, hook));
                    } catch (RuntimeException e) {
                        return CompletableFuture.failedFuture(e);
                    }
                },
                () -> CompletableFuture.failedFuture(lost("read " + abs(path))));
    }

    @Override
    public Optional<ZkStat> exists(String path, Runnable hook) {
        return Optional.ofNullable(stat(existsWatching(path, hook == null ? null : watcher(hook))));
    }

    private NodeStat existsWatching(String path, Watcher w) {
        awaitSend("check " + abs(path));
        try {
            stats.read();
            return ensemble.exists(session, abs(path), w);
        } catch (KeeperFailure e) {
            throw failure("check " + abs(path), e);
        }
    }

    @Override
    public List<String> children(String path, Runnable hook) {
        awaitSend("list " + abs(path));
        try {
            stats.read();
            return ensemble.getChildren(session, abs(path), hook == null ? null : watcher(hook));
        } catch (KeeperFailure e) {
            if (e.code() == Code.NONODE) {
                return List.of();
            }
            throw failure("list " + abs(path), e);
        }
    }

    @Override
    public CompletableFuture<List<String>> childrenAsync(String path) {
        return background(
                () -> {
                    try {
                        requireConnected("list " + abs(path));
                        stats.read();
                        return CompletableFuture.completedFuture(ensemble.getChildren(session, abs(path), null));
                    } catch (KeeperFailure e) {
                        return CompletableFuture.failedFuture(zkFailure(e));
                    } catch (RuntimeException e) {
                        return CompletableFuture.failedFuture(e);
                    }
                },
                () -> CompletableFuture.failedFuture(new ZkFailure(ZkCode.CONNECTIONLOSS, path)));
    }

    /** The client's next reads see every write committed before it (with follower lag on; else they do anyway). */
    @Override
    public void sync(String path) {
        awaitSend("sync " + abs(path));
        stats.read();
        try {
            ensemble.sync(session);
        } catch (KeeperFailure e) {
            throw failure("sync " + abs(path), e);
        }
    }

    // ------------------------------------------------------------------ persistent watches

    @Override
    public void addPersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) throws ZkFailure {
        awaitSend("watch " + abs(path));
        Watcher w = persistentWatchers.computeIfAbsent(watcher, c -> event -> c.accept(event(event)));
        try {
            stats.read();
            ensemble.addPersistentWatch(session, abs(path), w, recursive);
            persistentSessions.put(watcher, session);
        } catch (KeeperFailure e) {
            throw failure("watch " + abs(path), e);
        }
    }

    @Override
    public void removePersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) {
        Watcher w = persistentWatchers.get(watcher);
        if (w != null) {
            ensemble.removePersistentWatch(session, abs(path), w, recursive);
        }
    }

    private ZkEvent event(WatchEvent e) {
        return new ZkEvent(PortTranslation.type(e.type()), relative(e.path()), e.zxid());
    }

    // ------------------------------------------------------------------ writes

    @Override
    public void ensurePath(String path, byte[] data) {
        awaitSend("create " + abs(path));
        if (existsWatching(path, null) != null) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (String p = path; !p.isEmpty() && !"/".equals(p); p = TreePaths.parent(p)) {
            if (existsWatching(p, null) != null) {
                break;
            }
            missing.add(0, p);
        }
        for (int i = 0; i < missing.size(); i++) {
            try {
                stats.write(1);
                apply(List.of(Op.Create.persistent(missing.get(i), i == missing.size() - 1 ? data : null)));
            } catch (ZkFailure e) {
                if (e.code() != ZkCode.NODEEXISTS) {
                    throw ZkFailure.toStore("create " + abs(path), e);
                }
            }
        }
    }

    @Override
    public ZkResult write(ZkOp op) throws ZkFailure {
        awaitWrite("write " + abs(op.path()), session, List.of(op(op)));
        stats.write(1);
        return apply(List.of(op(op))).get(0);
    }

    @Override
    public ZkResult createWithParents(String path, byte[] data) throws ZkFailure {
        awaitWrite("create " + abs(path), session, List.of(Op.Create.persistent(path, data)));
        String parent = TreePaths.parent(path);
        if (!"/".equals(parent)) {
            ensurePath(parent, null);
        }
        stats.write(1);
        return apply(List.of(Op.Create.persistent(path, data))).get(0);
    }

    /** Applies a write, or fails it with a lost connection ({@link #failNextWrites}) before or after applying it. */
    private List<ZkResult> apply(List<Op> ops) throws ZkFailure {
        WriteFaults.Failure failure = faults.takeFailure();
        boolean fail = failure != null;
        boolean afterApply = fail && failure.afterApply();
        boolean expires = fail && failure.sessionExpires();
        List<Op> absolute = ops.stream().map(this::absolute).toList();
        Duration late = fail ? null : faults.lateClaimFor(absolute);
        if (late != null) {
            try {
                ensemble.multiLandingLate(session, absolute, late);
            } catch (KeeperFailure e) {
                throw zkFailure(e); // refused: answered, nothing lags; the fault waits for the next claim
            }
            WriteFaults.LateClaim landed = faults.takeLateClaim();
            if (landed.staysDown()) {
                disconnect(); // the answer is lost with the connection; back when reconnect() says so
                landed.landed().run();
                throw new ZkFailure(ZkCode.CONNECTIONLOSS, null);
            }
            landed.landed().run();
            throw connectionLoss(); // the answer is lost; the client is back at once, on the lagging follower
        }
        if (fail && !afterApply) {
            throw expires ? connectionLossUntilExpiry() : connectionLoss();
        }
        List<Op.Result> results;
        try {
            results = ensemble.multi(session, absolute);
        } catch (KeeperFailure e) {
            throw zkFailure(e);
        }
        if (fail) {
            throw expires ? connectionLossUntilExpiry() : connectionLoss();
        }
        List<ZkResult> out = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            Op op = ops.get(i);
            boolean hasStat = op instanceof Op.SetData || op instanceof Op.Create; // as ZooKeeper's results
            out.add(new ZkResult(
                    relative(results.get(i).path()),
                    hasStat ? stat(results.get(i).stat()) : null));
        }
        return out;
    }

    @Override
    public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
        awaitWrite(
                "transaction of " + ops.size() + " operations",
                session,
                ops.stream().map(PortTranslation::op).toList());
        stats.transaction(ops.size());
        if (faults.publishCut(ops)) {
            throw connectionLoss(); // the leader loses its connection between its transactions
        }
        return apply(ops.stream().map(PortTranslation::op).toList());
    }

    /**
     * Runs a transaction only in {@code session}: SESSIONEXPIRED without sending when the client has another session
     * now (as zk-store's {@code multiInSession}: a handle never outlives its session).
     */
    @Override
    public List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure {
        awaitWrite(
                "transaction of " + ops.size() + " operations",
                session,
                ops.stream().map(PortTranslation::op).toList());
        if (session == 0 || session != handleSession()) {
            throw new ZkFailure(ZkCode.SESSIONEXPIRED, null);
        }
        stats.transaction(ops.size());
        return apply(ops.stream().map(PortTranslation::op).toList());
    }

    @Override
    public CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
        return background(() -> ZkPort.super.multiInSessionAsync(session, ops), () -> {
            landMaybe(session, ops.stream().map(PortTranslation::op).toList());
            return CompletableFuture.completedFuture(new Transaction(ZkCode.CONNECTIONLOSS, -1, null));
        });
    }

    @Override
    public long sizeOf(ZkOp op) {
        return WireSize.of(abs(op.path()), op);
    }

    private Op absolute(Op op) {
        return PortTranslation.at(op, abs(op.path()));
    }

    // ------------------------------------------------------------------ leader election

    @Override
    public ZkLatch latch(String path, String participantId, Runnable isLeader, Runnable notLeader) {
        return new MemLatch(this, path, participantId, isLeader, notLeader);
    }

    // ------------------------------------------------------------------ requests a silent cut holds

    /**
     * Whether a request may go out: during a silent cut not noticed yet, a caller that can wait (a thread of the
     * ensemble's {@link SimulatedThreads}) is held until the cut ends, and then the request goes out if the network
     * returned first, or is lost (false) if the cut was noticed (the server never heard it). Any other caller goes on
     * at once, and its request fails on the connection, as before.
     */
    private boolean sendable() {
        SimulatedThreads threads = ensemble.threads();
        while (true) {
            CompletableFuture<Boolean> held = heldBy();
            if (held == null || !threads.canWait()) {
                return true;
            }
            threads.await(held, false);
            if (!held.join()) {
                return false;
            }
        }
    }

    private synchronized CompletableFuture<Boolean> heldBy() {
        return silent ? cut : null;
    }

    /** Before a request that reports failures as {@code StoreException}s: held through a silent cut (above). */
    private void awaitSend(String what) {
        if (!sendable()) {
            throw lost(what);
        }
        requireConnected(what);
    }

    /**
     * Before a write that reports a lost connection as {@link ZkCode#CONNECTIONLOSS}: held through a silent cut (above).
     * A write the cut's notice fails may have reached the server all the same ({@link #landMaybe}).
     */
    private void awaitWrite(String what, long sentIn, List<Op> ops) throws ZkFailure {
        if (!sendable()) {
            landMaybe(sentIn, ops);
            throw new ZkFailure(ZkCode.CONNECTIONLOSS, null);
        }
        requireConnected(what);
    }

    /**
     * A write whose request a silent cut held and whose client then noticed the cut: as for a reply lost on a real
     * network (the request got through just before the cut, its answer did not), the simulated threads decide
     * ({@link SimulatedThreads#landsAnyway()}) whether the server applied it, in the session it was sent in, if that
     * is still alive; the caller gets a lost connection either way and cannot tell.
     */
    private void landMaybe(long sentIn, List<Op> ops) {
        if (!ensemble.threads().landsAnyway()) {
            return;
        }
        try {
            ensemble.multiArrived(sentIn, ops.stream().map(this::absolute).toList());
        } catch (KeeperFailure e) {
            LOG.debug("a write the cut held landed and failed: {}", e.getMessage());
        }
    }

    private StoreException lost(String what) {
        return failure(what, new KeeperFailure(Code.CONNECTIONLOSS, null));
    }

    /**
     * A background request: answered at once; or, during a silent cut not noticed yet and from a caller that can wait,
     * answered on the event lane when the cut ends (as ZooKeeper's event thread runs background callbacks): by {@code
     * send} if the network returned first, else by {@code lost}. Stages derived from the answer hold the threads that
     * wait for them ({@link HeldFuture}).
     */
    private <T> CompletableFuture<T> background(
            Supplier<CompletableFuture<T>> send, Supplier<CompletableFuture<T>> lost) {
        SimulatedThreads threads = ensemble.threads();
        CompletableFuture<Boolean> held = heldBy();
        if (held == null || !threads.canWait()) {
            return send.get();
        }
        HeldFuture<T> answer = new HeldFuture<>(threads);
        held.thenAccept(healed -> {
            lane.add(() -> (healed ? background(send, lost) : lost.get()).whenComplete((v, e) -> {
                if (e != null) {
                    answer.completeExceptionally(e);
                } else {
                    answer.complete(v);
                }
            }));
            lane.kick();
        });
        return answer;
    }

    // ------------------------------------------------------------------ failures

    @Override
    public void requireConnected(String what) {
        if (!isConnected()) {
            throw new StoreException("in-memory ZooKeeper: " + what + " not attempted: not connected");
        }
    }
}

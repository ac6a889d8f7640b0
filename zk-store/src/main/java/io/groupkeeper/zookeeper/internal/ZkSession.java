package io.groupkeeper.zookeeper.internal;

import static io.groupkeeper.zookeeper.internal.ZkWire.bytes;
import static io.groupkeeper.zookeeper.internal.ZkWire.code;
import static io.groupkeeper.zookeeper.internal.ZkWire.failedOp;
import static io.groupkeeper.zookeeper.internal.ZkWire.failure;
import static io.groupkeeper.zookeeper.internal.ZkWire.mode;
import static io.groupkeeper.zookeeper.internal.ZkWire.stat;
import static io.groupkeeper.zookeeper.internal.ZkWire.zkFailure;

import io.groupkeeper.spi.StoreException;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The session port ({@link ZkPort}) on one Curator client, the store's thin layer over it: counted round trips, one-shot
 * watch hooks that ignore connection-state pseudo events, the session ids this client has had (to recognise its own
 * stale ephemeral nodes), and ZooKeeper failures as {@link StoreException}s that name the path ({@link ZkWire}).
 *
 * <p>About 690 lines, one class on purpose: it is the port's one implementation on Curator, each of the port's thirty
 * methods a short call with the same counting, connection gate and failure translation around it; the translation of
 * ZooKeeper's types, the part that stands alone, is {@link ZkWire}.
 */
public final class ZkSession implements ZkPort {

    private final CuratorFramework client;
    private final ZkStats stats;
    private final Set<Long> pastSessions = ConcurrentHashMap.newKeySet();
    private volatile long currentSession;
    /**
     * Whether the owner tells this session of every connection ({@link #connected()}), so that a request that lost its
     * connection can hold back the next ones until then (see {@link #requireConnected}); the store's does.
     */
    private final boolean tracksConnections;

    private final LostConnectionGate gate = new LostConnectionGate();
    /** The ZooKeeper watcher of each persistent watcher the store added, to remove it again. */
    private final Map<Consumer<ZkEvent>, Watcher> persistentWatchers = new ConcurrentHashMap<>();

    /** A session over {@code client} for one-off readers (the admin): connection losses are not tracked. */
    public ZkSession(CuratorFramework client, ZkStats stats) {
        this(client, stats, false);
    }

    public ZkSession(CuratorFramework client, ZkStats stats, boolean tracksConnections) {
        this.client = client;
        this.stats = stats;
        this.tracksConnections = tracksConnections;
    }

    /** Curator reported a connection (connected, reconnected): requests held back by a lost one may go again. */
    public void connected() {
        gate.connected();
    }

    public CuratorFramework client() {
        return client;
    }

    @Override
    public String abs(String path) {
        String ns = client.getNamespace();
        return ns == null || ns.isEmpty() ? path : "/" + ns + path;
    }

    /** The namespaced path of a full one (as ZooKeeper's handle names it in events). */
    private String relative(String full) {
        String ns = client.getNamespace();
        if (full == null || ns == null || ns.isEmpty()) {
            return full;
        }
        String prefix = "/" + ns;
        if (full.equals(prefix)) {
            return "/";
        }
        return full.startsWith(prefix + "/") ? full.substring(prefix.length()) : full;
    }

    @Override
    public ZkStats stats() {
        return stats;
    }

    /** Refreshes the remembered session id; returns true if it changed (a new session). */
    public boolean refreshSession() {
        long id;
        try {
            id = client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return false;
        }
        long old = currentSession;
        if (id != 0 && id != old) {
            if (old != 0) {
                pastSessions.add(old);
            }
            currentSession = id;
            return old != 0;
        }
        return false;
    }

    @Override
    public long sessionId() {
        if (currentSession == 0) {
            refreshSession();
        }
        return currentSession;
    }

    @Override
    public boolean isPastSession(long ephemeralOwner) {
        return ephemeralOwner != 0 && pastSessions.contains(ephemeralOwner);
    }

    @Override
    public boolean isCurrentSession(long ephemeralOwner) {
        return ephemeralOwner != 0 && ephemeralOwner == sessionId();
    }

    @Override
    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** Wraps a hook as a ZooKeeper watcher that fires the hook at most once, on node events only. */
    public Watcher watcher(Runnable hook) {
        AtomicBoolean fired = new AtomicBoolean();
        return event -> {
            if (event.getType() == Watcher.Event.EventType.None) {
                return;
            }
            stats.watchEvent();
            if (fired.compareAndSet(false, true)) {
                hook.run();
            }
        };
    }

    @Override
    public Optional<ZkNode> read(String path, Runnable hook) {
        long sentIn = enter("read " + abs(path));
        Watcher w = hook == null ? null : watcher(hook);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                Stat stat = new Stat();
                stats.read();
                byte[] data = w == null
                        ? client.getData().storingStatIn(stat).forPath(path)
                        : client.getData().storingStatIn(stat).usingWatcher(w).forPath(path);
                return Optional.of(new ZkNode(data, stat(stat)));
            } catch (KeeperException.NoNodeException e) {
                if (w == null) {
                    return Optional.empty();
                }
                // Arm a watch for creation; if it appeared meanwhile, read again.
                if (exists(path, w) == null) {
                    return Optional.empty();
                }
            } catch (Exception e) {
                throw failure("read " + abs(path), noteLoss(sentIn, e));
            }
        }
        throw new StoreException("node " + abs(path) + " keeps appearing and disappearing");
    }

    @Override
    public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
        long sentIn = enter("read " + abs(path));
        try {
            Stat stat = new Stat();
            stats.read();
            byte[] data = client.getData()
                    .storingStatIn(stat)
                    .usingWatcher(watcher(hook))
                    .forPath(path);
            return Optional.of(new ZkNode(data, stat(stat)));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failure("read " + abs(path), noteLoss(sentIn, e));
        }
    }

    @Override
    public Optional<ZkStat> exists(String path, Runnable hook) {
        return Optional.ofNullable(exists(path, hook == null ? null : watcher(hook)))
                .map(ZkWire::stat);
    }

    public Stat exists(String path, Watcher w) {
        long sentIn = enter("check " + abs(path));
        try {
            stats.read();
            return w == null
                    ? client.checkExists().forPath(path)
                    : client.checkExists().usingWatcher(w).forPath(path);
        } catch (Exception e) {
            throw failure("check " + abs(path), noteLoss(sentIn, e));
        }
    }

    @Override
    public List<String> children(String path, Runnable hook) {
        long sentIn = enter("list " + abs(path));
        try {
            stats.read();
            return hook == null
                    ? client.getChildren().forPath(path)
                    : client.getChildren().usingWatcher(watcher(hook)).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw failure("list " + abs(path), noteLoss(sentIn, e));
        }
    }

    @Override
    public CompletableFuture<List<String>> childrenAsync(String path) {
        CompletableFuture<List<String>> done = new CompletableFuture<>();
        try {
            enter("list " + abs(path));
            stats.read();
            client.getChildren()
                    .inBackground((c, event) -> {
                        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                        if (code == KeeperException.Code.OK) {
                            done.complete(event.getChildren());
                        } else {
                            done.completeExceptionally(new ZkFailure(code(code), abs(path)));
                        }
                    })
                    .forPath(path);
        } catch (Exception e) {
            done.completeExceptionally(failure("list " + abs(path), e));
        }
        return done;
    }

    /** Up to this many operations per read multi (at ~200 bytes per offset node, ~100 KiB per response). */
    static final int READ_BATCH = 500;
    /** Set once a server refused a read multi (older than 3.6): every later batch is read node by node. */
    private volatile boolean readMultiUnsupported;

    /**
     * In batches of {@link #READ_BATCH} read-only multis (3.6+), each answered together with a result per operation (a
     * missing node is that operation's NONODE, not a failure of the batch), so a response stays far below {@code
     * jute.maxbuffer}; node by node on a server without read multis.
     */
    @Override
    public Map<String, Optional<ZkNode>> readAll(List<String> paths) throws ZkFailure {
        Map<String, Optional<ZkNode>> out = new LinkedHashMap<>();
        List<String> list = List.copyOf(new LinkedHashSet<>(paths));
        for (int from = 0; from < list.size(); from += READ_BATCH) {
            List<String> chunk = list.subList(from, Math.min(list.size(), from + READ_BATCH));
            List<OpResult> results = readMulti(chunk, true);
            for (int i = 0; i < chunk.size(); i++) {
                OpResult r = results.get(i);
                out.put(
                        chunk.get(i),
                        r instanceof OpResult.GetDataResult d
                                ? Optional.of(new ZkNode(d.getData(), stat(d.getStat())))
                                : missing(chunk.get(i), r));
            }
        }
        return out;
    }

    /** As {@link #readAll}: the children of each path, in batches of read-only multis. */
    @Override
    public Map<String, Optional<List<String>>> childrenAll(List<String> paths) throws ZkFailure {
        Map<String, Optional<List<String>>> out = new LinkedHashMap<>();
        List<String> list = List.copyOf(new LinkedHashSet<>(paths));
        for (int from = 0; from < list.size(); from += READ_BATCH) {
            List<String> chunk = list.subList(from, Math.min(list.size(), from + READ_BATCH));
            List<OpResult> results = readMulti(chunk, false);
            for (int i = 0; i < chunk.size(); i++) {
                OpResult r = results.get(i);
                if (r instanceof OpResult.GetChildrenResult c) {
                    List<String> sorted = new ArrayList<>(c.getChildren());
                    Collections.sort(sorted);
                    out.put(chunk.get(i), Optional.of(sorted));
                } else {
                    out.put(chunk.get(i), missing(chunk.get(i), r));
                }
            }
        }
        return out;
    }

    /** Empty for NONODE; NOAUTH as a {@link ZkFailure} naming the path; anything else a {@code StoreException}. */
    private <T> Optional<T> missing(String path, OpResult r) throws ZkFailure {
        if (r instanceof OpResult.ErrorResult e) {
            KeeperException.Code code = KeeperException.Code.get(e.getErr());
            if (code == KeeperException.Code.NONODE) {
                return Optional.empty();
            }
            if (code == KeeperException.Code.NOAUTH) {
                throw new ZkFailure(ZkCode.NOAUTH, abs(path));
            }
            throw new StoreException("ZooKeeper: read " + abs(path) + " failed: " + code);
        }
        throw new StoreException("ZooKeeper: read " + abs(path) + ": unexpected result " + r);
    }

    /** One batch: a read multi (retried up to three times over a lost connection: reads are idempotent). */
    private List<OpResult> readMulti(List<String> paths, boolean data) {
        String what = "read of " + paths.size() + " nodes";
        if (!readMultiUnsupported) {
            List<Op> ops = new ArrayList<>(paths.size());
            for (String p : paths) {
                ops.add(data ? Op.getData(abs(p)) : Op.getChildren(abs(p)));
            }
            for (int attempt = 1; ; attempt++) {
                enter(what);
                try {
                    stats.read();
                    return client.getZookeeperClient().getZooKeeper().multi(ops);
                } catch (KeeperException.UnimplementedException e) {
                    readMultiUnsupported = true; // a server older than 3.6
                    break;
                } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException e) {
                    if (attempt >= 3) {
                        throw failure(what, e);
                    }
                    try {
                        client.getZookeeperClient().blockUntilConnectedOrTimedOut();
                    } catch (InterruptedException ie) {
                        throw failure(what, ie);
                    }
                } catch (Exception e) {
                    throw failure(what, e);
                }
            }
        }
        List<OpResult> results = new ArrayList<>(paths.size());
        for (String p : paths) {
            enter("read " + abs(p));
            try {
                stats.read();
                if (data) {
                    Stat stat = new Stat();
                    byte[] bytes = client.getData().storingStatIn(stat).forPath(p);
                    results.add(new OpResult.GetDataResult(bytes, stat));
                } else {
                    results.add(
                            new OpResult.GetChildrenResult(client.getChildren().forPath(p)));
                }
            } catch (KeeperException e) {
                results.add(new OpResult.ErrorResult(e.code().intValue()));
            } catch (Exception e) {
                throw failure("read " + abs(p), e);
            }
        }
        return results;
    }

    @Override
    public void sync(String path) {
        long sentIn = enter("sync " + abs(path));
        CompletableFuture<Integer> done = new CompletableFuture<>();
        try {
            stats.read();
            client.getZookeeperClient().getZooKeeper().sync(abs(path), (rc, p, ctx) -> done.complete(rc), null);
            int rc = done.get(client.getZookeeperClient().getConnectionTimeoutMs(), TimeUnit.MILLISECONDS);
            if (rc != KeeperException.Code.OK.intValue()) {
                throw KeeperException.create(KeeperException.Code.get(rc), abs(path));
            }
        } catch (Exception e) {
            throw failure("sync " + abs(path), noteLoss(sentIn, e));
        }
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        enter("create " + abs(path));
        try {
            stats.read();
            if (client.checkExists().forPath(path) == null) {
                stats.write(1);
                client.create()
                        .creatingParentsIfNeeded()
                        .withMode(CreateMode.PERSISTENT)
                        .forPath(path, data);
            }
        } catch (KeeperException.NodeExistsException e) {
            // created concurrently: fine
        } catch (Exception e) {
            throw failure("create " + abs(path), e);
        }
    }

    @Override
    public ZkResult write(ZkOp op) throws ZkFailure {
        long sentIn = enter("write " + abs(op.path()));
        stats.write(1);
        try {
            if (op instanceof ZkOp.Create c) {
                String created = client.create().withMode(mode(c)).forPath(c.path(), c.data());
                return new ZkResult(created, null);
            }
            if (op instanceof ZkOp.SetData set) {
                return new ZkResult(
                        set.path(),
                        stat(client.setData().withVersion(set.version()).forPath(set.path(), set.data())));
            }
            if (op instanceof ZkOp.Delete d) {
                client.delete().withVersion(d.version()).forPath(d.path());
                return new ZkResult(d.path(), null);
            }
            throw new IllegalArgumentException("a check is only part of a transaction: " + op);
        } catch (KeeperException e) {
            throw zkFailure(noteLoss(sentIn, e));
        } catch (Exception e) {
            throw failure("write " + abs(op.path()), e);
        }
    }

    @Override
    public ZkResult createWithParents(String path, byte[] data) throws ZkFailure {
        enter("create " + abs(path));
        stats.write(1);
        try {
            return new ZkResult(
                    client.create()
                            .creatingParentsIfNeeded()
                            .withMode(CreateMode.PERSISTENT)
                            .forPath(path, data),
                    null);
        } catch (KeeperException e) {
            throw zkFailure(e);
        } catch (Exception e) {
            throw failure("create " + abs(path), e);
        }
    }

    /** Runs a transaction through Curator (its retry policy, whatever session it holds). */
    @Override
    public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
        long sentIn = enter("transaction of " + ops.size() + " operations");
        stats.transaction(ops.size());
        try {
            List<ZkResult> out = new ArrayList<>();
            for (CuratorTransactionResult r : client.transaction()
                    .forOperations(ops.stream().map(this::op).toList())) {
                out.add(new ZkResult(r.getResultPath(), r.getResultStat() == null ? null : stat(r.getResultStat())));
            }
            return out;
        } catch (KeeperException e) {
            throw zkFailure(noteLoss(sentIn, e));
        } catch (Exception e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
    }

    /**
     * Runs a transaction through the ZooKeeper handle of {@code session} only. A ZooKeeper handle belongs to one
     * session for its whole life; when Curator replaces an expired session it makes a new handle, and the old one can
     * never send again. So a write prepared under one session (a claim's lease) can never land under another, even if
     * the nodes it is fenced on were deleted and created again meanwhile and their versions repeat. Fails with
     * SESSIONEXPIRED without sending when the current handle has another session.
     */
    @Override
    public List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure {
        long sentIn = enter("transaction of " + ops.size() + " operations");
        ZooKeeper handle;
        try {
            handle = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
        if (session == 0 || handle.getSessionId() != session) {
            throw new ZkFailure(ZkCode.SESSIONEXPIRED, null);
        }
        stats.transaction(ops.size());
        try {
            return results(handle.multi(ops.stream().map(o -> op(o).get()).toList()));
        } catch (KeeperException e) {
            throw zkFailure(noteLoss(sentIn, e));
        } catch (InterruptedException e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
    }

    @Override
    public CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
        CompletableFuture<Transaction> done = new CompletableFuture<>();
        try {
            long sentIn = enter("transaction of " + ops.size() + " operations");
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            if (session == 0 || handle.getSessionId() != session) {
                done.complete(new Transaction(ZkCode.SESSIONEXPIRED, -1, null));
                return done;
            }
            stats.transaction(ops.size());
            handle.multi(
                    ops.stream().map(o -> op(o).get()).toList(),
                    (rc, path, ctx, results) -> {
                        KeeperException.Code code = KeeperException.Code.get(rc);
                        if (code == KeeperException.Code.CONNECTIONLOSS) {
                            noteLoss(sentIn, KeeperException.create(code));
                        }
                        done.complete(new Transaction(
                                code(code),
                                failedOp(results),
                                code == KeeperException.Code.OK ? results(results) : null));
                    },
                    null);
        } catch (Exception e) {
            done.completeExceptionally(failure("transaction of " + ops.size() + " operations", e));
        }
        return done;
    }

    @Override
    public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
        CompletableFuture<Optional<ZkNode>> done = new CompletableFuture<>();
        String full = abs(path);
        try {
            long sentIn = enter("read " + full);
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            stats.read();
            handle.getData(
                    full,
                    hook == null ? null : watcher(hook),
                    (rc, p, ctx, data, stat) -> {
                        KeeperException.Code code = KeeperException.Code.get(rc);
                        if (code == KeeperException.Code.OK) {
                            done.complete(Optional.of(new ZkNode(data, stat(stat))));
                        } else if (code == KeeperException.Code.NONODE) {
                            done.complete(Optional.empty());
                        } else {
                            done.completeExceptionally(
                                    failure("read " + full, noteLoss(sentIn, KeeperException.create(code, full))));
                        }
                    },
                    null);
        } catch (Exception e) {
            done.completeExceptionally(failure("read " + full, e));
        }
        return done;
    }

    @Override
    public long sizeOf(ZkOp op) {
        return bytes(op(op).get());
    }

    // ------------------------------------------------------------------ persistent watches

    @Override
    public void addPersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) throws ZkFailure {
        String full = abs(path);
        long sentIn = enter("watch " + full);
        Watcher w = persistentWatchers.computeIfAbsent(watcher, c -> event -> c.accept(event(event)));
        try {
            stats.read();
            client.getZookeeperClient()
                    .getZooKeeper()
                    .addWatch(full, w, recursive ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT);
        } catch (KeeperException.UnimplementedException | KeeperException.MarshallingErrorException e) {
            throw zkFailure(e); // before 3.6 the server does not know the request; WatchManagerOptimized fails it
        } catch (Exception e) {
            throw failure("watch " + full, noteLoss(sentIn, e));
        }
    }

    @Override
    public void removePersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) {
        Watcher w = persistentWatchers.get(watcher);
        if (w == null) {
            return;
        }
        try {
            client.getZookeeperClient()
                    .getZooKeeper()
                    .removeWatches(
                            abs(path),
                            w,
                            recursive ? Watcher.WatcherType.PersistentRecursive : Watcher.WatcherType.Persistent,
                            false,
                            (rc, p, ctx) -> {},
                            null);
        } catch (Exception e) {
            // the client is closing: its watches go with it
        }
    }

    private ZkEvent event(WatchedEvent event) {
        ZkEvent.Type type = switch (event.getType()) {
            case None ->
                event.getState() == Watcher.Event.KeeperState.SyncConnected
                        ? ZkEvent.Type.CONNECTED
                        : ZkEvent.Type.DISCONNECTED;
            case NodeCreated -> ZkEvent.Type.CREATED;
            case NodeDeleted -> ZkEvent.Type.DELETED;
            case NodeDataChanged -> ZkEvent.Type.DATA_CHANGED;
            case NodeChildrenChanged -> ZkEvent.Type.CHILDREN_CHANGED;
            default -> ZkEvent.Type.WATCH_REMOVED; // the watch removals
        };
        return new ZkEvent(type, relative(event.getPath()), event.getZxid());
    }

    // ------------------------------------------------------------------ leader election

    /** Curator's leader latch protocol, quiet when closed with a check in flight ({@link CuratorLatch}). */
    @Override
    public ZkLatch latch(String path, String participantId, Runnable isLeader, Runnable notLeader) {
        return new CuratorLatch(client, path, participantId, isLeader, notLeader);
    }

    // ------------------------------------------------------------------ connection

    /** The session id of the handle Curator uses right now (0 when it has none yet). */
    @Override
    public long handleSession() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    @Override
    public void requireConnected(String what) {
        enter(what);
    }

    /**
     * Fails at once while the client is not connected; returns the connection the request goes out in (for
     * {@link #noteLoss}). Curator would first wait up to the connection timeout for a connection; a caller that holds
     * a lock (a commit, a refresh) or serves a polling thread must not wait on a dead connection past the session
     * timeout (I7). Callers retry at their own level.
     *
     * <p>Also refused, on the store's session: any request after one failed with a lost connection, until the next
     * connection ({@link LostConnectionGate}). A commit retried by the polling thread right after the failed one once
     * waited in the handle's queue behind a silent network cut, and the member heard of its loss at the session's
     * expiry, not at the cut (LossNoticeUnderPartitionIT, about one run in four).
     */
    private long enter(String what) {
        long connection = gate.enter();
        if (!client.getZookeeperClient().isConnected() || !handleConnected() || connection < 0) {
            throw new StoreException("ZooKeeper: " + what + " not attempted: not connected");
        }
        return connection;
    }

    /** Remembers that a request sent in {@code connection} lost its connection; returns {@code e}. */
    private <E extends Exception> E noteLoss(long connection, E e) {
        if (tracksConnections && e instanceof KeeperException.ConnectionLossException) {
            gate.lost(connection);
        }
        return e;
    }

    /**
     * The handle's own state, which moves to CONNECTING when it starts its next connection attempt, often before
     * Curator's flag hears of the loss: a request sent then would wait in the handle's queue for that attempt to time
     * out (the session timeout divided by the servers), past the moment the loss must be told (I7).
     */
    private boolean handleConnected() {
        try {
            return client.getZookeeperClient().getZooKeeper().getState().isConnected();
        } catch (Exception e) {
            return false;
        }
    }

    /** Curator's operation of a port operation: the namespace and the ACLs applied as Curator applies them. */
    public CuratorOp op(ZkOp op) {
        try {
            if (op instanceof ZkOp.Create c) {
                return client.transactionOp().create().withMode(mode(c)).forPath(c.path(), c.data());
            }
            if (op instanceof ZkOp.SetData s) {
                return client.transactionOp().setData().withVersion(s.version()).forPath(s.path(), s.data());
            }
            if (op instanceof ZkOp.Delete d) {
                return client.transactionOp().delete().withVersion(d.version()).forPath(d.path());
            }
            return client.transactionOp()
                    .check()
                    .withVersion(((ZkOp.Check) op).version())
                    .forPath(op.path());
        } catch (Exception e) {
            throw failure("prepare " + op, e); // Curator's op builders declare Exception
        }
    }

    private List<ZkResult> results(List<OpResult> results) {
        List<ZkResult> out = new ArrayList<>(results.size());
        for (OpResult r : results) {
            if (r instanceof OpResult.CreateResult c) {
                out.add(new ZkResult(relative(c.getPath()), c.getStat() == null ? null : stat(c.getStat())));
            } else if (r instanceof OpResult.SetDataResult s) {
                out.add(new ZkResult(null, stat(s.getStat())));
            } else {
                out.add(new ZkResult(null, null));
            }
        }
        return out;
    }
}

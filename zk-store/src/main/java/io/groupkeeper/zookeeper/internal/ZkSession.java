package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.spi.StoreException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The store's thin layer over one Curator client: counted round trips, one-shot watch hooks that ignore
 * connection-state pseudo events, the session ids this client has had (to recognise its own stale ephemeral
 * nodes), and translation of ZooKeeper failures into {@link StoreException}s that name the path.
 */
public final class ZkSession {

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

    /** The full path of a namespaced path, as an operator would type it in zkCli. */
    public String abs(String path) {
        String ns = client.getNamespace();
        return ns == null || ns.isEmpty() ? path : "/" + ns + path;
    }

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

    public long sessionId() {
        if (currentSession == 0) {
            refreshSession();
        }
        return currentSession;
    }

    /** Whether an ephemeral node with this owner was created by this client in an earlier session. */
    public boolean isPastSession(long ephemeralOwner) {
        return ephemeralOwner != 0 && pastSessions.contains(ephemeralOwner);
    }

    public boolean isCurrentSession(long ephemeralOwner) {
        return ephemeralOwner != 0 && ephemeralOwner == sessionId();
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

    /** Reads a node, arming {@code hook} (nullable) for its next change, creation or deletion. */
    public Optional<ZkNode> read(String path, Runnable hook) {
        long sentIn = requireConnected("read " + abs(path));
        Watcher w = hook == null ? null : watcher(hook);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                Stat stat = new Stat();
                stats.read();
                byte[] data = w == null
                        ? client.getData().storingStatIn(stat).forPath(path)
                        : client.getData().storingStatIn(stat).usingWatcher(w).forPath(path);
                return Optional.of(new ZkNode(data, stat));
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

    /**
     * Reads a node and arms {@code hook} for its next change or deletion, in one round trip; empty, with nothing
     * armed, when the node does not exist.
     */
    public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
        long sentIn = requireConnected("read " + abs(path));
        try {
            Stat stat = new Stat();
            stats.read();
            byte[] data = client.getData().storingStatIn(stat).usingWatcher(watcher(hook)).forPath(path);
            return Optional.of(new ZkNode(data, stat));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failure("read " + abs(path), noteLoss(sentIn, e));
        }
    }

    public Stat exists(String path, Watcher w) {
        long sentIn = requireConnected("check " + abs(path));
        try {
            stats.read();
            return w == null ? client.checkExists().forPath(path) : client.checkExists().usingWatcher(w).forPath(path);
        } catch (Exception e) {
            throw failure("check " + abs(path), noteLoss(sentIn, e));
        }
    }

    public List<String> children(String path, Runnable hook) {
        long sentIn = requireConnected("list " + abs(path));
        try {
            stats.read();
            return hook == null ? client.getChildren().forPath(path)
                    : client.getChildren().usingWatcher(watcher(hook)).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw failure("list " + abs(path), noteLoss(sentIn, e));
        }
    }

    /** Creates a persistent node (and missing parents) if it does not exist. */
    public void ensurePath(String path, byte[] data) {
        requireConnected("create " + abs(path));
        try {
            stats.read();
            if (client.checkExists().forPath(path) == null) {
                stats.write(1);
                client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path, data);
            }
        } catch (KeeperException.NodeExistsException e) {
            // created concurrently: fine
        } catch (Exception e) {
            throw failure("create " + abs(path), e);
        }
    }

    /** Runs a transaction. Throws the raw {@link KeeperException} so callers can inspect which operation failed. */
    public List<CuratorTransactionResult> multi(List<CuratorOp> ops) throws KeeperException {
        long sentIn = requireConnected("transaction of " + ops.size() + " operations");
        stats.transaction(ops.size());
        try {
            return client.transaction().forOperations(ops);
        } catch (KeeperException e) {
            throw noteLoss(sentIn, e);
        } catch (Exception e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
    }

    /**
     * Runs a transaction through the ZooKeeper handle of {@code session} only. A ZooKeeper handle belongs to one
     * session for its whole life; when Curator replaces an expired session it makes a new handle, and the old one can
     * never send again. So a write prepared under one session (a claim's lease) can never land under another, even if
     * the nodes it is fenced on were deleted and created again meanwhile and their versions repeat. Throws
     * {@link KeeperException.SessionExpiredException} without sending when the current handle has another session.
     */
    public List<OpResult> multiInSession(long session, List<CuratorOp> ops) throws KeeperException {
        long sentIn = requireConnected("transaction of " + ops.size() + " operations");
        ZooKeeper handle;
        try {
            handle = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
        if (session == 0 || handle.getSessionId() != session) {
            throw new KeeperException.SessionExpiredException();
        }
        stats.transaction(ops.size());
        try {
            return handle.multi(ops.stream().map(CuratorOp::get).toList());
        } catch (KeeperException e) {
            throw noteLoss(sentIn, e);
        } catch (InterruptedException e) {
            throw failure("transaction of " + ops.size() + " operations", e);
        }
    }

    /**
     * What a transaction sent in the background came back with: ZooKeeper's code and, when the server answered, every
     * operation's result.
     */
    public record TransactionResult(KeeperException.Code code, List<OpResult> results) {
        public boolean ok() {
            return code == KeeperException.Code.OK;
        }

        /** The index of the operation that made it fail, or -1 if unknown. */
        public int failedOp() {
            return ZkSession.failedOp(results);
        }
    }

    /**
     * {@link #multiInSession}, sent in the background: the future completes on ZooKeeper's event thread, or at once
     * with {@code SESSIONEXPIRED} and nothing sent when the current handle has another session. Fails (a {@link
     * StoreException}) only when nothing could be sent.
     */
    public CompletableFuture<TransactionResult> multiInSessionAsync(long session, List<CuratorOp> ops) {
        CompletableFuture<TransactionResult> done = new CompletableFuture<>();
        try {
            long sentIn = requireConnected("transaction of " + ops.size() + " operations");
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            if (session == 0 || handle.getSessionId() != session) {
                done.complete(new TransactionResult(KeeperException.Code.SESSIONEXPIRED, null));
                return done;
            }
            stats.transaction(ops.size());
            handle.multi(ops.stream().map(CuratorOp::get).toList(), (rc, path, ctx, results) -> {
                KeeperException.Code code = KeeperException.Code.get(rc);
                if (code == KeeperException.Code.CONNECTIONLOSS) {
                    noteLoss(sentIn, KeeperException.create(code));
                }
                done.complete(new TransactionResult(code, results));
            }, null);
        } catch (Exception e) {
            done.completeExceptionally(failure("transaction of " + ops.size() + " operations", e));
        }
        return done;
    }

    /**
     * {@link #readIfPresentWatching} (with {@code hook} nullable: nothing armed), sent in the background: the future
     * completes on ZooKeeper's event thread, empty when the node does not exist, exceptionally with a {@link
     * StoreException} when the read failed.
     */
    public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
        CompletableFuture<Optional<ZkNode>> done = new CompletableFuture<>();
        String full = abs(path);
        try {
            long sentIn = requireConnected("read " + full);
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            stats.read();
            handle.getData(full, hook == null ? null : watcher(hook), (rc, p, ctx, data, stat) -> {
                KeeperException.Code code = KeeperException.Code.get(rc);
                if (code == KeeperException.Code.OK) {
                    done.complete(Optional.of(new ZkNode(data, stat)));
                } else if (code == KeeperException.Code.NONODE) {
                    done.complete(Optional.empty());
                } else {
                    done.completeExceptionally(failure("read " + full, noteLoss(sentIn, KeeperException.create(code,
                            full))));
                }
            }, null);
        } catch (Exception e) {
            done.completeExceptionally(failure("read " + full, e));
        }
        return done;
    }

    /** The session id of the handle Curator uses right now (0 when it has none yet). */
    public long handleSession() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
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
    public long requireConnected(String what) {
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

    /** The index of the operation that made a transaction fail, or -1 if unknown. */
    public static int failedOp(KeeperException e) {
        return failedOp(e.getResults());
    }

    private static int failedOp(List<OpResult> results) {
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult err
                    && err.getErr() != KeeperException.Code.OK.intValue()
                    && err.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    public static StoreException failure(String what, Exception e) {
        if (e instanceof StoreException se) {
            return se;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String detail = e instanceof KeeperException ke ? ke.code() + (ke.getPath() != null ? " " + ke.getPath() : "")
                : e.toString();
        return new StoreException("ZooKeeper: " + what + " failed: " + detail, e);
    }
}

package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.spi.internal.Lifecycle;
import io.groupkeeper.zkprotocol.ZkLatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.recipes.AfterConnectionEstablished;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.LockInternalsSorter;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A participant of a leader election on Curator: the protocol of Curator's {@code LeaderLatch} (a protected ephemeral
 * sequential node {@code latch-} under the election's folder, the lowest one leads, each participant watches only its
 * predecessor; a reconnection in the same session checks again and keeps the node; leadership is given up on a
 * suspension or loss of the connection; close deletes the node with a guaranteed delete), with one difference:
 * <b>a closed latch ignores the answers to requests it sent before it closed</b>.
 *
 * <p>Why not Curator's recipe itself: Curator 5.9.0's {@code LeaderLatch}, closed while a check of its position is in
 * flight, takes the answer for a lost node of a running latch: it logs the ERROR "failed to find our node; resetting",
 * creates a new node and deletes it again (CURATOR-3: only the stray node was fixed). The check is in flight whenever
 * the participant's predecessor has just gone, which is the normal case when the members of a group close one after
 * another: a graceful shutdown of 100 members logged 19 such ERRORs. Every callback here looks at the latch's state
 * first, under the same lock as {@link #close}.
 */
final class CuratorLatch implements ZkLatch {

    private static final Logger LOG = LoggerFactory.getLogger(CuratorLatch.class);
    private static final String LOCK_NAME = "latch-";
    private static final LockInternalsSorter SORTER = StandardLockInternalsDriver::standardFixForSorting;

    private final WatcherRemoveCuratorFramework client;
    private final String folder;
    private final String id;
    private final Runnable isLeader;
    private final Runnable notLeader;
    private final ConnectionStateListener connectionListener = (c, s) -> connectionChanged(s);
    private final Object lock = new Object();

    // Guarded by lock (volatile for the lock-free reads).
    private final Lifecycle state;
    private volatile String ourPath;
    private volatile boolean leader;
    private Future<?> startTask;

    CuratorLatch(CuratorFramework client, String folder, String id, Runnable isLeader, Runnable notLeader) {
        this.client = client.newWatcherRemoveCuratorFramework();
        this.folder = folder;
        this.id = id;
        this.state = new Lifecycle("leader latch " + folder + " of " + id);
        this.isLeader = isLeader;
        this.notLeader = notLeader;
    }

    @Override
    public void start() {
        synchronized (lock) {
            state.start();
        }
        try {
            Future<?> task = AfterConnectionEstablished.execute(client, this::joinOnceConnected);
            synchronized (lock) {
                startTask = task;
            }
        } catch (Exception e) {
            throw new IllegalStateException("start leader latch " + folder + " of " + id, e);
        }
    }

    @Override
    public boolean hasLeadership() {
        return state.isStarted() && leader;
    }

    @Override
    public String ourPath() {
        return ourPath;
    }

    /** Leaves the election (idempotent): deletes the node, and a leader is told it is no longer one. */
    @Override
    public void close() {
        synchronized (lock) {
            if (state.close() != Lifecycle.State.STARTED) {
                return;
            }
            if (startTask != null) {
                startTask.cancel(true);
            }
            client.getConnectionStateListenable().removeListener(connectionListener);
            setNode(null);
            client.removeWatchers();
            setLeadership(false);
        }
    }

    private void joinOnceConnected() {
        synchronized (lock) {
            if (!state.isStarted()) {
                return;
            }
            client.getConnectionStateListenable().addListener(connectionListener);
            join();
        }
    }

    /** Under the lock, started: creates a new node (after deleting the one held, if any). */
    private void join() {
        setLeadership(false);
        setNode(null);
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .inBackground((c, event) -> created(event))
                    .forPath(ZKPaths.makePath(folder, LOCK_NAME), id.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            LOG.error("leader latch {} of {}: creating the participant node failed: {}", folder, id, e.toString());
        }
    }

    private void created(CuratorEvent event) {
        synchronized (lock) {
            if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                if (state.isStarted()) {
                    LOG.error(
                            "leader latch {} of {}: creating the participant node failed ({}); joining again on "
                                    + "reconnection",
                            folder,
                            id,
                            KeeperException.Code.get(event.getResultCode()));
                }
                return;
            }
            setNode(event.getName());
            if (!state.isStarted()) {
                setNode(null); // created after the close: deleted at once
                return;
            }
            readChildren();
        }
    }

    /** Under the lock, started. */
    private void readChildren() {
        try {
            client.getChildren().inBackground((c, event) -> childrenRead(event)).forPath(folder);
        } catch (Exception e) {
            LOG.error("leader latch {} of {}: reading the participants failed: {}", folder, id, e.toString());
        }
    }

    private void childrenRead(CuratorEvent event) {
        synchronized (lock) {
            if (!state.isStarted()) {
                return; // an answer to a request sent before the close: the latch has left
            }
            if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                join(); // the folder is gone (an ensemble rebuilt empty): join again, which creates it
            } else if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                checkPosition(event.getChildren());
            }
        }
    }

    /** Under the lock, started: leads if first, else watches its predecessor. */
    private void checkPosition(List<String> children) {
        String path = ourPath;
        List<String> sorted = LockInternals.getSortedChildren(LOCK_NAME, SORTER, children);
        int index = path == null ? -1 : sorted.indexOf(ZKPaths.getNodeFromPath(path));
        if (index < 0) {
            // While started, the node is gone only with the session that held it (expired) or by a hand delete.
            LOG.warn(
                    "leader latch {} of {}: participant node {} is gone (session expired or node deleted); joining "
                            + "the election again",
                    folder,
                    id,
                    path);
            join();
        } else if (index == 0) {
            setLeadership(true);
        } else {
            String predecessor = ZKPaths.makePath(folder, sorted.get(index - 1));
            Watcher watcher = watched -> {
                if (watched.getType() == Watcher.Event.EventType.NodeDeleted) {
                    synchronized (lock) {
                        if (state.isStarted()) {
                            readChildren();
                        }
                    }
                }
            };
            try {
                client.getData()
                        .usingWatcher(watcher)
                        .inBackground((c, event) -> {
                            if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                                synchronized (lock) {
                                    if (state.isStarted()) {
                                        readChildren(); // the predecessor went before the watch was set
                                    }
                                }
                            }
                        })
                        .forPath(predecessor);
            } catch (Exception e) {
                LOG.error("leader latch {} of {}: watching {} failed: {}", folder, id, predecessor, e.toString());
            }
        }
    }

    private void connectionChanged(ConnectionState newState) {
        synchronized (lock) {
            if (!state.isStarted()) {
                return;
            }
            switch (newState) {
                case RECONNECTED -> readChildren(); // same session: the node is still ours unless it expired
                case SUSPENDED -> {
                    if (client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED)) {
                        setLeadership(false);
                    }
                }
                case LOST -> setLeadership(false);
                default -> {}
            }
        }
    }

    /** Under the lock. Listeners only hand the news to their lanes, so they run under it, in order. */
    private void setLeadership(boolean now) {
        boolean was = leader;
        leader = now;
        if (was && !now) {
            notLeader.run();
        } else if (!was && now) {
            isLeader.run();
        }
    }

    /** Under the lock: the node held becomes {@code path}; the one held before is deleted, retried until it is gone. */
    private void setNode(String path) {
        String old = ourPath;
        ourPath = path;
        if (old != null) {
            try {
                client.delete().guaranteed().inBackground().forPath(old);
            } catch (Exception e) {
                LOG.error("leader latch {} of {}: deleting {} failed: {}", folder, id, old, e.toString());
            }
        }
    }
}

package io.groupkeeper.testkit.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.LeaderElection;
import io.groupkeeper.spi.LeadershipListener;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Leader election as Curator's {@code LeaderLatch} does it: each participant creates an ephemeral sequential node
 * {@code leader/_c_<id>-latch-NNNNNNNNNN}, the lowest sequence number leads, every other participant watches only its
 * predecessor. As with the latch under Curator's standard error policy, SUSPENDED and LOST take leadership away at
 * once, and a reconnection (same session or new) deletes the old node and queues up again. Listeners run on the
 * client's event lane.
 *
 * <p>Publishing is fenced like the ZooKeeper store's: one transaction checks this participant's latch node, writes the
 * changed targets, deletes the removed ones and sets the assignment node at the expected version.
 */
final class MemLeaderElection implements LeaderElection {

    private enum State { LATENT, STARTED, CLOSED }

    private final MemGroupStore store;
    private final MemClient zk;
    private final String participantId;
    private final LeadershipListener listener;
    private final Clock clock;
    private final String latchPrefix;
    private static final int TARGETS_PER_TRANSACTION = 2;
    private final ConnectionListener connectionListener = this::onConnection;
    // Guarded by this.
    private State state = State.LATENT;
    private String ourPath;
    private boolean leader;

    MemLeaderElection(MemGroupStore store, String participantId, LeadershipListener listener, Clock clock) {
        this.store = store;
        this.zk = store.client();
        this.participantId = participantId;
        this.listener = listener;
        this.clock = clock;
        // Curator puts a random protection id here; the participant id keeps simulations reproducible (the sequence
        // number alone orders the queue and keeps names unique).
        this.latchPrefix = Paths.leader(store.groupId()) + "/_c_" + participantId + "-latch-";
    }

    @Override
    public void start() {
        synchronized (this) {
            if (state != State.LATENT) {
                throw new IllegalStateException("election already " + state.name().toLowerCase());
            }
            state = State.STARTED;
        }
        zk.addListener(connectionListener);
        enqueue();
    }

    /** Creates our latch node and checks our place (Curator's reset()). */
    private void enqueue() {
        String created;
        try {
            zk.ensurePath(Paths.leader(store.groupId()), null);
            // Curator's protected mode: a creation whose answer was lost may have landed; a node of ours under the
            // prefix is that one, adopted instead of a second node (which would wait for the first for ever).
            created = ownNode();
            if (created == null) {
                created = zk.write(new Op.Create(latchPrefix, new Bodies.Latch(participantId), true, true)).path();
            }
        } catch (KeeperFailure e) {
            throw MemClient.failure("join leader election of " + store.groupId(), e);
        }
        boolean stale;
        synchronized (this) {
            stale = state != State.STARTED;
            if (!stale) {
                ourPath = created;
            }
        }
        if (stale) {
            deleteQuietly(created);
            return;
        }
        checkLeadership();
    }

    /** This participant's latch node in the current session, if one exists (a creation whose answer was lost). */
    private String ownNode() {
        String folder = Paths.leader(store.groupId());
        String prefix = Paths.name(latchPrefix);
        for (String child : zk.children(folder, null)) {
            if (child.startsWith(prefix)) {
                io.groupkeeper.testkit.NodeStat stat = zk.exists(folder + "/" + child, null);
                if (stat != null && stat.ephemeralOwner() == zk.sessionId()) {
                    return folder + "/" + child;
                }
            }
        }
        return null;
    }

    private void checkLeadership() {
        String path;
        synchronized (this) {
            if (state != State.STARTED || ourPath == null) {
                return;
            }
            path = ourPath;
        }
        String folder = Paths.leader(store.groupId());
        List<String> sorted = new ArrayList<>(zk.children(folder, null));
        sorted.sort(Comparator.comparing(MemLeaderElection::sequence));
        int ours = sorted.indexOf(Paths.name(path));
        if (ours < 0) {
            enqueue(); // our node is gone (deleted by hand): queue up again
            return;
        }
        if (ours == 0) {
            setLeadership(true);
            return;
        }
        String predecessor = folder + "/" + sorted.get(ours - 1);
        if (zk.exists(predecessor, zk.watcher(this::onPredecessorChange)) == null) {
            checkLeadership();
        }
    }

    private void onPredecessorChange() {
        try {
            checkLeadership();
        } catch (StoreException e) {
            // disconnected: the reconnection queues up again
        }
    }

    private static String sequence(String name) {
        int dash = name.lastIndexOf('-');
        return dash < 0 ? name : name.substring(dash + 1);
    }

    private void setLeadership(boolean now) {
        boolean changed;
        synchronized (this) {
            changed = leader != now && (state == State.STARTED || !now);
            if (changed) {
                leader = now;
            }
        }
        if (changed) {
            zk.onLane(now ? listener::isLeader : listener::notLeader);
        }
    }

    private void onConnection(ConnectionEvent event) {
        switch (event) {
            case SUSPENDED, LOST -> setLeadership(false);
            case RECONNECTED, RECONNECTED_NEW_SESSION -> {
                String old;
                synchronized (this) {
                    if (state != State.STARTED) {
                        return;
                    }
                    old = ourPath;
                    ourPath = null;
                }
                try {
                    if (old != null) {
                        deleteQuietly(old);
                    }
                    enqueue();
                } catch (StoreException e) {
                    // disconnected again: the next reconnection tries again
                }
            }
            default -> {
            }
        }
    }

    private void deleteQuietly(String path) {
        try {
            zk.write(new Op.Delete(path, -1));
        } catch (KeeperFailure | StoreException e) {
            // gone already, or not connected: its session's end removes it
        }
    }

    @Override
    public synchronized boolean isLeader() {
        return leader;
    }

    @Override
    public long publish(long expectedVersion, long generation, Map<String, ? extends Set<TopicPartition>> changedTargets,
                        Set<String> removedMembers, SortedSet<String> staticMembers) {
        String group = store.groupId();
        String latchPath;
        synchronized (this) {
            latchPath = ourPath;
            if (!leader || latchPath == null) {
                throw new StoreException("participant " + participantId + " is not the leader of group " + group);
            }
        }
        // Split like the ZooKeeper store's publish (there by size, here two targets a transaction, so that a publish
        // cut short by a failure leaves a generation written in part, as it can on a server): every transaction checks
        // the latch node and sets the assignment node at the version the previous one left.
        List<List<Op>> chunks = new ArrayList<>();
        List<Op> chunk = new ArrayList<>();
        for (Map.Entry<String, ? extends Set<TopicPartition>> e : changedTargets.entrySet()) {
            String path = Paths.target(group, e.getKey());
            Bodies.Target body = new Bodies.Target(generation, new TreeSet<>(e.getValue()),
                    staticMembers.contains(e.getKey()));
            chunk.add(zk.exists(path, null) != null ? new Op.SetData(path, body, -1) : Op.Create.persistent(path, body));
            if (chunk.size() == TARGETS_PER_TRANSACTION) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
            }
        }
        for (String removed : removedMembers) {
            chunk.add(new Op.Delete(Paths.target(group, removed), -1));
        }
        chunks.add(chunk);
        Bodies.AssignmentHead head = new Bodies.AssignmentHead(generation, Optional.of(participantId), clock.instant(),
                changedTargets.size());
        int version = (int) expectedVersion;
        try {
            for (int i = 0; i < chunks.size(); i++) {
                List<Op> c = chunks.get(i);
                if (i == 1 && zk.takePublishCut()) {
                    throw zk.connectionLoss(); // the leader loses its connection between its transactions
                }
                List<Op> ops = new ArrayList<>();
                ops.add(new Op.Check(latchPath, -1));
                ops.addAll(c);
                ops.add(new Op.SetData(Paths.assignment(group), head, version));
                List<Op.Result> results = zk.multi(ops);
                version = results.get(results.size() - 1).stat().version();
            }
            return version;
        } catch (KeeperFailure e) {
            if (e.code() == Code.CONNECTIONLOSS && e.failedOp() < 0) {
                throw MemClient.failure("publish generation " + generation + " of " + group, e);
            }
            throw new StoreException("publish of generation " + generation + " for group " + group + " refused ("
                    + e.code() + " at operation " + e.failedOp() + "): leadership lost or another leader published", e);
        }
    }

    @Override
    public void close() {
        String path;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            path = ourPath;
            ourPath = null;
        }
        zk.removeListener(connectionListener);
        if (path == null) {
            // A creation whose answer was lost, not adopted yet: Curator finds and deletes such a protected node.
            try {
                path = ownNode();
            } catch (RuntimeException e) {
                // not connected: the guaranteed delete below cannot know the name either; the session's end removes it
            }
        }
        if (path != null) {
            deleteGuaranteed(path, zk.sessionId());
        }
        setLeadership(false);
    }

    /**
     * Curator's LeaderLatch closes with a guaranteed delete: one that fails for connection reasons is retried once the
     * connection is back in the same session (a new session has removed the node already).
     */
    private void deleteGuaranteed(String path, long session) {
        try {
            zk.write(new Op.Delete(path, -1));
            return;
        } catch (KeeperFailure e) {
            if (e.code() != Code.CONNECTIONLOSS) {
                return; // gone already, or the session is over
            }
        } catch (StoreException e) {
            // not connected: retried below
        }
        if (zk.sessionId() != session) {
            return;
        }
        if (zk.isConnected()) {
            deleteGuaranteed(path, session);
            return;
        }
        ConnectionListener[] retry = new ConnectionListener[1];
        retry[0] = event -> {
            if (event == ConnectionEvent.RECONNECTED || event == ConnectionEvent.RECONNECTED_NEW_SESSION
                    || event == ConnectionEvent.LOST) {
                zk.removeListener(retry[0]);
                deleteGuaranteed(path, session);
            }
        };
        zk.addListener(retry[0]);
    }
}

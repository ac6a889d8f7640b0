package io.groupkeeper.testkit.internal;

import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkLatch;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkStat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The model's leader latch, as Curator's {@code LeaderLatch} does it: each participant creates an ephemeral sequential
 * node {@code <folder>/_c_<id>-latch-NNNNNNNNNN} (body: the participant id), the lowest sequence number leads, every
 * other participant watches only its predecessor. As with the latch under Curator's standard error policy, SUSPENDED
 * and LOST take leadership away at once; a reconnection looks at the folder again and queues up again only if our node
 * is gone (a new session). Leadership is told on the client's event lane.
 */
final class MemLatch implements ZkLatch {

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final MemClient zk;
    private final String folder;
    private final String latchPrefix;
    private final byte[] body;
    private final Runnable isLeader;
    private final Runnable notLeader;
    private final ConnectionListener connectionListener = this::onConnection;
    // Guarded by this.
    private State state = State.LATENT;
    private String ourPath;
    private boolean leader;

    MemLatch(MemClient zk, String folder, String participantId, Runnable isLeader, Runnable notLeader) {
        this.zk = zk;
        this.folder = folder;
        // Curator puts a random protection id here; the participant id keeps simulations reproducible (the sequence
        // number alone orders the queue and keeps names unique).
        this.latchPrefix = folder + "/_c_" + participantId + "-latch-";
        this.body = participantId.getBytes(StandardCharsets.UTF_8);
        this.isLeader = isLeader;
        this.notLeader = notLeader;
    }

    @Override
    public void start() {
        synchronized (this) {
            if (state != State.LATENT) {
                throw new IllegalStateException("latch already " + state.name().toLowerCase());
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
            zk.ensurePath(folder, null);
            // Curator's protected mode: a creation whose answer was lost may have landed; a node of ours under the
            // prefix is that one, adopted instead of a second node (which would wait for the first for ever).
            created = ownNode();
            if (created == null) {
                created =
                        zk.write(new ZkOp.Create(latchPrefix, body, true, true)).path();
            }
        } catch (ZkFailure e) {
            throw ZkFailure.toStore("join leader election under " + zk.abs(folder), e);
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
        String prefix = TreePaths.name(latchPrefix);
        for (String child : zk.children(folder, null)) {
            if (child.startsWith(prefix)) {
                Optional<ZkStat> stat = zk.exists(folder + "/" + child, null);
                if (stat.isPresent() && stat.get().ephemeralOwner() == zk.sessionId()) {
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
        List<String> sorted = new ArrayList<>(zk.children(folder, null));
        sorted.sort(Comparator.comparing(MemLatch::sequence));
        int ours = sorted.indexOf(TreePaths.name(path));
        if (ours < 0) {
            enqueue(); // our node is gone (deleted by hand): queue up again
            return;
        }
        if (ours == 0) {
            setLeadership(true);
            return;
        }
        String predecessor = folder + "/" + sorted.get(ours - 1);
        if (zk.exists(predecessor, this::onPredecessorChange).isEmpty()) {
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
            zk.onLane(now ? isLeader : notLeader);
        }
    }

    private void onConnection(ConnectionEvent event) {
        switch (event) {
            case SUSPENDED, LOST -> setLeadership(false);
            case RECONNECTED, RECONNECTED_NEW_SESSION -> {
                // Curator 5.9.0's LeaderLatch.handleStateChange(RECONNECTED) only calls getChildren(): it keeps its
                // node's name, and checkLeadership() queues up again (reset()) only if that node is gone (a new
                // session). Clearing the name here let close() leave the node in a session that lives on (seed 4756).
                // A creation that failed while cut off is still retried by Curator (its protected create finds a
                // node that landed): queue up when we hold no node yet.
                // A new session's old node is no longer ours to wait on: delete it and queue up again.
                String old;
                synchronized (this) {
                    old = ourPath;
                    if (event == ConnectionEvent.RECONNECTED_NEW_SESSION) {
                        ourPath = null;
                    }
                }
                try {
                    if (old != null && event == ConnectionEvent.RECONNECTED) {
                        checkLeadership();
                    } else {
                        if (old != null) {
                            deleteQuietly(old);
                        }
                        enqueue();
                    }
                } catch (StoreException e) {
                    // disconnected again: the next reconnection looks again
                }
            }
            default -> {}
        }
    }

    private void deleteQuietly(String path) {
        try {
            zk.write(ZkOp.delete(path, -1));
        } catch (ZkFailure | StoreException e) {
            // gone already, or not connected: its session's end removes it
        }
    }

    @Override
    public synchronized boolean hasLeadership() {
        return leader;
    }

    @Override
    public synchronized String ourPath() {
        return ourPath;
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
     * connection is back in the same session (a new session has removed the node already). Without it a member that
     * left while its writes failed kept leadership for as long as a keeper shared with others lived.
     */
    private void deleteGuaranteed(String path, long session) {
        try {
            zk.write(ZkOp.delete(path, -1));
            return;
        } catch (ZkFailure e) {
            if (e.code() != ZkCode.CONNECTIONLOSS) {
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
            if (event == ConnectionEvent.RECONNECTED
                    || event == ConnectionEvent.RECONNECTED_NEW_SESSION
                    || event == ConnectionEvent.LOST) {
                zk.removeListener(retry[0]);
                deleteGuaranteed(path, session);
            }
        };
        zk.addListener(retry[0]);
    }
}

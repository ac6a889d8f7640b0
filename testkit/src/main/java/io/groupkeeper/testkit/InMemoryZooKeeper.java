package io.groupkeeper.testkit;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.testkit.internal.Ensemble;
import io.groupkeeper.testkit.internal.KeeperFailure;
import io.groupkeeper.testkit.internal.Op;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;

/**
 * A model of a ZooKeeper ensemble in memory, for tests and simulations that need ZooKeeper's semantics without a
 * server. Share one instance between several {@link InMemoryCoordinationStore}s (each is one client with one session)
 * as processes share an ensemble.
 *
 * <p>What is modelled: a tree of nodes with data, {@code version} (restarting at 0 when a node is deleted and created
 * again), {@code cversion}, {@code czxid}/{@code mzxid} from one global zxid counter and an ephemeral owner; sessions
 * with a timeout that expire on demand ({@link #expireSession}) or, while their client is disconnected, once the
 * timeout has passed on the injected {@link Clock} (checked at every operation and by {@link #expireDueSessions()});
 * expiry deletes the session's ephemeral nodes and fires the watches on them; atomic multi-operation transactions
 * (check / create / setData / delete with versions) that report the operation that failed; one-shot data, exists and
 * child watches and persistent recursive watches, delivered per client in order. Not modelled: ACLs, quotas, a quorum
 * (the model is one linearizable server), {@code jute.maxbuffer}.
 *
 * <p>Node data is bytes, as the store's codec ({@code NodeCodec}) wrote them. The operator methods below are what
 * someone at {@code zkCli} would do: they act at once, on any version, outside any session. Paths are absolute (they
 * include the store's namespace, {@code /groupkeeper} by default), as an operator types them.
 */
public final class InMemoryZooKeeper {

    private final Ensemble ensemble;

    /** An ensemble on the system clock. */
    public InMemoryZooKeeper() {
        this(Clock.systemUTC());
    }

    /** An ensemble whose session timeouts run on {@code clock}. */
    public InMemoryZooKeeper(Clock clock) {
        this.ensemble = new Ensemble(clock);
    }

    /**
     * Clients of this ensemble read from {@code followers} replicas that apply transactions late: at most {@code
     * maxLag} transactions behind, never behind what the reading client wrote, was notified of or synced to (a client
     * always sees its own writes and never goes backwards), by steps drawn from {@code random}; a watch set on a stale
     * view fires at once if the node already changed. Call it before any store starts.
     */
    public InMemoryZooKeeper lagFollowers(int followers, Random random, int maxLag) {
        ensemble.lagFollowers(followers, random, maxLag);
        return this;
    }

    /**
     * The threads of a simulation that steps every thread itself: during a silent cut that no client has noticed yet,
     * a request from one of them hangs (that thread waits, the rest of the world runs on) until the network returns
     * (then it is sent and answered) or the cut is noticed (then it fails with a lost connection; a write may have
     * landed all the same, {@link SimulatedThreads#landsAnyway}). A background request
     * returns a future that completes then, on the client's event lane. Without it such requests fail at once. Call it
     * before any store starts.
     */
    public InMemoryZooKeeper simulatedThreads(SimulatedThreads threads) {
        ensemble.threads(threads);
        return this;
    }

    Ensemble ensemble() {
        return ensemble;
    }

    /** The clock session timeouts run on. */
    public Clock clock() {
        return ensemble.clock();
    }

    // ------------------------------------------------------------------ sessions

    /** Expires a session now, as the server does after a long network partition. Unknown ids are ignored. */
    public void expireSession(long sessionId) {
        ensemble.expire(sessionId);
    }

    /** Expires every session whose client has been disconnected for longer than its timeout, on the clock. */
    public void expireDueSessions() {
        ensemble.expireDueSessions();
    }

    /** Whether the session exists (was opened and has not expired or been closed). */
    public boolean isSessionAlive(long sessionId) {
        return ensemble.isAlive(sessionId);
    }

    /** The id of the last transaction applied. */
    public long lastZxid() {
        return ensemble.lastZxid();
    }

    // ------------------------------------------------------------------ operator's reads

    public Optional<NodeStat> stat(String path) {
        try {
            return Optional.ofNullable(ensemble.exists(0, path, null));
        } catch (KeeperFailure e) {
            throw new IllegalStateException(e);
        }
    }

    public boolean exists(String path) {
        return stat(path).isPresent();
    }

    /** The children's names, sorted; empty if the node does not exist. */
    public List<String> children(String path) {
        try {
            return ensemble.getChildren(0, path, null);
        } catch (KeeperFailure e) {
            return List.of();
        }
    }

    /** The node's data as an operator's {@code get} shows it; empty if the node does not exist. */
    public Optional<byte[]> data(String path) {
        try {
            return Optional.of(ensemble.getData(0, path, null).data());
        } catch (KeeperFailure e) {
            return Optional.empty();
        }
    }

    // ------------------------------------------------------------------ operator's writes

    /** {@code set <path> <offset>} on an offset node (created if missing): a valid offset, as zkCli would write it. */
    public void setOffset(String path, long offset) {
        put(path, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@code set <path> <text>} (created if missing): whatever an operator types, e.g. an offset node's body with a
     * field this version does not know.
     */
    public void setData(String path, String text) {
        put(path, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes data that no store can parse (a typo, foreign JSON) into {@code path}, creating the node if missing.
     * Whatever {@code text} says, the node reads as corrupt.
     */
    public void writeGarbage(String path, String text) {
        put(path, ("garbage: " + text).getBytes(StandardCharsets.UTF_8));
    }

    /** Writes a member's target node by hand (created if missing), e.g. one that overlaps another target. */
    public void setTarget(String path, long generation, Collection<TopicPartition> partitions) {
        put(path, NodeCodec.target(new NodeCodec.TargetBody(generation, new TreeSet<>(partitions), false)));
    }

    /** Creates an empty persistent node; its parent must exist. */
    public void create(String path) {
        apply(Op.Create.persistent(path, null));
    }

    /** Deletes a node at any version; fails if it has children or does not exist (as zkCli's {@code delete}). */
    public void delete(String path) {
        apply(new Op.Delete(path, -1));
    }

    private void put(String path, byte[] data) {
        if (exists(path)) {
            apply(new Op.SetData(path, data, -1));
        } else {
            apply(Op.Create.persistent(path, data));
        }
    }

    private void apply(Op op) {
        try {
            ensemble.multi(0, List.of(op));
        } catch (KeeperFailure e) {
            throw new IllegalStateException("in-memory ZooKeeper: " + e.code() + " " + op.path(), e);
        }
    }
}

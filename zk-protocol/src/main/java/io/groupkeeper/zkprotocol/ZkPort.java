package io.groupkeeper.zkprotocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What the store needs from one ZooKeeper client holding one session at a time: reads, watches, transactions in a
 * named session, {@code sync}, session identity and leader election. The store ({@code zkprotocol.internal}) is written
 * once against it; zk-store implements it on Curator, testkit on its model of ZooKeeper.
 *
 * <p>Paths are relative to the client's namespace ({@link #abs} gives what an operator types in zkCli). Hooks are
 * one-shot watches: a hook runs at most once, at the node's next change, creation or deletion (connection pseudo
 * events never run it). Every round trip is counted in {@link #stats()}.
 *
 * <p>Failures: the synchronous reads throw {@code StoreException} naming the path; writes throw {@link ZkFailure}
 * (its code and the failed operation's index) where the store inspects the outcome. A request is refused at once,
 * without being sent, while the client is not connected.
 */
public interface ZkPort {

    /** What a transaction sent in the background came back with: the code and, when answered, every result. */
    record Transaction(ZkCode code, int failedOp, List<ZkResult> results) {
        public boolean ok() {
            return code == ZkCode.OK;
        }
    }

    /** The most one transaction may cost by default: below ZooKeeper's default {@code jute.maxbuffer} of 1 MiB. */
    long DEFAULT_TRANSACTION_LIMIT = 900 * 1024;

    /** The most one transaction of the store may cost ({@link #sizeOf}); larger writes are split by request. */
    default long transactionLimit() {
        return DEFAULT_TRANSACTION_LIMIT;
    }

    /** The full path of a namespaced path, as an operator would type it in zkCli. */
    String abs(String path);

    ZkStats stats();

    // ------------------------------------------------------------------ session identity

    /** The session this client holds (as last seen). */
    long sessionId();

    /** The session of the handle requests go out through now; 0 when there is none. */
    long handleSession();

    /** Whether an ephemeral node with this owner was created by this client in an earlier session. */
    boolean isPastSession(long ephemeralOwner);

    boolean isCurrentSession(long ephemeralOwner);

    boolean isConnected();

    /** Fails at once with a {@code StoreException} while requests cannot go out; see the implementations. */
    void requireConnected(String what);

    // ------------------------------------------------------------------ reads

    /** Reads a node, arming {@code hook} (nullable) for its next change, creation or deletion. */
    Optional<ZkNode> read(String path, Runnable hook);

    /** Reads a node and arms {@code hook} for its next change or deletion; empty, nothing armed, when missing. */
    Optional<ZkNode> readIfPresentWatching(String path, Runnable hook);

    /**
     * {@link #readIfPresentWatching} sent in the background ({@code hook} nullable): empty when the node does not
     * exist, exceptionally with a {@code StoreException} when the read failed.
     */
    CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook);

    Optional<ZkStat> exists(String path, Runnable hook);

    /** The children's names; empty when the node does not exist. */
    List<String> children(String path, Runnable hook);

    /** {@link #children} sent in the background: the names, or exceptionally the failure (NONODE included). */
    CompletableFuture<List<String>> childrenAsync(String path);

    /**
     * Waits until the server this client reads from has applied every write committed before the call, so the next
     * read of {@code path} sees them (ZooKeeper's {@code sync}); a linearizable model may do nothing.
     */
    void sync(String path);

    // ------------------------------------------------------------------ many reads at once (the admin's)

    /**
     * The data of each of {@code paths}, in their order, without a watch: empty for a node that does not exist. A
     * client may answer many in one round trip (ZooKeeper 3.6's read-only {@code multi}, in batches); by default one
     * {@link #read} each, which is right for a model that answers every request at once.
     *
     * @throws ZkFailure with {@link ZkCode#NOAUTH} and the path when a node's ACL refuses the read (other failures are
     *                   a {@code StoreException}, as for every read)
     */
    default Map<String, Optional<ZkNode>> readAll(List<String> paths) throws ZkFailure {
        Map<String, Optional<ZkNode>> out = new LinkedHashMap<>();
        for (String path : paths) {
            out.put(path, read(path, null));
        }
        return out;
    }

    /**
     * The children of each of {@code paths}, in their order, each list sorted: empty for a node that does not exist
     * (an existing node without children has an empty list). As {@link #readAll}: by default one request or two each.
     */
    default Map<String, Optional<List<String>>> childrenAll(List<String> paths) throws ZkFailure {
        Map<String, Optional<List<String>>> out = new LinkedHashMap<>();
        for (String path : paths) {
            List<String> names = new ArrayList<>(children(path, null));
            if (names.isEmpty() && exists(path, null).isEmpty()) {
                out.put(path, Optional.empty());
            } else {
                Collections.sort(names);
                out.put(path, Optional.of(names));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ writes

    /** Creates a persistent node (and missing parents) if it does not exist. */
    void ensurePath(String path, byte[] data);

    /** One write outside a transaction (create, set or delete). */
    ZkResult write(ZkOp op) throws ZkFailure;

    /** Creates a persistent node and its missing parents (empty). */
    ZkResult createWithParents(String path, byte[] data) throws ZkFailure;

    /** Runs a transaction through whatever session the client holds. */
    List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure;

    /**
     * Runs a transaction through the handle of {@code session} only: SESSIONEXPIRED, without sending, when the client
     * holds another session now. A write prepared under one session can never land under another.
     */
    List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure;

    /**
     * {@link #multiInSession} in the background: SESSIONEXPIRED at once, nothing sent, in another session; fails (a
     * {@code StoreException}) only when nothing could be sent. By default answered at once, in the caller's thread, by
     * {@link #multiInSession} (right for a model that answers every request at once).
     */
    default CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
        try {
            return CompletableFuture.completedFuture(new Transaction(ZkCode.OK, -1, multiInSession(session, ops)));
        } catch (ZkFailure e) {
            return CompletableFuture.completedFuture(new Transaction(e.code(), e.failedOp(), null));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** What {@code op} costs in a transaction: its multi header and its request record as ZooKeeper serializes it. */
    long sizeOf(ZkOp op);

    // ------------------------------------------------------------------ persistent watches

    /**
     * Adds a persistent watch ({@code recursive}: on the whole subtree) calling {@code watcher} with node events and
     * with connection events. Throws {@link ZkFailure} with {@link ZkCode#UNIMPLEMENTED} or {@link
     * ZkCode#MARSHALLINGERROR} when the server refuses persistent watches; a {@code StoreException} on other failures.
     */
    void addPersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) throws ZkFailure;

    /** Removes this client's persistent watches of the kind on {@code path}, in the background, quietly. */
    void removePersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher);

    // ------------------------------------------------------------------ leader election

    /** A participant of the election under {@code path}, named {@code participantId} (the body of its node). */
    ZkLatch latch(String path, String participantId, Runnable isLeader, Runnable notLeader);
}

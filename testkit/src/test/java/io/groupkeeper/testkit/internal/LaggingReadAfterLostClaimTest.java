package io.groupkeeper.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.testkit.ForwardingZkPort;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.ZkStat;
import io.groupkeeper.zkprotocol.internal.ZkGroupStore;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, finding 3: a claim's transaction lands but its answer is lost; the client reconnects, in the same session,
 * to a server that has not applied it yet. The shipped store ({@link ZkGroupStore}) must not decide "not held" from a
 * read there: it syncs first. The model is one linearizable server, so the follower's lag is a decorator of the port
 * ({@link LaggingPort}): after the reconnection, reads of the owner node find nothing until a {@code sync}.
 */
class LaggingReadAfterLostClaimTest {

    private static final String GROUP = "g";
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final MemClient client = new MemClient(
            new Ensemble(Clock.systemUTC()),
            "groupkeeper",
            Duration.ofSeconds(10),
            new EventLane(Runnable::run),
            900 * 1024);
    private final LaggingPort port = new LaggingPort(client);
    private final ZkGroupStore store = new ZkGroupStore(port, GROUP, Clock.systemUTC());

    @Test
    void aClaimWhoseAnswerWasLostIsJudgedAfterASync() {
        client.start();
        store.ensureGroup("sticky");
        long session = port.handleSession();
        port.loseTheNextAnswer();
        assertThatThrownBy(() -> store.claim(TP, "m1", 1, () -> {})).isInstanceOf(StoreException.class);
        assertThat(client.exists(ZkPaths.owner(GROUP, TP), null))
                .as("the claim landed")
                .isPresent();

        port.reconnectToALaggingServer(ZkPaths.owner(GROUP, TP));
        OptionalLong owned = store.ownedVersion(TP, "m1", session);
        assertThat(owned)
                .as("held: the owner node of the lost answer's claim, seen after a sync")
                .isPresent();
        assertThat(port.syncs).isEqualTo(1);
        assertThat(store.readIfOwned(TP, "m1", session))
                .as("the doubt is settled once")
                .isPresent();
        assertThat(port.syncs).isEqualTo(1);
    }

    /**
     * The claim went out in the client's new session while the member still judges in its old one (the member hears of
     * a reconnection after the handle moved): "not held" in the old session is right, but the owner node the lost
     * answer's claim left in the new one would block the next owner for that session's life. It is removed.
     */
    @Test
    void aClaimWhoseAnswerWasLostInASessionTheMemberDoesNotCountYetIsRemovedWhenJudged() {
        client.start();
        store.ensureGroup("sticky");
        long newSession = port.handleSession();
        long oldSession = newSession - 1;
        port.loseTheNextAnswer();
        assertThatThrownBy(() -> store.claim(TP, "m1", 1, () -> {})).isInstanceOf(StoreException.class);
        assertThat(client.exists(ZkPaths.owner(GROUP, TP), null))
                .as("the claim landed")
                .isPresent();

        port.reconnectToALaggingServer(ZkPaths.owner(GROUP, TP));
        assertThat(store.ownedVersion(TP, "m1", oldSession))
                .as("not held in the session the member counts")
                .isEmpty();
        assertThat(client.exists(ZkPaths.owner(GROUP, TP), null))
                .as("the landed claim's owner node removed")
                .isEmpty();
        assertThat(port.syncs).isEqualTo(1);
        assertThat(store.claim(TP, "m2", 2, () -> {}))
                .as("the next owner is not blocked")
                .isInstanceOf(ClaimResult.Claimed.class);
        assertThat(store.readIfOwned(TP, "m1", oldSession))
                .as("the doubt is settled once")
                .isEmpty();
        assertThat(port.syncs).isEqualTo(1);
    }

    /**
     * The same, racing the member's next claim of the partition in the new session (the reconciler's thread, while a
     * commit thread judges in the old session): the undo has read the fence when the claim re-confirms the node and
     * moves the fence. The undo's delete, fenced on the version it read, fails, and the claim's node stays.
     */
    @Test
    void anUndoThatMeetsTheMembersNextClaimLeavesThatClaimsNode() {
        client.start();
        store.ensureGroup("sticky");
        long newSession = port.handleSession();
        port.loseTheNextAnswer();
        assertThatThrownBy(() -> store.claim(TP, "m1", 1, () -> {})).isInstanceOf(StoreException.class);
        port.reconnectToALaggingServer(ZkPaths.owner(GROUP, TP));
        int fenceBefore =
                client.exists(ZkPaths.fence(GROUP, TP), null).orElseThrow().version();
        ClaimResult[] reclaimed = new ClaimResult[1];
        port.beforeTheNextDelete(() -> reclaimed[0] = store.claim(TP, "m1", 2, () -> {}));

        assertThat(store.ownedVersion(TP, "m1", newSession - 1)).isEmpty();
        assertThat(reclaimed[0])
                .as("the claim ran between the undo's reads and its delete")
                .isInstanceOf(ClaimResult.Claimed.class);
        assertThat(client.exists(ZkPaths.fence(GROUP, TP), null).orElseThrow().version())
                .as("the re-confirmation moved the fence")
                .isGreaterThan(fenceBefore);
        assertThat(client.exists(ZkPaths.owner(GROUP, TP), null))
                .as("the claim's node stays")
                .isPresent();
        assertThat(store.ownedVersion(TP, "m1", newSession))
                .as("held in the session the claim counts")
                .isPresent();
    }

    @Test
    void noSyncWithoutDoubt() {
        client.start();
        store.ensureGroup("sticky");
        long session = port.handleSession();
        assertThat(store.claim(TP, "m1", 1, () -> {})).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(store.ownedVersion(TP, "m1", session)).isPresent();
        assertThat(store.readIfOwned(TP, "m1", session)).isPresent();
        assertThat(port.syncs)
                .as("round trips unchanged when nothing is in doubt")
                .isZero();
    }

    /** The model's port, with a lost answer, a closed gate until the reconnection, and a server that lags behind. */
    private static final class LaggingPort extends ForwardingZkPort {
        private boolean loseAnswer;
        private boolean disconnected;
        private final Set<String> lagging = new HashSet<>();
        private Runnable beforeDelete;
        int syncs;

        LaggingPort(MemClient zk) {
            super(zk);
        }

        /** Runs {@code action} once, just before the next transaction that deletes a node is sent. */
        void beforeTheNextDelete(Runnable action) {
            beforeDelete = action;
        }

        void loseTheNextAnswer() {
            loseAnswer = true;
        }

        void reconnectToALaggingServer(String path) {
            disconnected = false;
            lagging.add(path);
        }

        private boolean lags(String path) {
            return lagging.contains(path);
        }

        @Override
        public boolean isConnected() {
            return !disconnected && delegate.isConnected();
        }

        @Override
        public void requireConnected(String what) {
            if (disconnected) {
                throw new StoreException("test: " + what + " not attempted: not connected");
            }
            delegate.requireConnected(what);
        }

        @Override
        public Optional<ZkNode> read(String path, Runnable hook) {
            requireConnected("read " + path);
            return lags(path) ? Optional.empty() : delegate.read(path, hook);
        }

        @Override
        public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
            requireConnected("read " + path);
            return lags(path) ? Optional.empty() : delegate.readIfPresentWatching(path, hook);
        }

        @Override
        public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
            return lags(path) ? CompletableFuture.completedFuture(Optional.empty()) : delegate.readAsync(path, hook);
        }

        @Override
        public Optional<ZkStat> exists(String path, Runnable hook) {
            requireConnected("check " + path);
            return lags(path) ? Optional.empty() : delegate.exists(path, hook);
        }

        @Override
        public List<String> children(String path, Runnable hook) {
            requireConnected("list " + path);
            return delegate.children(path, hook);
        }

        @Override
        public void sync(String path) {
            requireConnected("sync " + path);
            syncs++;
            lagging.clear(); // the server caught up with the leader
            delegate.sync(path);
        }

        @Override
        public void ensurePath(String path, byte[] data) {
            requireConnected("create " + path);
            delegate.ensurePath(path, data);
        }

        @Override
        public ZkResult write(ZkOp op) throws ZkFailure {
            requireConnected("write " + op.path());
            return delegate.write(op);
        }

        @Override
        public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
            requireConnected("transaction");
            return delegate.multi(ops);
        }

        @Override
        public List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure {
            requireConnected("transaction");
            Runnable before = beforeDelete;
            if (before != null && ops.stream().anyMatch(op -> op instanceof ZkOp.Delete)) {
                beforeDelete = null;
                before.run();
            }
            List<ZkResult> results = delegate.multiInSession(session, ops);
            if (loseAnswer) {
                loseAnswer = false;
                disconnected = true; // as zk-store's gate: nothing goes out until the next connection
                throw new ZkFailure(ZkCode.CONNECTIONLOSS, null);
            }
            return results;
        }

        @Override
        public CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
            try {
                return CompletableFuture.completedFuture(new Transaction(ZkCode.OK, -1, multiInSession(session, ops)));
            } catch (ZkFailure e) {
                return CompletableFuture.completedFuture(new Transaction(e.code(), e.failedOp(), null));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }
}

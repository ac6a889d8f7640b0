package io.groupkeeper.testkit;

import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.testkit.internal.EventLane;
import io.groupkeeper.testkit.internal.MemClient;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.internal.ZkGroupStore;
import io.groupkeeper.zkprotocol.internal.ZkTopicRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

/**
 * A {@link CoordinationStore} on an {@link InMemoryZooKeeper}: the ZooKeeper store itself (zk-protocol's, the code
 * that ships in zk-store) on a model of ZooKeeper instead of a server. One store is one client holding one session at a time,
 * like one Curator client; several stores on one {@code InMemoryZooKeeper} are several processes.
 *
 * <pre>{@code
 * InMemoryZooKeeper zk = new InMemoryZooKeeper();
 * GroupKeeper keeper = GroupKeeper.builder().store(new InMemoryCoordinationStore(zk)).build().start();
 * }</pre>
 *
 * <p>Events: watch notifications, change hooks, leadership and connection listeners of this store run in order on
 * its event executor, one event per task. By default that is one daemon thread per store (started by {@link #start()},
 * stopped by {@link #close()}), as ZooKeeper's client has one event thread; a simulation passes its own executor to
 * interleave the events of several stores deterministically.
 *
 * <p>Faults for tests: {@link #disconnect()} / {@link #reconnect()} (SUSPENDED, then RECONNECTED if the session
 * survived, or LOST and RECONNECTED_NEW_SESSION if its timeout passed on the clock meanwhile); {@link
 * #expireSession()} (the server ends the session: SUSPENDED, LOST, RECONNECTED_NEW_SESSION); {@link #failNextWrites}
 * (writes that fail with a lost connection, applied or not) and {@link #failNextWritesAndExpire} (the same, the
 * session expiring while the first one's outcome is in doubt). While disconnected every call fails with a {@code
 * StoreException}.
 */
public final class InMemoryCoordinationStore implements CoordinationStore {

    /** The default of {@link Builder#maxTransactionBytes}. */
    public static final long DEFAULT_MAX_TRANSACTION_BYTES = 600;

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    static {
        GroupStores.register(InMemoryCoordinationStore.class, InMemoryCoordinationStore::groupStore);
    }

    private final InMemoryZooKeeper zooKeeper;
    private final Clock clock;
    private final ExecutorService ownedExecutor;
    private final MemClient client;
    /** What the store's requests go through: the client, or an instrument around it. */
    private final ZkPort port;

    private final Duration sessionTimeout;
    private final ZkTopicRegistry topics;
    private final Map<String, ZkGroupStore> groups = new ConcurrentHashMap<>();
    private State state = State.LATENT;

    /** A store on {@code zooKeeper} with the defaults of {@link Builder}. */
    public InMemoryCoordinationStore(InMemoryZooKeeper zooKeeper) {
        this(builder(zooKeeper));
    }

    private InMemoryCoordinationStore(Builder b) {
        this.zooKeeper = b.zooKeeper;
        this.clock = b.clock != null ? b.clock : b.zooKeeper.clock();
        Executor executor = b.eventExecutor;
        if (executor == null) {
            ownedExecutor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "in-memory-zk-events");
                t.setDaemon(true);
                return t;
            });
            executor = ownedExecutor;
        } else {
            ownedExecutor = null;
        }
        EventLane lane = new EventLane(executor);
        this.client = new MemClient(
                zooKeeper.ensemble(),
                b.namespace,
                b.sessionTimeout,
                lane,
                b.connectionLane ? new EventLane(executor) : lane,
                b.maxTransactionBytes);
        this.port = b.instrument.apply(client);
        this.sessionTimeout = b.sessionTimeout;
        this.topics = new ZkTopicRegistry(port);
    }

    public static Builder builder(InMemoryZooKeeper zooKeeper) {
        return new Builder(zooKeeper);
    }

    /** Opens the session (never fails: the model is always reachable). */
    @Override
    public synchronized void start() {
        if (state != State.LATENT) {
            throw new IllegalStateException("store already " + state.name().toLowerCase());
        }
        state = State.STARTED;
        client.start();
    }

    /** The per-group view core's members run on ({@link GroupStores#of}). */
    GroupStore groupStore(String groupId) {
        return groups.computeIfAbsent(groupId, g -> new ZkGroupStore(port, g, clock));
    }

    @Override
    public TopicRegistry topics() {
        return topics;
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        client.addListener(Objects.requireNonNull(listener));
    }

    @Override
    public void removeConnectionListener(ConnectionListener listener) {
        client.removeListener(listener);
    }

    @Override
    public long sessionId() {
        return client.sessionId();
    }

    @Override
    public boolean isConnected() {
        return client.isConnected();
    }

    @Override
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    @Override
    public String describe() {
        return client.describe();
    }

    /** The ensemble this store is a client of. */
    public InMemoryZooKeeper zooKeeper() {
        return zooKeeper;
    }

    // ------------------------------------------------------------------ faults

    /** Drops this client's connection: SUSPENDED; the session's timeout starts running on the clock. */
    public void disconnect() {
        client.disconnect();
    }

    /** Restores the connection: RECONNECTED with the same session, or LOST and RECONNECTED_NEW_SESSION. */
    public void reconnect() {
        client.reconnect();
    }

    /**
     * A silent cut: the server stops hearing this store (the session's timeout starts on the clock) but nothing is
     * reported until {@link #noticeCut()} (SUSPENDED; ZooKeeper's client notices at two thirds of the session timeout)
     * or {@link #reconnect()} (the network back before it was noticed: no event; or, the session gone, LOST and a new
     * one). Meanwhile calls from a simulated thread ({@link InMemoryZooKeeper#simulatedThreads}) hang until the cut is
     * noticed (then they fail with a lost connection) or the network returns (then they are sent); other calls
     * fail at once, as after a disconnect.
     */
    public void cutSilently() {
        client.cutSilently();
    }

    /** The store notices a silent cut: SUSPENDED. */
    public void noticeCut() {
        client.noticeCut();
    }

    /** The server expires this store's session now; a connected store gets a new session at once. */
    public void expireSession() {
        client.expireSession();
    }

    /**
     * The next {@code count} writes (single writes or transactions) fail with a lost connection. With {@code
     * outcomeUnknown} each is applied on the server before its answer is lost, as a ConnectionLoss after the request
     * was sent: the caller gets an error for a write that landed.
     */
    public void failNextWrites(int count, boolean outcomeUnknown) {
        client.failNextWrites(count, outcomeUnknown);
    }

    /**
     * As {@link #failNextWrites(int, boolean)}, and the session expires while the first of them is in doubt: the
     * connection drops with the request in flight (a connection loss to the caller, SUSPENDED to the listeners) and
     * stays down until the session's timeout has passed on the clock and the server expired it (LOST), then comes back
     * in a new session (RECONNECTED_NEW_SESSION). Whether the write landed is left for the caller to find out there.
     */
    public void failNextWritesAndExpire(int count, boolean outcomeUnknown) {
        client.failNextWrites(count, outcomeUnknown, true);
    }

    /**
     * The next claim transaction of this store that the server applies loses its answer (a connection loss to the
     * caller; SUSPENDED, then RECONNECTED in the same session), and the client reconnects to a follower that has not
     * applied it: its reads miss the owner node until that follower catches up, after {@code catchUp} on the clock or
     * at a {@code sync}, and never go backwards. A claim refused on the server is answered as usual.
     */
    public void landNextClaimLate(Duration catchUp) {
        client.landNextClaimLate(catchUp, () -> {});
    }

    /**
     * As {@link #landNextClaimLate(java.time.Duration)}; {@code landed} runs once the claim has landed; with {@code
     * staysDown} the connection stays down after the lost answer (SUSPENDED) until {@link #reconnect()}, which comes back
     * in the same session if it is still alive.
     */
    public void landNextClaimLate(Duration catchUp, boolean staysDown, Runnable landed) {
        client.landNextClaimLate(catchUp, staysDown, Objects.requireNonNull(landed));
    }

    /**
     * The next publish of a leader on this store loses the connection after its first transaction: a generation
     * published in part, as a leader that dies between its transactions leaves it on a server.
     */
    public void cutNextPublish() {
        client.cutNextPublish();
    }

    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        client.close();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    /** Configures an {@link InMemoryCoordinationStore}. */
    public static final class Builder {
        private final InMemoryZooKeeper zooKeeper;
        private String namespace = "groupkeeper";
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Executor eventExecutor;
        private boolean connectionLane;
        private Clock clock;
        private long maxTransactionBytes = DEFAULT_MAX_TRANSACTION_BYTES;
        private UnaryOperator<ZkPort> instrument = UnaryOperator.identity();

        private Builder(InMemoryZooKeeper zooKeeper) {
            this.zooKeeper = Objects.requireNonNull(zooKeeper, "zooKeeper");
        }

        /** The root of all nodes, without slashes at either end; default {@code groupkeeper}. */
        public Builder namespace(String namespace) {
            if (namespace == null || namespace.isBlank() || namespace.startsWith("/") || namespace.endsWith("/")) {
                throw new IllegalArgumentException(
                        "namespace must be a relative path like 'groupkeeper', was '" + namespace + "'");
            }
            this.namespace = namespace;
            return this;
        }

        /** How long a disconnected session lives on the ensemble's clock; default 15 s. */
        public Builder sessionTimeout(Duration sessionTimeout) {
            if (sessionTimeout == null || sessionTimeout.isNegative() || sessionTimeout.isZero()) {
                throw new IllegalArgumentException("sessionTimeout must be positive, was " + sessionTimeout);
            }
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /** Where this store's events run, one per task, in order; default: a daemon thread of its own. */
        public Builder eventExecutor(Executor eventExecutor) {
            this.eventExecutor = Objects.requireNonNull(eventExecutor, "eventExecutor");
            return this;
        }

        /**
         * Whether connection listeners hear their events on a lane of their own (on the event executor too), ordered
         * among themselves but not with watch notifications and leadership, as Curator delivers connection states on
         * a thread of its own; default false: one ordered lane for everything.
         */
        public Builder connectionLane(boolean connectionLane) {
            this.connectionLane = connectionLane;
            return this;
        }

        /** The clock for timestamps in node bodies; default the ensemble's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The most one transaction may cost (as ZooKeeper serializes it); larger commits, releases and publishes are
         * split, as on a server at 900 KiB. Default {@value #DEFAULT_MAX_TRANSACTION_BYTES}: small, so that a publish
         * of more than a few targets takes several transactions and a fault between them leaves a generation
         * published in part, as it can on a server with a large group.
         */
        public Builder maxTransactionBytes(long maxTransactionBytes) {
            if (maxTransactionBytes < 1) {
                throw new IllegalArgumentException("maxTransactionBytes must be positive, was " + maxTransactionBytes);
            }
            this.maxTransactionBytes = maxTransactionBytes;
            return this;
        }

        /**
         * Puts {@code instrument} between the store and its client: every request of the store goes through the port
         * it returns for the client's. For measurements (the simulator counts a handoff's round trips with it) and
         * for tests that make one client's view unkinder still; the faults above stay the client's.
         */
        public Builder instrument(UnaryOperator<ZkPort> instrument) {
            this.instrument = Objects.requireNonNull(instrument, "instrument");
            return this;
        }

        public InMemoryCoordinationStore build() {
            return new InMemoryCoordinationStore(this);
        }
    }
}

package io.groupkeeper.spi;

import java.time.Duration;

/**
 * The storage and notification primitives the coordination protocol runs on. One store is one session with the
 * backing service (for ZooKeeper: one Curator client); it can serve many groups and members.
 *
 * <p>Core reaches the per-group protocol a store serves through {@code GroupStores} (in {@code spi.internal},
 * exported only to the store's modules), where each store class registers; an application passes the store to
 * {@code GroupKeeper} and never calls it.
 *
 * <p>Implementations must be thread-safe. Callbacks ({@code Runnable} change hooks, connection listeners) may run on
 * an internal thread of the store and must be handed off by the caller, never block.
 */
public interface CoordinationStore extends AutoCloseable {

    /** Connects; throws {@link StoreException} with a clear message when the backing service cannot be reached. */
    void start();

    /** The registry of topics (partition counts) for work that is not Kafka; also a {@link TopicMetadataSource}. */
    TopicRegistry topics();

    /** Registers a listener for connection state changes. */
    void addConnectionListener(ConnectionListener listener);

    void removeConnectionListener(ConnectionListener listener);

    /**
     * The id of the store's current session with the backing service (0 before the first). A claim made now is made
     * in this session (a lease, which every fenced write names).
     */
    long sessionId();

    /** Whether the store currently has a live connection. */
    boolean isConnected();

    /**
     * The session timeout this store asks for: once its connection has been gone for longer, the service has ended the
     * session (unless the service itself was down meanwhile) and removed its ephemeral nodes. A member closed while the
     * connection is in doubt waits at most this long, counted from when the doubt began, for the connection to return.
     * The default, for a store that cannot say, is 45 s.
     */
    default Duration sessionTimeout() {
        return Duration.ofSeconds(45);
    }

    /** The {@link #namespace()} of a store that names none, and ZooKeeper's default namespace. */
    String DEFAULT_NAMESPACE = "groupkeeper";

    /**
     * The name that keeps this deployment's groups apart from other deployments' on the same backing service
     * (ZooKeeper: the namespace, the node the store works under). Names derived outside the store carry it when it is
     * not {@link #DEFAULT_NAMESPACE} — the Kafka adapter's transactional ids and the Kafka group its transactional
     * offsets go to — so that two deployments with the same group name do not meet on a shared Kafka cluster.
     */
    default String namespace() {
        return DEFAULT_NAMESPACE;
    }

    /** Human readable description for logs and errors, e.g. the connect string and namespace. */
    String describe();

    @Override
    void close();
}

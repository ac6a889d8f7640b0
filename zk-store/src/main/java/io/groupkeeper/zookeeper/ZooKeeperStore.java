package io.groupkeeper.zookeeper;

import io.groupkeeper.Names;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.Lifecycle;
import io.groupkeeper.zkprotocol.ZkStats;
import io.groupkeeper.zkprotocol.internal.ZkGroupStore;
import io.groupkeeper.zkprotocol.internal.ZkTopicRegistry;
import io.groupkeeper.zookeeper.internal.ConnectString;
import io.groupkeeper.zookeeper.internal.NoRetryWhileDisconnected;
import io.groupkeeper.zookeeper.internal.SessionOpener;
import io.groupkeeper.zookeeper.internal.ZkSession;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper {@link CoordinationStore}: one Curator client (one session) under a namespace.
 *
 * <pre>{@code
 * CoordinationStore store = ZooKeeperStore.builder()
 *         .connectString("zk1:2181,zk2:2181,zk3:2181")
 *         .namespace("groupkeeper")
 *         .sessionTimeout(Duration.ofSeconds(15))
 *         .build();
 * }</pre>
 *
 * <p>Connection states are mapped for the protocol: Curator's SUSPENDED (no server heard for two thirds of the
 * session timeout) becomes {@link ConnectionEvent#SUSPENDED}, on which members stop processing; a reconnection is
 * reported with whether the session survived.
 */
public final class ZooKeeperStore implements CoordinationStore {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperStore.class);

    static {
        GroupStores.register(ZooKeeperStore.class, ZooKeeperStore::groupStore);
    }

    private final Builder config;
    private final CuratorFramework client;
    private final ZkSession zk;
    private final ZkStats stats = new ZkStats();
    private final ZkTopicRegistry topics;
    private final Map<String, ZkGroupStore> groups = new ConcurrentHashMap<>();
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private final ConnectionStateListener curatorListener = this::onCuratorState;
    private final Lifecycle lifecycle = new Lifecycle("store");
    /** The session timeout the server granted (ms; 0 until connected). */
    private volatile int negotiatedMs;

    private ZooKeeperStore(Builder b) {
        this.config = b;
        NoRetryWhileDisconnected retry = new NoRetryWhileDisconnected(b.retryPolicy);
        CuratorFrameworkFactory.Builder cb = CuratorFrameworkFactory.builder()
                .connectString(b.connectString)
                .namespace(b.namespace)
                .sessionTimeoutMs((int) b.sessionTimeout.toMillis())
                .connectionTimeoutMs((int) b.connectionTimeout.toMillis())
                .retryPolicy(retry);
        if (!b.clientProperties.isEmpty()) {
            ZKClientConfig zkConfig = new ZKClientConfig(); // starts from the system properties
            b.clientProperties.forEach(zkConfig::setProperty);
            cb.zkClientConfig(zkConfig);
        }
        if (b.digest != null) {
            cb.authorization("digest", b.digest.getBytes(StandardCharsets.UTF_8))
                    .aclProvider(aclProvider(b.worldReadable));
        }
        this.client = cb.build();
        retry.connectedWhen(() -> client.getZookeeperClient().isConnected());
        this.zk = new ZkSession(client, stats, true);
        this.topics = new ZkTopicRegistry(zk);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void start() {
        lifecycle.start();
        ConnectString cs = config.parsed;
        try {
            SessionOpener.open(
                    client,
                    cs,
                    config.connectionTimeout,
                    () -> client.getConnectionStateListenable().addListener(curatorListener));
        } catch (StoreException e) {
            close();
            throw e;
        }
        zk.refreshSession();
        readNegotiatedTimeout();
        LOG.info(
                "connected to ZooKeeper {} (namespace /{}, session 0x{}, session timeout {} ms)",
                cs,
                config.namespace,
                Long.toHexString(zk.sessionId()),
                negotiatedMs);
    }

    /** Reads the session timeout the server granted; a WARN when it is not the one asked for. */
    private void readNegotiatedTimeout() {
        int granted;
        try {
            granted = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            return;
        }
        if (granted <= 0) {
            return;
        }
        int before = negotiatedMs;
        negotiatedMs = granted;
        long asked = config.sessionTimeout.toMillis();
        if (granted != asked && granted != before) {
            LOG.warn(
                    "ZooKeeper granted a session timeout of {} ms, not the {} ms asked for (a server bounds it to its "
                            + "minSessionTimeout..maxSessionTimeout, by default 2 to 20 times its tickTime); sessionTimeout() "
                            + "reports {} ms",
                    granted,
                    asked,
                    granted);
        }
    }

    private void onCuratorState(CuratorFramework c, ConnectionState state) {
        if (state.isConnected()) {
            zk.connected(); // before the members hear of it: their first requests must not be held back
        }
        ConnectionEvent event = switch (state) {
            case CONNECTED -> {
                zk.refreshSession();
                yield ConnectionEvent.CONNECTED;
            }
            case SUSPENDED, READ_ONLY -> ConnectionEvent.SUSPENDED;
            case LOST -> ConnectionEvent.LOST;
            case RECONNECTED ->
                zk.refreshSession() ? ConnectionEvent.RECONNECTED_NEW_SESSION : ConnectionEvent.RECONNECTED;
        };
        if (state.isConnected()) {
            readNegotiatedTimeout();
        }
        LOG.info("ZooKeeper connection {} -> {} (session 0x{})", state, event, Long.toHexString(zk.sessionId()));
        for (ConnectionListener l : listeners) {
            try {
                l.stateChanged(event);
            } catch (RuntimeException e) {
                LOG.error("connection listener failed", e);
            }
        }
    }

    /** The per-group view core's members run on ({@link GroupStores#of}). */
    GroupStore groupStore(String groupId) {
        return groups.computeIfAbsent(groupId, g -> new ZkGroupStore(zk, g, config.clock));
    }

    @Override
    public TopicRegistry topics() {
        return topics;
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        listeners.add(Objects.requireNonNull(listener));
    }

    @Override
    public void removeConnectionListener(ConnectionListener listener) {
        listeners.remove(listener);
    }

    @Override
    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** The session timeout the server granted once connected (it may bound the one asked for), else the one asked for. */
    @Override
    public Duration sessionTimeout() {
        int granted = negotiatedMs;
        return granted > 0 ? Duration.ofMillis(granted) : config.sessionTimeout;
    }

    @Override
    public String namespace() {
        return config.namespace;
    }

    @Override
    public String describe() {
        return "zookeeper://" + config.connectString + "/" + config.namespace;
    }

    /** The Curator client (for admin tools and tests); do not close it directly. */
    public CuratorFramework curator() {
        return client;
    }

    /** This store's round-trip and watch counts so far (a snapshot; {@link StoreStats#minus} for a difference). */
    public StoreStats stats() {
        return new StoreStats(stats.reads(), stats.writes(), stats.transactions(), stats.watchEvents());
    }

    /** The current ZooKeeper session id. */
    @Override
    public long sessionId() {
        return zk.sessionId();
    }

    @Override
    public void close() {
        if (lifecycle.close() == Lifecycle.State.CLOSED) {
            return;
        }
        client.getConnectionStateListenable().removeListener(curatorListener);
        listeners.clear();
        client.close();
    }

    private static ACLProvider aclProvider(boolean worldReadable) {
        List<ACL> acl = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
        if (worldReadable) {
            acl.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
        }
        // Not List.copyOf: ZooKeeper checks acl.contains(null), which immutable lists answer with an NPE.
        List<ACL> fixed = Collections.unmodifiableList(acl);
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return fixed;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return fixed;
            }
        };
    }

    /** Configures a {@link ZooKeeperStore}; each setter rejects a bad value at once, naming it. */
    public static final class Builder {
        /** Below this the ZooKeeper client cannot connect at all: it gives each attempt sessionTimeout / servers. */
        static final Duration MIN_SESSION_TIMEOUT = Duration.ofSeconds(1);

        private String connectString;
        private ConnectString parsed;
        private String namespace = "groupkeeper";
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Duration connectionTimeout = Duration.ofSeconds(10);
        private RetryPolicy retryPolicy = new ExponentialBackoffRetry(100, 5, 2_000);
        private Clock clock = Clock.systemUTC();
        private String digest;
        private boolean worldReadable = true;
        private final Map<String, String> clientProperties = new LinkedHashMap<>();

        private Builder() {}

        /**
         * ZooKeeper servers, each {@code host:port}, e.g. {@code "zk1:2181,zk2:2181"}; a chroot ({@code /path} after
         * the servers) must exist. Required. Checked for its form here, for hosts that resolve by {@code start()}.
         */
        public Builder connectString(String connectString) {
            if (connectString == null || connectString.isBlank()) {
                throw new IllegalArgumentException("ZooKeeperStore: connectString is required (e.g. 127.0.0.1:2181)");
            }
            this.parsed = ConnectString.parse(connectString);
            this.connectString = connectString;
            return this;
        }

        /** The root path of all nodes (several tenants may share one ensemble); default {@code groupkeeper}. */
        public Builder namespace(String namespace) {
            if (namespace == null
                    || namespace.isBlank()
                    || namespace.startsWith("/")
                    || namespace.endsWith("/")
                    || namespace.contains("//")) {
                throw new IllegalArgumentException("ZooKeeperStore: namespace must be a relative path like "
                        + "'groupkeeper' or 'tenants/a', was '" + namespace + "'");
            }
            for (String segment : namespace.split("/")) {
                Names.requireValid("namespace segment", segment);
            }
            this.namespace = namespace;
            return this;
        }

        /**
         * Session timeout; a member that loses its connection stops processing before this elapses. Default 15 s, at
         * least 1 s. The server may grant another (within its minSessionTimeout..maxSessionTimeout): the store's
         * {@code sessionTimeout()} reports the granted one and a WARN says so.
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            requirePositive("sessionTimeout", sessionTimeout);
            if (sessionTimeout.compareTo(MIN_SESSION_TIMEOUT) < 0) {
                throw new IllegalArgumentException("ZooKeeperStore: sessionTimeout must be at least 1 s, was "
                        + sessionTimeout.toMillis() + " ms (the ZooKeeper client gives each connection attempt "
                        + "sessionTimeout / number of servers, and servers grant at least 2 ticks, 4 s by default)");
            }
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /** How long {@code start()} waits for the first connection; default 10 s. */
        public Builder connectionTimeout(Duration connectionTimeout) {
            requirePositive("connectionTimeout", connectionTimeout);
            this.connectionTimeout = connectionTimeout;
            return this;
        }

        /**
         * Retries of an operation that failed while connected (default: exponential backoff, 100 ms to 2 s, 5 times).
         * One that failed because the connection is down is never retried here: it fails at once, so no caller
         * waits on a dead connection past the session timeout; the library retries at its own level.
         */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Authenticates with ZooKeeper digest credentials {@code user:password}; nodes this store creates can then be
         * changed only by clients with the same credentials. {@code worldReadable}: whether others may read them.
         */
        public Builder digest(String userColonPassword, boolean worldReadable) {
            if (userColonPassword == null || !userColonPassword.contains(":") || userColonPassword.startsWith(":")) {
                throw new IllegalArgumentException("ZooKeeperStore: digest must be user:password");
            }
            this.digest = userColonPassword;
            this.worldReadable = worldReadable;
            return this;
        }

        /**
         * A ZooKeeper client setting for this store's client only (a {@code ZKClientConfig} property, the same keys as
         * the JVM-wide system properties), e.g. for TLS: {@code zookeeper.client.secure=true},
         * {@code zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty},
         * {@code zookeeper.ssl.trustStore.location} / {@code .password} (and a key store for client
         * authentication); for SASL: {@code zookeeper.sasl.clientconfig} naming the JAAS section. Settings not given
         * here fall back to the system properties, as in any ZooKeeper client. See docs/security.md.
         */
        public Builder clientProperty(String key, String value) {
            Objects.requireNonNull(key, "ZooKeeper client property key");
            Objects.requireNonNull(value, () -> "value of ZooKeeper client property " + key);
            if (!key.startsWith("zookeeper.")) {
                throw new IllegalArgumentException("ZooKeeperStore: '" + key + "' is not a ZooKeeper client property "
                        + "(they start with 'zookeeper.')");
            }
            clientProperties.put(key, value);
            return this;
        }

        public ZooKeeperStore build() {
            if (connectString == null) {
                throw new IllegalArgumentException("ZooKeeperStore: connectString is required (e.g. 127.0.0.1:2181)");
            }
            return new ZooKeeperStore(this);
        }

        private static void requirePositive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("ZooKeeperStore: " + what + " must be positive, was " + d);
            }
        }
    }
}

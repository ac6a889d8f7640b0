package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkStats;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import io.groupkeeper.zkprotocol.admin.ZkSource;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.internal.ConnectString;
import io.groupkeeper.zookeeper.internal.SessionOpener;
import io.groupkeeper.zookeeper.internal.ZkSession;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The admin ({@link GroupAdmin}, zk-protocol's, written over the session port) on ZooKeeper: connects with Curator and
 * hands the admin its session. The Curator side only; every operation is {@link GroupAdmin}'s.
 *
 * <pre>{@code
 * try (GroupAdmin admin = ZooKeeperAdmin.builder().connectString("zk:2181").logBounds(kafkaBounds).build()) {
 *     admin.executeReset("orders-app", PartitionSelection.allTopics(), new ResetSpec.ToEarliest());
 * }
 * }</pre>
 */
public final class ZooKeeperAdmin {

    private ZooKeeperAdmin() {}

    public static Builder builder() {
        return new Builder();
    }

    /** An admin on an already started store, without log bounds. The store stays open on {@link GroupAdmin#close()}. */
    public static GroupAdmin on(ZooKeeperStore startedStore) {
        return builder().store(startedStore).build();
    }

    /**
     * Connects, read-only, to an ensemble another system wrote (no namespace: paths as that system wrote them; a
     * connect string may carry a chroot, {@code zk1:2181/kafka}); throws {@link AdminException} naming the ensemble when
     * it cannot be reached in {@code timeout}, in one line that says why (as the store's own connection does). Closing
     * the source closes the connection.
     */
    public static ZkSource source(String connectString, Duration timeout) {
        if (connectString == null || connectString.isBlank()) {
            throw new AdminException("a ZooKeeper connect string is required");
        }
        ConnectString cs;
        try {
            cs = ConnectString.parse(connectString);
        } catch (IllegalArgumentException e) {
            throw new AdminException(e.getMessage().replaceFirst("^ZooKeeperStore: ", ""));
        }
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .connectionTimeoutMs((int) timeout.toMillis())
                .sessionTimeoutMs(30_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3, 1_000))
                .build();
        try {
            SessionOpener.open(c, cs, timeout, () -> {});
        } catch (StoreException e) {
            c.close();
            throw new AdminException(e.getMessage());
        }
        return ZkSource.over(new ZkSession(c, new ZkStats()), connectString, c::close);
    }

    /** A source read through an existing client (not closed with the source); paths relative to its namespace, if any. */
    public static ZkSource source(CuratorFramework client) {
        return ZkSource.over(
                new ZkSession(client, new ZkStats()),
                client.getZookeeperClient().getCurrentConnectionString(),
                () -> {});
    }

    /**
     * Configures an admin either on an existing {@link ZooKeeperStore} ({@link #store}) or on its own store ({@link
     * #connectString}, {@link #namespace}, {@link #digest}, {@link #connectionTimeout}), started by {@link #build()} and
     * closed with the admin; the rest is {@link GroupAdmin.Builder}'s.
     */
    public static final class Builder {
        private ZooKeeperStore store;
        /** The admin's own store, when it has one: its builder checks each connection setting as it is given. */
        private final ZooKeeperStore.Builder own = ZooKeeperStore.builder();

        private boolean connects;
        private UnaryOperator<ZkPort> instrument = UnaryOperator.identity();
        private final GroupAdmin.Builder admin = GroupAdmin.builder();

        private Builder() {}

        /** Use this started store (not closed by the admin). Excludes {@link #connectString}. */
        public Builder store(ZooKeeperStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        public Builder connectString(String connectString) {
            own.connectString(connectString);
            connects = true;
            return this;
        }

        /** Default {@code groupkeeper}. */
        public Builder namespace(String namespace) {
            own.namespace(namespace);
            return this;
        }

        /** ZooKeeper digest credentials {@code user:password}, for groups whose nodes have ACLs. */
        public Builder digest(String userColonPassword) {
            own.digest(userColonPassword, true);
            return this;
        }

        public Builder connectionTimeout(Duration timeout) {
            own.connectionTimeout(timeout);
            return this;
        }

        /** Where log bounds come from (Kafka); without it targets are not clamped and log ends are unknown. */
        public Builder logBounds(LogBounds logBounds) {
            admin.logBounds(logBounds);
            return this;
        }

        public Builder clock(Clock clock) {
            own.clock(clock);
            admin.clock(clock);
            return this;
        }

        /** See {@link GroupAdmin.Builder#maxTransactionBytes}. */
        public Builder maxTransactionBytes(int bytes) {
            admin.maxTransactionBytes(bytes);
            return this;
        }

        /** See {@link GroupAdmin.Builder#maxAttempts}. */
        public Builder maxAttempts(int attempts) {
            admin.maxAttempts(attempts);
            return this;
        }

        /**
         * Puts {@code instrument} between the admin and its session: every request of the admin goes through the port
         * it returns (for tests that lose a reply or interleave a write, and for measurements).
         */
        public Builder instrument(UnaryOperator<ZkPort> instrument) {
            this.instrument = Objects.requireNonNull(instrument, "instrument");
            return this;
        }

        /**
         * Builds the admin; with {@link #connectString} this connects (and throws {@link StoreException} with a clear
         * message when ZooKeeper cannot be reached).
         */
        public GroupAdmin build() {
            if (store != null) {
                if (connects) {
                    throw new IllegalStateException(
                            "ZooKeeperAdmin: give either store(...) or connectString(...), not both");
                }
                return admin.port(port(store)).build();
            }
            if (!connects) {
                throw new IllegalArgumentException("ZooKeeperAdmin: connectString (or store) is required");
            }
            ZooKeeperStore s = own.build();
            s.start();
            return admin.port(port(s)).onClose(s::close).build();
        }

        private ZkPort port(ZooKeeperStore s) {
            return instrument.apply(new ZkSession(s.curator(), new ZkStats()));
        }
    }
}

package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.zookeeper.internal.ZkSession;
import io.groupkeeper.zkprotocol.ZkStats;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A read-only connection to a ZooKeeper ensemble that another system wrote (Storm, Kafka's old consumer), without a
 * namespace: paths are absolute, as that system wrote them. A connect string may carry a chroot
 * ({@code zk1:2181/kafka}).
 */
public final class ZkSource implements AutoCloseable {

    private final String connectString;
    private final CuratorFramework client;
    private final ZkReader reader;
    private final boolean ownsClient;

    private ZkSource(String connectString, CuratorFramework client, boolean ownsClient) {
        this.connectString = connectString;
        this.client = client;
        this.ownsClient = ownsClient;
        this.reader = new ZkReader(client, new ZkSession(client, new ZkStats()));
    }

    /** Connects, or throws {@link AdminException} naming the ensemble when it cannot be reached in {@code timeout}. */
    public static ZkSource connect(String connectString, Duration timeout) {
        if (connectString == null || connectString.isBlank()) {
            throw new AdminException("a ZooKeeper connect string is required");
        }
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connectString)
                .connectionTimeoutMs((int) timeout.toMillis()).sessionTimeoutMs(30_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3, 1_000)).build();
        c.start();
        boolean connected;
        try {
            connected = c.blockUntilConnected((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            c.close();
            throw new AdminException("cannot connect to ZooKeeper at " + connectString + " within " + timeout.toMillis() + " ms");
        }
        return new ZkSource(connectString, c, true);
    }

    /** Wraps an existing client (not closed by {@link #close()}); paths relative to its namespace, if any. */
    public static ZkSource on(CuratorFramework client) {
        return new ZkSource(client.getZookeeperClient().getCurrentConnectionString(), client, false);
    }

    public String connectString() {
        return connectString;
    }

    ZkReader reader() {
        return reader;
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }
}

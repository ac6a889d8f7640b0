package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.zkprotocol.ZkStats;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * Why the model can put connection events on a lane of their own (testkit's {@code ConnectionLaneTest}): on a real
 * server, a watch set through the port runs on ZooKeeper's event thread and Curator's connection states (which
 * {@code ZooKeeperStore} hands its listeners) on another thread, so nothing orders one against the other.
 */
class ConnectionLaneIT {

    @Test
    void watchNotificationsAndConnectionStatesRunOnDifferentThreads() throws Exception {
        try (TestingServer server = new TestingServer(true);
                CuratorFramework client = CuratorFrameworkFactory.builder()
                        .connectString(server.getConnectString())
                        .sessionTimeoutMs(4_000)
                        .connectionTimeoutMs(2_000)
                        .retryPolicy(new RetryOneTime(100))
                        .namespace("lane")
                        .build();
                CuratorFramework admin =
                        CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
            AtomicReference<Thread> watchThread = new AtomicReference<>();
            AtomicReference<Thread> stateThread = new AtomicReference<>();
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.SUSPENDED) {
                    stateThread.set(Thread.currentThread());
                }
            });
            client.start();
            admin.start();
            client.blockUntilConnected();
            admin.blockUntilConnected();
            ZkSession port = new ZkSession(client, new ZkStats());

            assertThat(port.read("/x", () -> watchThread.set(Thread.currentThread())))
                    .isEmpty();
            admin.create().creatingParentsIfNeeded().forPath("/lane/x");
            await().atMost(Duration.ofSeconds(10)).until(() -> watchThread.get() != null);
            server.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> stateThread.get() != null);

            assertThat(stateThread.get()).isNotSameAs(watchThread.get());
            assertThat(watchThread.get().getName()).contains("EventThread");
        }
    }
}

package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What testkit's model does with a request sent during a silent cut ({@code HangingRequestTest}), on a real server
 * behind a proxy that stalls the network: the request gets no answer (its future stays incomplete, the client reports
 * nothing) until the network flows again (then it is answered) or the client's read timeout notices the cut (then it
 * fails with a lost connection, and Curator reports SUSPENDED). Not shown here: a write that the notice fails landing
 * all the same (its bytes reaching the server after the notice, before the session expires), a matter of timing this
 * test cannot hold on a shared machine.
 */
class HeldRequestIT {

    private static final int SESSION_MS = 6_000;

    private TestingServer server;
    private StallingProxy proxy;
    private CuratorFramework client;
    private final List<ConnectionState> states = new CopyOnWriteArrayList<>();
    private ZkSession port;

    @BeforeEach
    void connectThroughTheProxy() throws Exception {
        server = new TestingServer(true);
        try (CuratorFramework admin =
                CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
            admin.start();
            admin.create().creatingParentsIfNeeded().forPath("/held/x", "v0".getBytes(StandardCharsets.UTF_8));
        }
        proxy = new StallingProxy(server.getPort());
        client = CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .sessionTimeoutMs(SESSION_MS)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new RetryOneTime(100))
                .namespace("held")
                .build();
        client.getConnectionStateListenable().addListener((c, state) -> states.add(state));
        client.start();
        client.blockUntilConnected();
        port = new ZkSession(client, new ZkStats());
    }

    @AfterEach
    void close() throws Exception {
        proxy.flow();
        client.close();
        proxy.close();
        server.close();
    }

    @Test
    void aRequestSentWhileTheNetworkStallsIsAnsweredWhenItFlowsAgain() {
        proxy.stall();
        CompletableFuture<Optional<ZkNode>> read = port.readAsync("/x", null);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> !read.isDone());

        proxy.flow();

        await().atMost(Duration.ofSeconds(10)).until(read::isDone);
        assertThat(read.join())
                .map(n -> new String(n.data(), StandardCharsets.UTF_8))
                .contains("v0");
        assertThat(states).as("nothing noticed").doesNotContain(ConnectionState.SUSPENDED);
    }

    @Test
    void aRequestSentWhileTheNetworkStallsFailsWithConnectionLossWhenTheClientNotices() {
        proxy.stall();
        CompletableFuture<Optional<ZkNode>> read = port.readAsync("/x", null);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> !read.isDone());
        assertThat(states).doesNotContain(ConnectionState.SUSPENDED);

        await().atMost(Duration.ofSeconds(SESSION_MS / 1000 * 3)).until(read::isDone);

        assertThat(read).isCompletedExceptionally();
        assertThat(read.handle((v, e) -> String.valueOf(e)).join()).contains("CONNECTIONLOSS");
        await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.SUSPENDED));
    }
}

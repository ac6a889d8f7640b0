package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.zkprotocol.ZkStats;
import io.groupkeeper.zkprotocol.internal.GroupNodes;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.time.Instant;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class GroupNodesIT {

    private static TestingServer server;
    private static CuratorFramework client;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace("gn")
                .retryPolicy(new RetryOneTime(100))
                .build();
        client.start();
        client.blockUntilConnected();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void aListingIsCompleteOnlyWithAllFiveChildren() {
        GroupNodes g = new GroupNodes("g");
        assertThat(g.isComplete(List.of("members", "leader", "owners", "offsets", "assignment")))
                .isTrue();
        assertThat(g.isComplete(List.of("members", "leader", "owners", "offsets", "assignment", "extra")))
                .isTrue();
        assertThat(g.isComplete(List.of("members", "leader", "owners", "offsets")))
                .isFalse();
        assertThat(g.isComplete(List.of())).isFalse();
    }

    @Test
    void ensureCreatesAGroupInOneTransactionAndCompletesAPartialOne() throws Exception {
        ZkSession zk = new ZkSession(client, new ZkStats());
        GroupNodes g = new GroupNodes("fresh");
        g.ensure(zk, "sticky", Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(g.isComplete(client.getChildren().forPath(ZkPaths.group("fresh"))))
                .isTrue();
        assertThat(NodeCodec.assignment("a", client.getData().forPath(ZkPaths.assignment("fresh")))
                        .generation())
                .isZero();

        client.delete().forPath(ZkPaths.owners("fresh")); // a folder deleted by hand
        long before = zk.stats().transactions();
        g.ensure(zk, "sticky", Instant.now());
        assertThat(g.isComplete(client.getChildren().forPath(ZkPaths.group("fresh"))))
                .isTrue();
        assertThat(zk.stats().transactions()).as("filled in, not created again").isEqualTo(before);
    }

    @Test
    void creationOpsAreTheGroupNodeAndItsFiveChildren() throws Exception {
        ZkSession zk = new ZkSession(client, new ZkStats());
        List<String> paths = new GroupNodes("g")
                .creation("sticky", Instant.now()).stream()
                        .map(op -> zk.op(op).get().getPath())
                        .toList();
        assertThat(paths)
                .containsExactly(
                        "/gn/groups/g",
                        "/gn/groups/g/members",
                        "/gn/groups/g/leader",
                        "/gn/groups/g/owners",
                        "/gn/groups/g/offsets",
                        "/gn/groups/g/assignment");
    }
}

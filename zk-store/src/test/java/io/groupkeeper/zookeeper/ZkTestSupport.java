package io.groupkeeper.zookeeper;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** One real ZooKeeper server per test class, fresh group names per test, and helpers to observe a group. */
abstract class ZkTestSupport {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final AtomicInteger GROUPS = new AtomicInteger();

    static TestingServer server;
    static CuratorFramework admin;

    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        admin = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        admin.start();
        admin.blockUntilConnected();
    }

    @AfterAll
    static void stopServer() throws Exception {
        admin.close();
        server.close();
    }

    @AfterEach
    void closeAll() {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                // best effort
            }
        }
        toClose.clear();
    }

    static String newGroup() {
        return "g" + GROUPS.incrementAndGet() + "-" + System.nanoTime() % 100000;
    }

    String connectString() {
        return server.getConnectString();
    }

    ZooKeeperStore newStore() {
        return ZooKeeperStore.builder().connectString(connectString()).sessionTimeout(SESSION_TIMEOUT).build();
    }

    GroupKeeper newKeeper() {
        GroupKeeper gk = GroupKeeper.builder().store(newStore()).build().start();
        toClose.add(gk);
        return gk;
    }

    static ZooKeeperStore storeOf(GroupKeeper gk) {
        return (ZooKeeperStore) gk.store();
    }

    /** Registers {@code topic} with {@code partitions} in the topic registry. */
    void topic(String topic, int partitions) {
        try (ZooKeeperStore s = newStore()) {
            s.start();
            s.topics().ensureTopic(topic, partitions);
        }
    }

    /** The owner node holders of a group, read directly from ZooKeeper: partition -> member id. */
    static Map<TopicPartition, String> ownersInZk(String group) throws Exception {
        Map<TopicPartition, String> owners = new HashMap<>();
        String root = "/groupkeeper/groups/" + group + "/owners";
        if (admin.checkExists().forPath(root) == null) {
            return owners;
        }
        for (String topic : admin.getChildren().forPath(root)) {
            for (String p : admin.getChildren().forPath(root + "/" + topic)) {
                try {
                    byte[] data = admin.getData().forPath(root + "/" + topic + "/" + p);
                    String json = new String(data);
                    String member = json.replaceAll(".*\"memberId\":\"([^\"]+)\".*", "$1");
                    owners.put(new TopicPartition(topic, Integer.parseInt(p)), member);
                } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
                    // released between list and read
                }
            }
        }
        return owners;
    }

    /** Waits until the members together own exactly every partition of the topics, balanced within one. */
    static void awaitBalanced(Map<String, Integer> topicPartitions, GroupMember... members) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            SortedSet<TopicPartition> all = new TreeSet<>();
            int min = Integer.MAX_VALUE;
            int max = 0;
            int total = 0;
            for (GroupMember m : members) {
                SortedSet<TopicPartition> a = m.assignment();
                all.addAll(a);
                total += a.size();
                min = Math.min(min, a.size());
                max = Math.max(max, a.size());
            }
            SortedSet<TopicPartition> expected = new TreeSet<>();
            topicPartitions.forEach((t, n) -> {
                for (int p = 0; p < n; p++) {
                    expected.add(new TopicPartition(t, p));
                }
            });
            org.assertj.core.api.Assertions.assertThat(all).isEqualTo(expected);
            org.assertj.core.api.Assertions.assertThat(total).as("no partition owned twice").isEqualTo(expected.size());
            org.assertj.core.api.Assertions.assertThat(max - min).as("balanced").isLessThanOrEqualTo(1);
        });
    }

    /** Expires a client's session on the server, as a long network partition would. */
    static void expireSession(ZooKeeperStore store) throws Exception {
        ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
        long id = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        ZooKeeper imposter = new ZooKeeper(server.getConnectString(), 10_000, e -> { }, id, password);
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }
}

package io.groupkeeper.zookeeper;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.Keepers;
import io.groupkeeper.fixtures.RawZk;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.fixtures.ZkLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** One real ZooKeeper server per test class, fresh group names per test, and helpers to observe a group. */
abstract class ZkTestSupport {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    static TestingServer server;
    static CuratorFramework admin;

    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        admin = RawZk.connect(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        admin.close();
        server.close();
    }

    @AfterEach
    void closeAll() {
        Keepers.closeQuietly(toClose);
    }

    static String newGroup() {
        return TestNames.unique("g");
    }

    String connectString() {
        return server.getConnectString();
    }

    ZooKeeperStore newStore() {
        return ZooKeeperStore.builder()
                .connectString(connectString())
                .sessionTimeout(SESSION_TIMEOUT)
                .build();
    }

    GroupKeeper newKeeper() {
        return Keepers.started(newStore(), toClose);
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
        return RawZk.owners(admin, ZkLayout.owners(group));
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
            org.assertj.core.api.Assertions.assertThat(total)
                    .as("no partition owned twice")
                    .isEqualTo(expected.size());
            org.assertj.core.api.Assertions.assertThat(max - min).as("balanced").isLessThanOrEqualTo(1);
        });
    }

    /** Registers {@code topic}, starts {@code group}'s only member on it, and waits until it owns every partition. */
    GroupMember startedAlone(GroupKeeper gk, String group, String topic, int partitions) {
        topic(topic, partitions);
        GroupMember m = gk.member(group).topics(topic).build();
        m.start();
        awaitBalanced(Map.of(topic, partitions), m);
        return m;
    }

    /** Waits until the store saw no watch event, write or read between two polls 300 ms apart. */
    static void awaitQuiet(ZooKeeperStore store) {
        java.util.concurrent.atomic.AtomicReference<StoreStats> last =
                new java.util.concurrent.atomic.AtomicReference<>(store.stats());
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    StoreStats now = store.stats();
                    boolean quiet = now.watchEvents() == last.get().watchEvents()
                            && now.writes() == last.get().writes()
                            && now.reads() == last.get().reads();
                    last.set(now);
                    return quiet;
                });
    }

    /** Expires a client's session on the server, as a long network partition would. */
    static void expireSession(ZooKeeperStore store) throws Exception {
        ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
        long id = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        ZooKeeper imposter = new ZooKeeper(server.getConnectString(), 10_000, e -> {}, id, password);
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }
}

package io.groupkeeper.zookeeper;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.testkit.GroupStoreContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on real ZooKeeper: one curator-test server for the class; the operator's hand edits go through a
 * plain Curator client, as zkCli's would. Dropping a connection stops the whole server (every client loses it) and
 * restoring it restarts the server on the same port and data, well within the session timeout.
 */
class ZooKeeperGroupStoreContractIT extends GroupStoreContract {

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    private static TestingServer server;
    private static CuratorFramework operator;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        operator = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        operator.start();
        operator.blockUntilConnected();
    }

    @AfterAll
    static void stopServer() throws Exception {
        operator.close();
        server.close();
    }

    @Override
    protected CoordinationStore newStore() {
        ZooKeeperStore s = ZooKeeperStore.builder()
                .connectString(server.getConnectString())
                .sessionTimeout(SESSION_TIMEOUT)
                .build();
        s.start();
        return s;
    }

    /** Expires the session as a long network partition would: another handle with its id and password closes it. */
    @Override
    protected void expireSession(CoordinationStore store) throws Exception {
        ZooKeeper zk = ((ZooKeeperStore) store).curator().getZookeeperClient().getZooKeeper();
        ZooKeeper imposter =
                new ZooKeeper(server.getConnectString(), 10_000, e -> {}, zk.getSessionId(), zk.getSessionPasswd());
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }

    @Override
    protected void dropConnection(CoordinationStore store) throws Exception {
        server.stop();
        await().atMost(SESSION_TIMEOUT).until(() -> !store.isConnected());
    }

    @Override
    protected void restoreConnection(CoordinationStore store) throws Exception {
        server.restart();
        await().atMost(Duration.ofSeconds(30)).until(store::isConnected);
        operator.blockUntilConnected();
    }

    @Override
    protected void setOffsetByHand(String path, long offset) throws Exception {
        put(path, Long.toString(offset));
    }

    @Override
    protected void writeByHand(String path, String text) throws Exception {
        put(path, text);
    }

    @Override
    protected byte[] readByHand(String path) throws Exception {
        return operator.getData().forPath(path);
    }

    @Override
    protected void writeGarbageByHand(String path) throws Exception {
        put(path, "{offset: oops");
    }

    @Override
    protected void deleteByHand(String path) throws Exception {
        operator.delete().forPath(path);
    }

    @Override
    protected void writeTargetByHand(String path, long generation, Set<TopicPartition> partitions) throws Exception {
        Map<String, String> byTopic = new TreeMap<>(partitions.stream()
                .collect(Collectors.groupingBy(
                        TopicPartition::topic,
                        Collectors.mapping(
                                tp -> Integer.toString(tp.partition()), Collectors.joining(",", "[", "]")))));
        String body = byTopic.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":" + e.getValue())
                .collect(Collectors.joining(
                        ",", "{\"generation\":" + generation + ",\"partitions\":{", "},\"static\":false}"));
        put(path, body);
    }

    private static void put(String path, String text) throws Exception {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        if (operator.checkExists().forPath(path) == null) {
            operator.create().creatingParentsIfNeeded().forPath(path, data);
        } else {
            operator.setData().forPath(path, data);
        }
    }
}

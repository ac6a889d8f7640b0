package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.fixtures.Keepers;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The transactional mode with a member cut off from ZooKeeper while another member, in another session on other
 * servers of the ensemble, owns its partition: the real servers (a 3-node ZooKeeper ensemble, the in-process broker).
 */
class TransactionalDoubtIT extends KafkaTestSupport {

    /**
     * a's only ZooKeeper server is killed while a holds 100..149's outputs in an open transaction, and a has not heard
     * yet (its connection events are held: what a process paused by GC or SIGSTOP sees when it resumes). a's session
     * ends; b, on the other two servers, owns the partition and holds the same inputs' outputs in its own open
     * transaction. a's commit points then find a's producer fenced and its own view still saying it owns the
     * partition: none of them may claim it (each initTransactions() would bump the epoch and abort b's transaction).
     */
    @Test
    void aMemberCutOffFromZooKeeperDoesNotFenceTheOwnerOfItsPartition() throws Exception {
        TestingCluster cluster = new TestingCluster(3);
        toClose.add(cluster); // closed last (toClose closes last-opened first)
        cluster.start();
        List<InstanceSpec> specs = new ArrayList<>(cluster.getInstances());
        InstanceSpec aServer = specs.get(0);
        CountDownLatch hear = new CountDownLatch(1);
        toClose.add(() -> cluster.restartServer(aServer)); // then a reconnects and closes
        toClose.add(hear::countDown);
        ZooKeeperStore aStore = ZooKeeperStore.builder()
                .connectString(aServer.getConnectString())
                .sessionTimeout(SESSION_TIMEOUT)
                .build();
        aStore.addConnectionListener(
                event -> { // the first listener: the member and the adapter hear after it
                    if (!event.isConnected()) {
                        try {
                            hear.await(2, TimeUnit.MINUTES);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
        GroupKeeper aKeeper = Keepers.started(aStore, toClose);
        String bConnect = specs.get(1).getConnectString() + "," + specs.get(2).getConnectString();
        GroupKeeper bKeeper = Keepers.started(
                ZooKeeperStore.builder()
                        .connectString(bConnect)
                        .sessionTimeout(SESSION_TIMEOUT)
                        .build(),
                toClose);

        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        String transactionalId = "groupkeeper/" + group + "/" + in + "/0";
        produce(in, 1, 100);
        CoordinatedConsumer<String, String> a = txConsumer(aKeeper, group, in).build();
        toClose.add(a);
        a.start();
        TransactionalIT.consumeAndSend(a, out, 100);
        a.commitSync();
        TransactionalIT.awaitKafkaOffset(group, in, 0, 100);
        produce(in, 1, 50);
        assertThat(TransactionalIT.consumeAndSend(a, out, 50)).isEqualTo(100); // a's transaction open from 100

        assertThat(cluster.killServer(aServer)).isTrue();
        awaitDisconnected(aStore);
        endSession(aStore, bConnect); // now, as its expiry would end it
        CoordinatedConsumer<String, String> b = txConsumer(bKeeper, group, in).build();
        toClose.add(b);
        b.start(); // owns the partition: a's session has ended
        assertThat(TransactionalIT.consumeAndSend(b, out, 50))
                .as("where b starts")
                .isEqualTo(100);
        int epoch = producerEpoch(transactionalId); // b's transaction is open from 100

        for (int commitPoint = 0; commitPoint < 3; commitPoint++) {
            try {
                a.commitSync(); // fenced by b's claim; a's view still says it owns the partition
            } catch (RuntimeException e) {
                // ZooKeeper is out of reach: the store's part of the commit fails
            }
        }
        assertThat(producerEpoch(transactionalId))
                .as("the producer epoch of " + transactionalId)
                .isEqualTo(epoch);

        b.commitSync(); // b's transaction was not aborted: it commits
        TransactionalIT.awaitKafkaOffset(group, in, 0, 150);
        Map<String, Integer> seen = TransactionalIT.readCommitted(out, 150);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(TransactionalIT.inputs(1, 150));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
        hear.countDown(); // a hears of its loss now, and closes without retrying a release it cannot make
    }

    /**
     * Ends {@code store}'s session on the servers of {@code connectString}, as its expiry would: another handle joins
     * the session (its id and password) and closes it. The store's own client is not told.
     */
    private static void endSession(ZooKeeperStore store, String connectString) throws Exception {
        ZooKeeper own = store.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper other = new ZooKeeper(
                connectString,
                (int) SESSION_TIMEOUT.toMillis(),
                event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                },
                own.getSessionId(),
                own.getSessionPasswd());
        try {
            assertThat(connected.await(30, TimeUnit.SECONDS))
                    .as("joined the session")
                    .isTrue();
        } finally {
            other.close();
        }
    }

    private static CoordinatedConsumer.Builder<String, String> txConsumer(GroupKeeper keeper, String group, String in) {
        return consumer(keeper, group, in)
                .startPosition(StartPosition.earliest())
                .commitInterval(Duration.ofMinutes(5))
                .transactional(new StringSerializer(), new StringSerializer());
    }

    /**
     * Waits until {@code store}'s client knows its only server is gone. It should within the read timeout (two thirds of
     * the session timeout) of the kill, or at once when the server closes the socket; if not, the ZooKeeper client's
     * threads say what held it (its event thread runs Curator's connection state and every watcher).
     */
    private static void awaitDisconnected(ZooKeeperStore store) {
        try {
            await().atMost(WAIT).until(() -> !store.isConnected());
        } catch (ConditionTimeoutException e) {
            StringBuilder threads = new StringBuilder();
            Thread.getAllStackTraces().forEach((t, stack) -> {
                String name = t.getName();
                if (name.contains("EventThread") || name.contains("SendThread") || name.contains("ConnectionState")) {
                    threads.append(name).append(' ').append(t.getState()).append('\n');
                    for (StackTraceElement frame : stack) {
                        threads.append("    at ").append(frame).append('\n');
                    }
                }
            });
            throw new AssertionError(
                    "the store still says connected " + WAIT
                            + " after its only server was killed; its client's threads:\n" + threads,
                    e);
        }
    }

    /** The producer epoch the transaction coordinator holds for {@code transactionalId}. */
    private static int producerEpoch(String transactionalId) throws Exception {
        return admin.describeTransactions(List.of(transactionalId))
                .description(transactionalId)
                .get(20, TimeUnit.SECONDS)
                .producerEpoch();
    }
}

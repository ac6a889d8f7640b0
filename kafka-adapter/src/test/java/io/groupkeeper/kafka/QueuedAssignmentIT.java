package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.internal.AdapterConfig;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * An assignment the polling thread serves after the member changed what it knows of the claim (the assignment waits
 * in the adapter's queue while the user's thread is away from {@code poll()}), against in-process ZooKeeper and Kafka.
 */
class QueuedAssignmentIT extends KafkaTestSupport {

    /**
     * Issue 44 (simulator seed 1001524, at least once): an offsets-changed event of the partition's earlier claim is
     * queued (a hand edit to 5); the session ends and the member claims the partition again, reading 5 (the assignment
     * queued); the operator deletes the offset node. The polling thread serves the earlier claim's event first: its
     * refresh adopts the deletion for the claim the member holds now, and the earlier claim's positions drop it. The
     * queued assignment then started from the announced 5 ({@code GroupMember.seenOffset} was empty both for "nothing
     * seen" and "seen deleted"), and its next commit wrote its positions over the fresh start: records 0..4 never
     * processed again. It must start afresh, at the start position (earliest: 0).
     */
    @Test
    void aDeletionAdoptedBeforeAQueuedAssignmentIsServedStartsItAfresh() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> records = produce(topic, 1, 10);
        GroupKeeper k = newKeeper();
        List<String> enqueued = new CopyOnWriteArrayList<>();
        DefaultCoordinatedConsumer<String, String> c = new DefaultCoordinatedConsumer<>(
                new AdapterConfig<>(
                        k,
                        group,
                        Set.of(topic),
                        Map.of("bootstrap.servers", servers.bootstrapServers()),
                        new StringDeserializer(),
                        new StringDeserializer(),
                        Duration.ofHours(1),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(10),
                        StartPosition.earliest(),
                        OutOfRangePolicy.EARLIEST,
                        new ConsumerRebalanceListener() {
                            @Override
                            public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {}

                            @Override
                            public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {}
                        },
                        null,
                        mb -> {},
                        null,
                        null,
                        new KafkaClientListener() {}),
                new EventsSeen(enqueued));
        toClose.add(c);
        c.start();
        TopicPartition tp = new TopicPartition(topic, 0);
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() == 10;
        });
        c.commitSync();
        assertThat(storedOffset(group, topic, 0)).hasValue(10);
        OptionalLong firstClaim = c.fencingToken(tp);

        // From here the test thread stays away from poll(): what happens is queued for it.
        enqueued.clear();
        handEdit(group, topic, 0, 5);
        await().atMost(WAIT).until(() -> enqueued.contains("onOffsetsChanged"));
        expireSession((ZooKeeperStore) k.store());
        await().atMost(WAIT)
                .until(() -> enqueued.indexOf("onPartitionsAssigned") > enqueued.indexOf("onPartitionsLost")
                        && enqueued.contains("onPartitionsLost"));
        assertThat(c.fencingToken(tp)).as("claimed again").isNotEqualTo(firstClaim);
        zk.curator().delete().forPath(ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(topic, 0)));

        List<ConsumerRecord<String, String>> after = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(after::add);
            return after.size() >= 5; // (from the announced 5 there are 5 records, from 0 ten)
        });
        assertThat(after)
                .extracting(ConsumerRecord::offset)
                .as("a fresh start at the log start, not the announced 5")
                .startsWith(0L, 1L, 2L);
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(after::add);
            return after.size() >= 10;
        });
        assertThat(after.subList(0, 10)).extracting(ConsumerRecord::value).isEqualTo(records);
        c.commitSync();
        assertThat(storedOffset(group, topic, 0)).hasValue(10);
    }

    private static void expireSession(ZooKeeperStore store) throws Exception {
        org.apache.zookeeper.ZooKeeper client =
                store.curator().getZookeeperClient().getZooKeeper();
        org.apache.zookeeper.ZooKeeper imposter = new org.apache.zookeeper.ZooKeeper(
                servers.zkConnectString(), 10_000, e -> {}, client.getSessionId(), client.getSessionPasswd());
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }

    /**
     * The real clients, whose consumer notes which of the adapter's queue's entries each {@code wakeup()} announced
     * (the queue wakes the polling thread for every event it takes: the name of the member's callback that queued it).
     */
    private static final class EventsSeen extends ForwardingKafkaClients {

        private final List<String> enqueued;

        EventsSeen(List<String> enqueued) {
            this.enqueued = enqueued;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <K, V> Consumer<K, V> consumer(
                Map<String, Object> properties, Deserializer<K> keys, Deserializer<V> values) {
            Consumer<K, V> real = REAL.consumer(properties, keys, values);
            return (Consumer<K, V>) Proxy.newProxyInstance(
                    Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                        if (method.getName().equals("wakeup")) {
                            StackWalker.getInstance()
                                    .walk(s -> s.filter(f -> f.getClassName().endsWith(".LaneBridge"))
                                            .map(StackWalker.StackFrame::getMethodName)
                                            .filter(n -> n.startsWith("on") || n.equals("stateChanged"))
                                            .findFirst())
                                    .ifPresent(enqueued::add);
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}

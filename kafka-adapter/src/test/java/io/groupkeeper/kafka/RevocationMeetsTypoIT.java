package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.kafka.ConsumerWorker.Delivery;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A revocation whose commit meets an operator's typo in the offset node (the node no longer parses): the member stops
 * the partition without writing over the node, and must still hand it over, so that the heir takes the operator's
 * repair up. On real ZooKeeper and Kafka.
 */
class RevocationMeetsTypoIT extends KafkaTestSupport {

    /**
     * {@code a} owns both partitions with records received and not committed; {@code b} joins and one partition is
     * revoked from {@code a}; in the revocation an operator's typo lands on that partition's offset node and {@code a}'s
     * {@code commitSync()} meets it. The operator repairs the node; {@code b} then owns the partition and consumes from
     * the repaired offset on. (Before the fix {@code a} kept the stopped partition's owner node: the step that revoked it
     * released only partitions still being revoked, and nothing released it later, so {@code b} waited for ever.)
     */
    @Test
    void aRevokedPartitionWhoseCommitMetATypoIsHandedOverAndTheRepairTakenUp() throws Exception {
        String topic = newTopic(2);
        String group = newName("typo-revoked");
        produce(topic, 2, 40);
        AtomicReference<CoordinatedConsumer<String, String>> self = new AtomicReference<>();
        List<TopicPartition> revoked = new CopyOnWriteArrayList<>();
        CoordinatedConsumer<String, String> a = consumer(newKeeper(), group, topic)
                .startPosition(StartPosition.earliest())
                .commitInterval(
                        Duration.ofHours(1)) // nothing committed but the start: the revocation's commit is the one
                .revocationTimeout(Duration.ofSeconds(30))
                .kafkaProperty("max.poll.records", 5)
                .listener(new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!revoked.isEmpty() || partitions.isEmpty()) {
                            return; // (the close's revocation at the end)
                        }
                        for (TopicPartition tp : partitions) {
                            typo(group, tp); // the operator's typo lands while the partition is being revoked
                        }
                        revoked.addAll(partitions);
                        self.get().commitSync(); // the usual commit on revocation: it meets the typo
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        // (Kafka's default calls onPartitionsRevoked: the commit that met the typo drops it as lost)
                    }
                })
                .build();
        self.set(a);
        toClose.add(a);
        a.start();
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            a.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.stream().map(ConsumerRecord::partition).distinct().count() == 2;
        });

        Deliveries d = new Deliveries();
        ConsumerWorker b = new ConsumerWorker(
                "b",
                consumer(newKeeper(), group, topic)
                        .startPosition(StartPosition.earliest())
                        .listener(d.listenerFor("b"))
                        .build(),
                d);
        toClose.add(b);
        b.start();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            a.poll(Duration.ofMillis(100));
            return !revoked.isEmpty();
        });
        assertThat(revoked).hasSize(1);
        TopicPartition moved = revoked.get(0);
        assertThat(a.assignment()).as("a keeps the other partition").hasSize(1).doesNotContain(moved);

        long repairedTo = 7; // the operator meant 7: the heir starts there
        handEdit(group, topic, moved.partition(), repairedTo);
        List<String> after = produce(topic, 2, 20); // round robin: record i goes to partition i % 2
        List<String> afterOfMoved = java.util.stream.IntStream.range(0, after.size())
                .filter(i -> i % 2 == moved.partition())
                .mapToObj(after::get)
                .toList();
        await().atMost(WAIT).pollInSameThread().untilAsserted(() -> {
            a.poll(Duration.ofMillis(100)); // a keeps polling, as an application would
            assertThat(b.consumer.assignment())
                    .as("the heir owns the revoked partition")
                    .containsExactly(moved);
            assertThat(d.values()).containsAll(afterOfMoved);
        });
        List<Delivery> ofMoved = d.of("b").stream()
                .filter(x -> x.partition() == moved.partition())
                .toList();
        assertThat(ofMoved.get(0).offset())
                .as("the heir starts from the operator's repair")
                .isEqualTo(repairedTo);
        assertThat(ofMoved)
                .extracting(Delivery::offset)
                .as("from the repair to the log end, once each")
                .containsExactlyElementsOf(java.util.stream.LongStream.range(repairedTo, 30)
                        .boxed()
                        .toList());
        await().atMost(WAIT).pollInSameThread().untilAsserted(() -> {
            a.poll(Duration.ofMillis(100));
            assertThat(storedOffset(group, topic, moved.partition()))
                    .as("the heir's commits follow the repair")
                    .hasValue(30);
        });
    }

    private static void typo(String group, TopicPartition tp) {
        String path = ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition()));
        try {
            zk.curator().setData().forPath(path, "1200O".getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException("typo in " + path + " failed", e);
        }
    }
}

package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The core scenario, against any ZooKeeper + Kafka: group A (two consumers) splits a 3-partition topic, group B gets
 * every record too; then a member of A leaves gracefully while records flow, and A neither loses nor repeats any.
 * Run on the in-process servers and on containers.
 */
final class CoreScenario {

    private CoreScenario() {}

    static void run(String zkConnect, String bootstrap) throws Exception {
        String topic = "core-" + System.nanoTime();
        List<AutoCloseable> open = new ArrayList<>();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        KafkaTestSupport.producerConfig(bootstrap), new StringSerializer(), new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
            Map<TopicPartition, OffsetSpec> query = new HashMap<>();
            for (int p = 0; p < 3; p++) {
                query.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> admin.listOffsets(query).all().get().size() == 3);
            Deliveries inA = new Deliveries();
            Deliveries inB = new Deliveries();
            ConsumerWorker a1 = start("a1", zkConnect, bootstrap, "A-" + topic, topic, inA, open);
            ConsumerWorker a2 = start("a2", zkConnect, bootstrap, "A-" + topic, topic, inA, open);
            ConsumerWorker b1 = start("b1", zkConnect, bootstrap, "B-" + topic, topic, inB, open);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> a1.consumer.assignment().size()
                                            + a2.consumer.assignment().size()
                                    == 3
                            && b1.consumer.assignment().size() == 3);

            List<String> produced = new ArrayList<>(produce(producer, topic, 0, 150));
            await().atMost(Duration.ofSeconds(60)).until(() -> inA.all.size() >= 150 && inB.all.size() >= 150);
            assertThat(inA.values()).containsExactlyInAnyOrderElementsOf(produced);
            assertThat(inB.values()).containsExactlyInAnyOrderElementsOf(produced);
            assertThat(inA.of("a1")).isNotEmpty();
            assertThat(inA.of("a2")).isNotEmpty();

            Thread more = new Thread(() -> produced.addAll(produce(producer, topic, 150, 300)));
            more.start();
            a1.stop();
            more.join();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> inA.all.size() >= produced.size() && inB.all.size() >= produced.size());
            assertThat(inA.duplicates()).isEmpty();
            assertThat(inA.values()).containsExactlyInAnyOrderElementsOf(produced);
            assertThat(inB.values()).containsExactlyInAnyOrderElementsOf(produced);
            assertThat(inA.overlaps).isEmpty();
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    private static ConsumerWorker start(
            String name,
            String zk,
            String bootstrap,
            String group,
            String topic,
            Deliveries d,
            List<AutoCloseable> open) {
        GroupKeeper keeper = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(zk)
                        .sessionTimeout(Duration.ofSeconds(6))
                        .build())
                .build()
                .start();
        open.add(keeper);
        ConsumerWorker w = new ConsumerWorker(
                name,
                CoordinatedConsumer.<String, String>builder(keeper)
                        .group(group)
                        .topics(topic)
                        .kafkaProperty("bootstrap.servers", bootstrap)
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .listener(d.listenerFor(name))
                        .build(),
                d);
        open.add(w);
        return w.start();
    }

    private static List<String> produce(KafkaProducer<String, String> producer, String topic, int from, int to) {
        List<String> values = new ArrayList<>();
        List<Future<?>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            String v = topic + "#" + i;
            values.add(v);
            sent.add(producer.send(new ProducerRecord<>(topic, i % 3, "k" + i, v)));
        }
        try {
            for (Future<?> f : sent) {
                f.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return values;
    }
}

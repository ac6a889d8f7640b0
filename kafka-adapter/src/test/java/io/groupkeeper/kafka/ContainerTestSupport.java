package io.groupkeeper.kafka;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Container tests: a builder on the embedded servers, and a reader of dead-letter topics. */
abstract class ContainerTestSupport extends KafkaTestSupport {

    /** String deserializers, earliest start, short commit interval, a producer that suits the single broker. */
    static ListenerContainerBuilder<String, String> container(GroupKeeper keeper, String group, String... topics) {
        return ListenerContainer.<String, String>builder(keeper)
                .group(group)
                .topics(topics)
                .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .deadLetterProducerProperty("acks", "1")
                .deadLetterProducerProperty("enable.idempotence", "false")
                .createDeadLetterTopics(true)
                .pollTimeout(Duration.ofMillis(200))
                .consumerOptions(b -> b.startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .metadataRefreshInterval(Duration.ofMillis(500)));
    }

    <C extends ListenerContainer<?, ?>> C started(C container) {
        toClose.add(container);
        container.start();
        return container;
    }

    /** Reads {@code count} records of a topic from the beginning (all partitions). */
    static List<ConsumerRecord<String, String>> readAll(String topic, int count) {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", servers.bootstrapServers()),
                new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(10))
                    .forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            await().atMost(WAIT).pollInSameThread().until(() -> {
                c.poll(Duration.ofMillis(100)).forEach(out::add);
                return out.size() >= count;
            });
            return out;
        }
    }

    /** Sends each value, in order, to one partition (key {@code k-<value>}), each acknowledged before the next. */
    static void send(String topic, int partition, String... values) throws Exception {
        for (String value : values) {
            producer.send(new ProducerRecord<>(topic, partition, "k-" + value, value))
                    .get();
        }
    }

    /** Whether the partition's owner node exists in ZooKeeper (a member owns it right now). */
    static boolean ownerExists(String group, String topic, int partition) throws Exception {
        return zk.curator()
                        .checkExists()
                        .forPath(ZkPaths.owner(group, io.groupkeeper.TopicPartition.of(topic, partition)))
                != null;
    }

    static String header(ConsumerRecord<?, ?> r, String key) {
        var h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    static void awaitStored(String group, String topic, int partition, long offset) {
        await().atMost(WAIT).until(() -> storedOffset(group, topic, partition).equals(OptionalLong.of(offset)));
    }

    /** Values handled, in order, from any thread. */
    static final class Seen {
        final ConcurrentLinkedQueue<ConsumerRecord<String, String>> records = new ConcurrentLinkedQueue<>();

        List<String> values() {
            List<String> out = new ArrayList<>();
            records.forEach(r -> out.add(r.value()));
            return out;
        }

        long count(String value) {
            return records.stream().filter(r -> value.equals(r.value())).count();
        }
    }
}

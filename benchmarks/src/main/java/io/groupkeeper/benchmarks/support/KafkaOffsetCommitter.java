package io.groupkeeper.benchmarks.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Kafka side of the commit comparisons: a {@code KafkaConsumer} of {@code group.id} that {@code assign()}ed a
 * range of partitions (no group membership, so no generation fencing: Kafka's simplest commit path) and
 * {@code commitSync}s batches of them, each at the next offset. Not thread-safe: one thread per committer.
 */
public final class KafkaOffsetCommitter implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private long offset;

    /** {@code clientProperties}: the broker's client properties ({@code bootstrap.servers}). */
    public KafkaOffsetCommitter(
            Map<String, Object> clientProperties, String groupId, String topic, int first, int count) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        consumer = new KafkaConsumer<>(props);
        for (int p = first; p < first + count; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        consumer.assign(partitions);
    }

    /** Commits the next offset of {@code n} of the assigned partitions, starting at index {@code from} (wrapping). */
    public void commit(int from, int n) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        offset++;
        for (int i = 0; i < n; i++) {
            offsets.put(partitions.get((from + i) % partitions.size()), new OffsetAndMetadata(offset));
        }
        consumer.commitSync(offsets);
    }

    @Override
    public void close() {
        consumer.close();
    }
}

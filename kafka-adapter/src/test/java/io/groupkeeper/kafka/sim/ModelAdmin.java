package io.groupkeeper.kafka.sim;

import io.groupkeeper.kafka.internal.KafkaAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;

/**
 * The adapter's Admin calls on the {@link KafkaModel}: topic descriptions, and a group's offsets read with
 * {@code requireStable}: the committed ones; an open transaction's pending offsets are not seen (what the broker
 * answers, {@code KafkaModelContractIT}). The offsets read takes a round trip, and may time out.
 */
public final class ModelAdmin implements KafkaAdmin {

    private final KafkaModel kafka;

    public ModelAdmin(KafkaModel kafka) {
        this.kafka = kafka;
    }

    @Override
    public Map<String, KafkaFuture<TopicDescription>> describeTopics(Collection<String> topics, Duration timeout) {
        Map<String, KafkaFuture<TopicDescription>> out = new HashMap<>();
        Node leader = new Node(1, "model", 9092);
        for (String topic : topics) {
            int n = kafka.partitions(topic).orElse(-1);
            if (n < 0) {
                out.put(topic, failed(new UnknownTopicOrPartitionException("model: no topic " + topic)));
                continue;
            }
            List<TopicPartitionInfo> parts = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                parts.add(new TopicPartitionInfo(p, leader, List.of(leader), List.of(leader)));
            }
            out.put(topic, KafkaFuture.completedFuture(new TopicDescription(topic, false, parts)));
        }
        return out;
    }

    @Override
    public KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> stableGroupOffsets(
            String group, Collection<TopicPartition> partitions) {
        kafka.roundTrip();
        if (kafka.timesOutBeforeLanding()) {
            return failed(new TimeoutException("model: listing the offsets of group " + group + " timed out"));
        }
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TopicPartition tp : partitions) {
            kafka.committed(group, tp).ifPresent(o -> out.put(tp, o));
        }
        return KafkaFuture.completedFuture(out);
    }

    @Override
    public KafkaFuture<java.util.Set<String>> listTopicNames() {
        kafka.roundTrip();
        return KafkaFuture.completedFuture(kafka.topicNames());
    }

    @Override
    public KafkaFuture<Void> createTopics(Collection<org.apache.kafka.clients.admin.NewTopic> topics) {
        kafka.roundTrip();
        for (org.apache.kafka.clients.admin.NewTopic t : topics) {
            if (kafka.partitions(t.name()).isPresent()) {
                return failed(new org.apache.kafka.common.errors.TopicExistsException(
                        "model: topic " + t.name() + " exists"));
            }
        }
        topics.forEach(t -> kafka.createTopic(t.name(), t.numPartitions() > 0 ? t.numPartitions() : 1));
        return KafkaFuture.completedFuture(null);
    }

    private static <T> KafkaFuture<T> failed(Throwable e) {
        KafkaFutureImpl<T> f = new KafkaFutureImpl<>();
        f.completeExceptionally(e);
        return f;
    }

    @Override
    public void close(Duration timeout) {}
}

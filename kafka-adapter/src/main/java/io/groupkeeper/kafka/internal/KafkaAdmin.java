package io.groupkeeper.kafka.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The Admin calls the adapter makes ({@link KafkaClients#admin}): the topics' descriptions (partition counts, replica
 * racks) and a group's committed offsets with {@code requireStable} (the transactional claim). The real one creates
 * its {@code Admin} client at the first call.
 */
public interface KafkaAdmin extends AutoCloseable {

    /** {@code Admin.describeTopics(topics).topicNameValues()}, each future failing as Kafka's does. */
    Map<String, KafkaFuture<TopicDescription>> describeTopics(Collection<String> topics, Duration timeout);

    /**
     * {@code group}'s committed offsets of {@code partitions}, stable: the request waits (retries) while a transaction
     * that writes one of them is open. Partitions without an offset are absent or map to null.
     */
    KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> stableGroupOffsets(
            String group, Collection<TopicPartition> partitions);

    /** {@code Admin.listTopics().names()} (the container's check of its dead-letter topics). */
    KafkaFuture<Set<String>> listTopicNames();

    /** {@code Admin.createTopics(topics).all()} (the container's dead-letter topics). */
    KafkaFuture<Void> createTopics(Collection<NewTopic> topics);

    void close(Duration timeout);

    @Override
    default void close() {
        close(Duration.ofSeconds(5));
    }

    /** The real Admin client with {@code properties}, created at the first call. */
    static KafkaAdmin real(Map<String, Object> properties) {
        return new KafkaAdmin() {
            private Admin admin;
            /** Closed for good, as a closed {@code Admin} is: a call after close fails at once, never makes another. */
            private boolean closed;

            private synchronized Admin admin() {
                if (closed) {
                    throw new IllegalStateException("the admin client was closed");
                }
                if (admin == null) {
                    admin = Admin.create(properties);
                }
                return admin;
            }

            @Override
            public Map<String, KafkaFuture<TopicDescription>> describeTopics(
                    Collection<String> topics, Duration timeout) {
                return admin().describeTopics(topics, new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis()))
                        .topicNameValues();
            }

            @Override
            public KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> stableGroupOffsets(
                    String group, Collection<TopicPartition> partitions) {
                return admin().listConsumerGroupOffsets(
                                Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(partitions)),
                                new ListConsumerGroupOffsetsOptions().requireStable(true))
                        .partitionsToOffsetAndMetadata(group);
            }

            @Override
            public KafkaFuture<Set<String>> listTopicNames() {
                return admin().listTopics().names();
            }

            @Override
            public KafkaFuture<Void> createTopics(Collection<NewTopic> topics) {
                return admin().createTopics(topics).all();
            }

            @Override
            public synchronized void close(Duration timeout) {
                closed = true;
                if (admin != null) {
                    admin.close(timeout);
                    admin = null;
                }
            }
        };
    }
}

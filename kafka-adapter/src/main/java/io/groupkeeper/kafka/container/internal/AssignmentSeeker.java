package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.internal.ClientProperties;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * A worker's consumers' rebalance listener when the container has an {@link AssignmentHook}: runs it on the polling
 * thread for gained partitions, with a seeker that moves their positions there and then (a timestamp through Kafka's
 * Admin {@code listOffsets}, opened on first use and closed with the worker).
 */
final class AssignmentSeeker implements ConsumerRebalanceListener, AssignmentHook.Seeker, AutoCloseable {

    private final AssignmentHook hook;
    private final Map<String, Object> kafkaProperties;
    private volatile CoordinatedConsumer<ByteBuffer, ByteBuffer> consumer;
    private Admin admin;

    AssignmentSeeker(AssignmentHook hook, Map<String, Object> kafkaProperties) {
        this.hook = hook;
        this.kafkaProperties = kafkaProperties;
    }

    void bind(CoordinatedConsumer<ByteBuffer, ByteBuffer> consumer) {
        this.consumer = consumer;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        try {
            hook.assigned(partitions, this);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the container's assignment hook failed for " + partitions + ": " + e, e);
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    }

    @Override
    public void seek(TopicPartition partition, long offset) {
        consumer.seek(partition, offset);
    }

    @Override
    public void seekToTimestamp(TopicPartition partition, long timestampMillis) {
        if (admin == null) {
            admin = Admin.create(ClientProperties.forAdmin(kafkaProperties));
        }
        long offset;
        try {
            offset = admin.listOffsets(Map.of(partition, OffsetSpec.forTimestamp(timestampMillis))).partitionResult(
                    partition).get(30, TimeUnit.SECONDS).offset();
            if (offset < 0) { // no record at or after it: the log end
                offset = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                        .get(30, TimeUnit.SECONDS).offset();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("seek of " + partition + " to time " + timestampMillis + " interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("seek of " + partition + " to time " + timestampMillis + ": Kafka did not answer "
                    + "the offset for that time: " + e, e);
        }
        consumer.seek(partition, offset);
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(5));
        }
    }
}

package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetsAdoptedListener;
import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.internal.ClientProperties;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * A worker's consumer's rebalance listener: keeps the fencing token of each claim served to the worker (taken when the
 * claim is served, on the polling thread, before the partition's first fetch: the token every record fetched under that
 * claim carries into its handler call), runs the container's {@link AssignmentHook} (if any) for gained partitions with
 * a seeker that moves their positions there and then (a timestamp through Kafka's Admin {@code listOffsets}, opened on
 * first use and closed with the worker), and passes adopted external offset changes to the worker.
 */
final class AssignmentSeeker implements OffsetsAdoptedListener, AssignmentHook.Seeker, AutoCloseable {

    /** Null: no hook. */
    private final AssignmentHook hook;

    private final Map<String, Object> kafkaProperties;
    private final Consumer<Map<TopicPartition, OptionalLong>> adopted;
    private volatile CoordinatedConsumer<ByteBuffer, ByteBuffer> consumer;
    private Admin admin;
    /**
     * The worker's per-partition progress, told of gained (a new claim starts afresh), revoked (drained before the
     * final commit) and lost partitions; null on the one-call-at-a-time path.
     */
    private Ownership ownership;

    /** What the worker's progress does when ownership changes (polling thread, inside a poll). */
    interface Ownership {
        void assigned(Collection<TopicPartition> partitions);

        void revoking(Collection<TopicPartition> partitions);

        void lost(Collection<TopicPartition> partitions);
    }

    void ownership(Ownership ownership) {
        this.ownership = ownership;
    }

    /** The token of each owned partition's claim, as served to this worker (polling thread only). */
    private final Map<TopicPartition, OptionalLong> tokens = new HashMap<>();

    AssignmentSeeker(
            AssignmentHook hook,
            Map<String, Object> kafkaProperties,
            Consumer<Map<TopicPartition, OptionalLong>> adopted) {
        this.hook = hook;
        this.kafkaProperties = kafkaProperties;
        this.adopted = adopted;
    }

    void bind(CoordinatedConsumer<ByteBuffer, ByteBuffer> consumer) {
        this.consumer = consumer;
    }

    /**
     * The token of the claim under which the partition's records of the last poll were fetched (the claims change only
     * inside a poll, on this thread); empty when not owned.
     */
    OptionalLong token(TopicPartition partition) {
        OptionalLong t = tokens.get(partition);
        return t == null ? OptionalLong.empty() : t;
    }

    @Override
    public OptionalLong fencingToken(TopicPartition partition) {
        return token(partition);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            tokens.put(tp, consumer.fencingToken(tp)); // the claim just served (empty if already lost again)
        }
        if (ownership != null) {
            ownership.assigned(partitions);
        }
        if (hook == null) {
            return;
        }
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
        if (ownership != null) {
            ownership.revoking(partitions); // before the final commit, which follows this call
        }
        partitions.forEach(tokens::remove);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        if (ownership != null) {
            ownership.lost(partitions);
        }
        partitions.forEach(tokens::remove);
    }

    @Override
    public void onOffsetsAdopted(Map<TopicPartition, OptionalLong> offsets) {
        adopted.accept(offsets);
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
            offset = admin.listOffsets(Map.of(partition, OffsetSpec.forTimestamp(timestampMillis)))
                    .partitionResult(partition)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
            if (offset < 0) { // no record at or after it: the log end
                offset = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .partitionResult(partition)
                        .get(30, TimeUnit.SECONDS)
                        .offset();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("seek of " + partition + " to time " + timestampMillis + " interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException(
                    "seek of " + partition + " to time " + timestampMillis + ": Kafka did not answer "
                            + "the offset for that time: " + e,
                    e);
        }
        consumer.seek(partition, offset);
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}

package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Where the admin learns the extent of each partition's log: how many partitions a topic has, its first and
 * next-to-be-written offsets, and the offset for a point in time. Kept small and free of Kafka types so the ZooKeeper
 * admin stays Kafka-free; the CLI implements it with Kafka's {@code Admin.listOffsets}.
 *
 * <p>Every method takes a batch, answers for those partitions it knows and leaves the others out of the result
 * (an unknown topic is simply absent). Failures to reach the log are thrown as {@link AdminException}s with one
 * clear message.
 */
public interface LogBounds {

    /** Partition counts of those {@code topics} the log knows; unknown topics are absent. */
    Map<String, Integer> partitionCounts(Collection<String> topics);

    /** The first offset still in the log (log start) of each partition. */
    Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions);

    /** The offset the next record will get (log end; Kafka's "latest"). */
    Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions);

    /**
     * The offset of the first record whose timestamp is at or after {@code timestamp}; partitions with no such record
     * are absent (the caller uses the log end, as Kafka's own tools do).
     */
    Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, Instant timestamp);

    /**
     * For lag in seconds: the timestamp of the first <em>data</em> record at or after each given offset (the record a
     * consumer at that committed offset would process next). Per partition the answer is
     * <ul>
     *   <li>a timestamp: that record's;</li>
     *   <li>{@code Optional.empty()}: there is no data record at or after the offset — the consumer is caught up
     *   (also when the log end only lies past transaction markers, which are not records a consumer sees);</li>
     *   <li>absent from the map: unknown (not asked, not reachable, or not implemented: the default).</li>
     * </ul>
     * An offset below the log start is answered with the first record still in the log.
     */
    default Map<TopicPartition, Optional<Instant>> recordTimestamps(Map<TopicPartition, Long> offsets) {
        return Map.of();
    }

    /** For messages, e.g. {@code kafka://127.0.0.1:9092}. */
    String describe();
}

package io.groupkeeper.kafka.container;

import java.util.Collection;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Called on a worker's thread when its consumer gains partitions, before their first record is fetched (Spring Kafka's
 * {@code ConsumerSeekAware.onPartitionsAssigned}): the place to position a partition from the application's own
 * store — a database that keeps the next offset beside the data (docs/exactly-once.md) — or at a point in time. What
 * the hook throws is logged at ERROR by the consumer, and the partitions it did not seek start from their own
 * positions (the committed offset, else the start position): a sink must stay safe without its open (the
 * {@link io.groupkeeper.kafka.jdbc.FencedJdbcSink}'s write takes the partition's row with its token by itself).
 *
 * <p>The exactly-once pattern into a database opens the partition here with the claim's fencing token
 * ({@link Seeker#fencingToken}) and seeks to the offset the database holds; the handler then writes with
 * {@link HandlerContext#fencingToken()}, the same token, carried with the records fetched under that claim
 * ({@link io.groupkeeper.kafka.jdbc.FencedJdbcSink} does both steps).
 */
@FunctionalInterface
public interface AssignmentHook {

    void assigned(Collection<TopicPartition> partitions, Seeker seeker) throws Exception;

    /** Moves the position of a partition just assigned. */
    interface Seeker {

        /** The partition's next record is {@code offset}, and that is the position committed next. */
        void seek(TopicPartition partition, long offset);

        /**
         * The partition's next record is the first whose timestamp is at or after {@code timestampMillis}; the log
         * end if there is none (Kafka's {@code offsetsForTimes}).
         */
        void seekToTimestamp(TopicPartition partition, long timestampMillis);

        /**
         * The fencing token of this member's claim of a partition just assigned ({@code CoordinatedConsumer
         * .fencingToken}, the ZooKeeper transaction id of the claim), taken when the claim was served to this worker:
         * open a fencing sink with it before the first record is processed. Every record fetched under this claim
         * carries the same token into its handler call ({@link HandlerContext#fencingToken()}). Empty when the
         * partition was lost again before the hook ran.
         */
        OptionalLong fencingToken(TopicPartition partition);
    }
}

package io.groupkeeper.kafka.container;

import java.util.Collection;
import org.apache.kafka.common.TopicPartition;

/**
 * Called on a worker's thread when its consumer gains partitions, before their first record is fetched (Spring Kafka's
 * {@code ConsumerSeekAware.onPartitionsAssigned}): the place to position a partition from the application's own
 * store — a database that keeps the next offset beside the data (docs/exactly-once.md) — or at a point in time. A
 * hook that throws fails the worker (and so the container): a partition must not be consumed from a position the
 * application did not mean.
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
    }
}

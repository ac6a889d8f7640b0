package io.groupkeeper.spring;

import io.groupkeeper.kafka.container.AssignmentHook;
import java.util.Collection;
import org.apache.kafka.common.TopicPartition;

/**
 * Implemented by a bean with {@link GroupKeeperListener} methods to position partitions when a consumer of one of its
 * listeners gains them, before their first record is fetched (Spring Kafka's {@code ConsumerSeekAware}
 * {@code onPartitionsAssigned}): an offset the application keeps in its own store beside its data, or a point in time.
 * Called on the consumer's thread. An exception fails that consumer (the listener turns FAILED, health DOWN): a
 * partition must not be consumed from a position the application did not mean.
 */
public interface GroupKeeperSeekAware {

    /**
     * {@code partitions} were just assigned to a consumer of listener {@code listenerId}; {@code seeker.seek} or
     * {@code seeker.seekToTimestamp} positions them (the position set here is the one committed next).
     */
    void onPartitionsAssigned(String listenerId, Collection<TopicPartition> partitions, AssignmentHook.Seeker seeker)
            throws Exception;
}

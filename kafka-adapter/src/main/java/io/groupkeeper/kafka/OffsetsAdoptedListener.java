package io.groupkeeper.kafka;

import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * A rebalance listener ({@link CoordinatedConsumer.Builder#listener}) that also hears when the consumer adopted an
 * external change of the stored offset of a partition it owns — an operator's {@code groupkeeper offsets reset}, a hand
 * edit (I4). Called on the polling thread, inside {@code poll()} (or {@code commitSync()}), after the consumer moved its
 * position there: the partition's next fetched record is at the offset given. What it throws is logged, never thrown.
 */
public interface OffsetsAdoptedListener extends ConsumerRebalanceListener {

    /**
     * The stored offsets of these owned partitions were changed by someone else, and the consumer continues from them
     * (empty: the offset was removed, and the partition starts again from the start position).
     */
    void onOffsetsAdopted(Map<TopicPartition, OptionalLong> offsets);
}

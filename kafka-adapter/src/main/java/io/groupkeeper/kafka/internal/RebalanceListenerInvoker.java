package io.groupkeeper.kafka.internal;

import io.groupkeeper.kafka.OffsetsAdoptedListener;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the user's {@link ConsumerRebalanceListener} (if any) on the polling thread, as Kafka does; what it throws is
 * logged, never thrown (a failing callback must not stop the poll loop half way through a rebalance).
 */
final class RebalanceListenerInvoker {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);

    private final ConsumerRebalanceListener listener;
    private final String group;
    private final Supplier<String> memberId;

    /** {@code listener}: null for none. */
    RebalanceListenerInvoker(ConsumerRebalanceListener listener, String group, Supplier<String> memberId) {
        this.listener = listener;
        this.group = group;
        this.memberId = memberId;
    }

    void assigned(Collection<TopicPartition> partitions) {
        call("onPartitionsAssigned", l -> l.onPartitionsAssigned(partitions));
    }

    void revoked(Collection<TopicPartition> partitions) {
        call("onPartitionsRevoked", l -> l.onPartitionsRevoked(partitions));
    }

    void lost(Collection<TopicPartition> partitions) {
        call("onPartitionsLost", l -> l.onPartitionsLost(partitions));
    }

    /** An external offset change adopted (for an {@link io.groupkeeper.kafka.OffsetsAdoptedListener} only). */
    void adopted(Map<TopicPartition, OptionalLong> offsets) {
        if (listener instanceof OffsetsAdoptedListener a) {
            call("onOffsetsAdopted", l -> a.onOffsetsAdopted(offsets));
        }
    }

    private void call(String name, Consumer<ConsumerRebalanceListener> call) {
        if (listener == null) {
            return;
        }
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            LOG.error("rebalance listener {} threw; continuing", name, e);
        }
    }
}

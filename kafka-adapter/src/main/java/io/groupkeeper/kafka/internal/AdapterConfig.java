package io.groupkeeper.kafka.internal;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.serialization.Deserializer;

/** The validated options (a null {@code mirrorGroup}: no mirror to Kafka; a null {@code transactional}: not the transactional mode) of one {@link DefaultCoordinatedConsumer}; built by {@code CoordinatedConsumer.Builder}. */
public record AdapterConfig<K, V>(
        GroupKeeper keeper,
        String groupId,
        Set<String> topics,
        Map<String, Object> kafkaProperties,
        Deserializer<K> keyDeserializer,
        Deserializer<V> valueDeserializer,
        Duration commitInterval,
        Duration metadataRefreshInterval,
        Duration revocationTimeout,
        Duration kafkaTimeout,
        StartPosition startPosition,
        OutOfRangePolicy outOfRange,
        ConsumerRebalanceListener listener,
        String instanceId,
        Consumer<GroupKeeper.MemberBuilder> memberOptions,
        String mirrorGroup,
        TransactionalConfig transactional,
        KafkaClientListener clientListener) {

    /** Whether committed offsets are also written to Kafka's group offset store (under {@link #mirrorGroup}). */
    public boolean mirrors() {
        return mirrorGroup != null;
    }
}

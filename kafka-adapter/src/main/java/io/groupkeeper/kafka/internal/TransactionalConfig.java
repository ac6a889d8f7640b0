package io.groupkeeper.kafka.internal;

import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The transactional mode's options (see {@code CoordinatedConsumer.Builder#transactional}): the output serializers,
 * the prefix of the per-partition {@code transactional.id}s, and producer properties on top of the consumer's.
 */
public record TransactionalConfig(Serializer<?> keySerializer, Serializer<?> valueSerializer, String idPrefix,
                                  Map<String, Object> producerProperties) {

    /** The {@code transactional.id} of input partition {@code topic}/{@code partition} of {@code group}. */
    public String transactionalId(String group, String topic, int partition) {
        // '/' is valid in neither a Kafka topic nor a groupkeeper name, so the id is unambiguous.
        return idPrefix + group + "/" + topic + "/" + partition;
    }
}

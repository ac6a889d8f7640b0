package io.groupkeeper.kafka.internal;

import io.groupkeeper.spi.CoordinationStore;
import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The transactional mode's options (see {@code CoordinatedConsumer.Builder#transactional}): the output serializers,
 * the prefix of the per-partition {@code transactional.id}s, and producer properties on top of the consumer's.
 */
public record TransactionalConfig(
        Serializer<?> keySerializer,
        Serializer<?> valueSerializer,
        String idPrefix,
        Map<String, Object> producerProperties) {

    /**
     * The {@code transactional.id} of input partition {@code topic}/{@code partition} of {@code group} in the store's
     * {@code namespace}: {@code <prefix><group>/<topic>/<partition>} in the default namespace (the ids of deployments
     * before namespaces were part of them), {@code <prefix><namespace>/<group>/<topic>/<partition>} in any other.
     */
    public String transactionalId(String namespace, String group, String topic, int partition) {
        // '/' is valid in neither a Kafka topic nor a groupkeeper name, so read from the right the id is unambiguous:
        // partition, topic, group, and what is left the namespace (absent: the default one).
        return idPrefix + scoped(namespace, group) + "/" + topic + "/" + partition;
    }

    /**
     * The Kafka group that receives the transactional offsets of {@code group} in {@code namespace}: the group's name
     * in the default namespace, {@code <namespace>/<group>} in any other.
     */
    public static String kafkaGroup(String namespace, String group) {
        return scoped(namespace, group);
    }

    private static String scoped(String namespace, String group) {
        return CoordinationStore.DEFAULT_NAMESPACE.equals(namespace) ? group : namespace + "/" + group;
    }
}

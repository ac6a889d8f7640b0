package io.groupkeeper.kafka.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The share of a consumer's Kafka properties that the adapter's own producers and Admin clients take: what the other
 * client understands (bootstrap, security, SASL/SSL, timeouts, {@code client.rack}, metric reporters ...), never a key
 * whose value names consumer-side classes or identities. {@code interceptor.classes} is a producer key too, but a
 * consumer's value names {@code ConsumerInterceptor}s, which a producer's constructor refuses; {@code client.id} and
 * {@code transactional.id} are set by the caller.
 */
public final class ClientProperties {

    private static final Set<String> NEVER = Set.of(
            CommonClientConfigs.CLIENT_ID_CONFIG,
            ProducerConfig.INTERCEPTOR_CLASSES_CONFIG,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    private ClientProperties() {}

    /** For a producer: the producer's keys among {@code consumerProperties}, minus the consumer-only values above. */
    public static Map<String, Object> forProducer(Map<String, ?> consumerProperties) {
        return select(consumerProperties, ProducerConfig.configNames());
    }

    /** For an Admin client: the Admin's keys among {@code consumerProperties}, minus the client id. */
    public static Map<String, Object> forAdmin(Map<String, ?> consumerProperties) {
        return select(consumerProperties, AdminClientConfig.configNames());
    }

    private static Map<String, Object> select(Map<String, ?> properties, Set<String> known) {
        Map<String, Object> config = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (known.contains(k) && !NEVER.contains(k)) {
                config.put(k, v);
            }
        });
        return config;
    }
}

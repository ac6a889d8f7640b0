package io.groupkeeper.kafka.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The properties the {@code KafkaConsumer} runs with: the user's, untouched, except that the adapter commits
 * (never Kafka's auto-commit), positions every partition itself ({@code auto.offset.reset=none}, so an offset outside
 * the log surfaces and goes through the out-of-range policy), and names the client after group and member.
 */
final class ConsumerProperties {

    private ConsumerProperties() {}

    static Map<String, Object> of(AdapterConfig<?, ?> config, String memberId) {
        Map<String, Object> props = new LinkedHashMap<>(config.kafkaProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "groupkeeper-" + config.groupId() + "-" + memberId);
        return props;
    }

    /**
     * Parses them as the KafkaConsumer will (unknown types, bad values, missing keys), so a bad property fails before
     * the group sees a member come and go.
     */
    static void validate(AdapterConfig<?, ?> config) {
        Map<String, Object> props = of(config, "validation");
        if (config.keyDeserializer() != null) { // otherwise the properties must name one
            props.put(
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                    config.keyDeserializer().getClass());
        }
        if (config.valueDeserializer() != null) {
            props.put(
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    config.valueDeserializer().getClass());
        }
        ConsumerConfig.configDef().parse(props); // (a ConsumerConfig would also log every value at INFO)
    }
}

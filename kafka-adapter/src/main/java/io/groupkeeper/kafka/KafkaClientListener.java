package io.groupkeeper.kafka;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Told when a {@link CoordinatedConsumer} creates or closes a Kafka client of its own: its {@code KafkaConsumer}, and
 * in the transactional mode the producer of each owned input partition (Spring Kafka's {@code ConsumerFactory.Listener}
 * and {@code ProducerFactory.Listener}). The place to bind client metrics, e.g. Micrometer's {@code KafkaClientMetrics}
 * (the listener container's {@code MicrometerKafkaClientMetrics}). Called on the thread that creates or closes the
 * client; "removed" comes just before the client is closed. Every method a no-op by default; must not throw.
 */
public interface KafkaClientListener {

    KafkaClientListener NONE = new KafkaClientListener() {};

    default void consumerAdded(String clientId, Consumer<?, ?> consumer) {}

    default void consumerRemoved(String clientId, Consumer<?, ?> consumer) {}

    default void producerAdded(String clientId, Producer<?, ?> producer) {}

    default void producerRemoved(String clientId, Producer<?, ?> producer) {}
}

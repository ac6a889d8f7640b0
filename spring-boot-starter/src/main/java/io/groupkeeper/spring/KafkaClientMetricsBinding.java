package io.groupkeeper.spring;

import io.groupkeeper.kafka.KafkaClientListener;

/**
 * Binds a listener's Kafka clients to metrics: the starter's default (with a {@code MeterRegistry}) is Micrometer's
 * {@code KafkaClientMetrics} for every worker's consumer and the producers its container owns, tagged as Spring Kafka's
 * own {@code MicrometerConsumerListener}/{@code MicrometerProducerListener} tag a {@code KafkaTemplate}'s clients:
 * {@code spring.id} = {@code groupkeeper/<listener>/<group>/<client id>} beside Kafka's {@code client.id} and
 * {@code kafka.version} ({@code MicrometerKafkaClientMetrics.forContainer}), so both sets stay in one registry
 * ({@code /actuator/metrics/kafka.consumer.fetch.manager.records.consumed.total}). Define a bean of this type to
 * replace it.
 */
@FunctionalInterface
public interface KafkaClientMetricsBinding {

    KafkaClientListener forListener(String listenerId, String group);
}

package io.groupkeeper.spring;

import io.groupkeeper.kafka.KafkaClientListener;

/**
 * Binds a listener's Kafka clients to metrics: the starter's default (with a {@code MeterRegistry}) is Micrometer's
 * {@code KafkaClientMetrics} for every worker's consumer and the producers its container owns, tagged
 * {@code listener} and {@code group} ({@code /actuator/metrics/kafka.consumer.fetch.manager.records.consumed.total}).
 * Define a bean of this type to replace it.
 */
@FunctionalInterface
public interface KafkaClientMetricsBinding {

    KafkaClientListener forListener(String listenerId, String group);
}

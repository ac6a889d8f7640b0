package io.groupkeeper.kafka.container;

import org.apache.kafka.common.TopicPartition;

/** A partition stopped by {@link Recovery#STOP_PARTITION} (or a failed dead-letter send) at {@code offset}. */
public record StoppedPartition(TopicPartition partition, long offset, String reason) {}

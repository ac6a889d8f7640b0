package io.groupkeeper.kafka.violation;

/** Deliberate violation: the Kafka adapter (not a friend of core's store protocol) uses {@code spi.internal}. */
public class AdapterUsesStoreProtocol {
    io.groupkeeper.spi.internal.GroupStore store;
}

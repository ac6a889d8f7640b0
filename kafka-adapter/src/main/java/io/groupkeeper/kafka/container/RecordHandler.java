package io.groupkeeper.kafka.container;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Handles one record on a container's worker thread. Returning normally means the record is processed (its position is
 * committed with the next commit); throwing hands it to the container's {@link ErrorPolicy}.
 */
@FunctionalInterface
public interface RecordHandler<K, V> {
    void handle(ConsumerRecord<K, V> record) throws Exception;
}

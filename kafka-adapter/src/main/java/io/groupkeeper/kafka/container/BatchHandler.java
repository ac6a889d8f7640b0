package io.groupkeeper.kafka.container;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Handles the records of <b>one partition</b> fetched and not done yet (as a rule one fetch's, at most 500), in offset
 * order, on a container's worker thread.
 * Returning normally means every record of the batch is processed. Throwing hands the whole batch to the container's
 * {@link ErrorPolicy} (retried as a whole; then every record is dead-lettered or skipped, or the partition stops at the
 * batch's first record) unless the exception is a {@link BatchFailedException}, which names the record that failed:
 * the records before it count as processed, the policy applies to that record alone, and the records after it come
 * again as a new batch.
 */
@FunctionalInterface
public interface BatchHandler<K, V> {
    void handle(List<ConsumerRecord<K, V>> records) throws Exception;
}

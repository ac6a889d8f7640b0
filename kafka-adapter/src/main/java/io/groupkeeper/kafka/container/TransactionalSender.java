package io.groupkeeper.kafka.container;

import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The output of a handler in a transactional container ({@link ListenerContainerBuilder#transactional}): what it sends
 * here commits in one Kafka transaction with the position of the input partition being handled (exactly once into
 * Kafka, docs/exactly-once.md). The small part of Spring Kafka's {@code KafkaOperations} that a read-process-write
 * handler needs. Obtained with {@link HandlerContext#sender()} (or as a {@code @GroupKeeperListener} method parameter).
 *
 * <p>Key and value are serialized at once (a serializer's failure is the handler's exception). The records of one
 * handler call are sent into the transaction when the call returns; if it throws, they are dropped, so a failed
 * attempt leaves nothing behind (not even for {@code read_uncommitted} readers). So the returned future completes only
 * after the call: waiting for it inside the call fails with {@link IllegalStateException}. Only on the handler's
 * thread, during the call.
 */
public interface TransactionalSender<K, V> {

    Future<RecordMetadata> send(ProducerRecord<K, V> record);

    default Future<RecordMetadata> send(String topic, K key, V value) {
        return send(new ProducerRecord<>(topic, key, value));
    }

    default Future<RecordMetadata> send(String topic, V value) {
        return send(new ProducerRecord<>(topic, value));
    }
}

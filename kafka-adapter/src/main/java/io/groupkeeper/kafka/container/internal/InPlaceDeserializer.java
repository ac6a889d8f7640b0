package io.groupkeeper.kafka.container.internal;

import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Deserializes a fetched record from its buffers without copying them (Kafka's ByteBuffer path, as
 * {@code KafkaConsumer} does); their positions are restored, so the raw bytes stay intact for a dead letter and the key
 * for its lane. The record paths of the container (one call at a time, and per-partition progress) both decode this way.
 */
final class InPlaceDeserializer {

    private InPlaceDeserializer() {}

    static <K, V> ConsumerRecord<K, V> deserialize(
            Deserializer<K> keys, Deserializer<V> values, ConsumerRecord<ByteBuffer, ByteBuffer> raw) {
        ByteBuffer k = raw.key();
        ByteBuffer v = raw.value();
        int kp = k == null ? 0 : k.position();
        int vp = v == null ? 0 : v.position();
        K key;
        V value;
        try {
            key = keys.deserialize(raw.topic(), raw.headers(), k);
            value = values.deserialize(raw.topic(), raw.headers(), v);
        } finally {
            if (k != null) {
                k.position(kp);
            }
            if (v != null) {
                v.position(vp);
            }
        }
        return new ConsumerRecord<>(
                raw.topic(),
                raw.partition(),
                raw.offset(),
                raw.timestamp(),
                raw.timestampType(),
                raw.serializedKeySize(),
                raw.serializedValueSize(),
                key,
                value,
                raw.headers(),
                raw.leaderEpoch());
    }
}

package io.groupkeeper.spring.internal;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The key and value of the record being handled as the configured deserializers gave them, before the listener
 * method's payload conversion: what Spring for Apache Kafka's consumer record holds, and so what its
 * {@code DeadLetterPublishingRecoverer} hands its template when it forwards a record to a retry topic or the DLT.
 * The container deserializes a record on the worker thread right before handling it, with the record's own
 * {@code Headers} instance; the captured values are kept per thread and matched to the record by that instance.
 */
final class SpringSideValues {

    private static final ThreadLocal<Object[]> KEY = new ThreadLocal<>(); // {headers, key}
    private static final ThreadLocal<Object[]> VALUE = new ThreadLocal<>(); // {headers, value}

    private SpringSideValues() {}

    /** The deserializer, remembering what it gave on this thread. */
    static Deserializer<Object> capture(Deserializer<Object> delegate, boolean isKey) {
        ThreadLocal<Object[]> slot = isKey ? KEY : VALUE;
        return new Deserializer<>() {
            @Override
            public void configure(Map<String, ?> configs, boolean key) {
                delegate.configure(configs, key);
            }

            @Override
            public Object deserialize(String topic, byte[] data) {
                Object v = delegate.deserialize(topic, data);
                slot.set(new Object[] {null, v});
                return v;
            }

            @Override
            public Object deserialize(String topic, Headers headers, byte[] data) {
                Object v = delegate.deserialize(topic, headers, data);
                slot.set(new Object[] {headers, v});
                return v;
            }

            @Override
            public Object deserialize(String topic, Headers headers, ByteBuffer data) {
                Object v = delegate.deserialize(topic, headers, data);
                slot.set(new Object[] {headers, v});
                return v;
            }

            @Override
            public void close() {
                delegate.close();
            }
        };
    }

    /** The record with the deserializers' key and value (as Spring's consumer record has them). */
    static ConsumerRecord<Object, Object> asDeserialized(ConsumerRecord<Object, Object> handled) {
        Object[] k = KEY.get();
        Object[] v = VALUE.get();
        if (k == null || v == null || k[0] != handled.headers() || v[0] != handled.headers()) {
            throw new IllegalStateException("the deserialized values of " + handled.topic() + "-" + handled.partition()
                    + "@" + handled.offset() + " are not at hand on this thread");
        }
        return new ConsumerRecord<>(
                handled.topic(),
                handled.partition(),
                handled.offset(),
                handled.timestamp(),
                handled.timestampType(),
                handled.serializedKeySize(),
                handled.serializedValueSize(),
                k[1],
                v[1],
                handled.headers(),
                handled.leaderEpoch());
    }
}

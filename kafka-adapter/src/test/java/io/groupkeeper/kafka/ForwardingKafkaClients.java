package io.groupkeeper.kafka;

import io.groupkeeper.kafka.internal.KafkaAdmin;
import io.groupkeeper.kafka.internal.KafkaClients;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/** {@link KafkaClients#REAL} in every call: a test overrides only the client it interposes on. */
abstract class ForwardingKafkaClients implements KafkaClients {

    @Override
    public <K, V> Consumer<K, V> consumer(
            Map<String, Object> properties, Deserializer<K> keys, Deserializer<V> values) {
        return REAL.consumer(properties, keys, values);
    }

    @Override
    public Producer<Object, Object> producer(
            Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values) {
        return REAL.producer(properties, keys, values);
    }

    @Override
    public KafkaAdmin admin(Map<String, Object> properties) {
        return REAL.admin(properties);
    }

    @Override
    public ExecutorService pool(String name, int threads) {
        return REAL.pool(name, threads);
    }

    @Override
    public ScheduledExecutorService timer(String name) {
        return REAL.timer(name);
    }

    @Override
    public long nanoTime() {
        return REAL.nanoTime();
    }

    @Override
    public boolean await(CompletableFuture<?> f, long nanos) throws InterruptedException {
        return REAL.await(f, nanos);
    }
}

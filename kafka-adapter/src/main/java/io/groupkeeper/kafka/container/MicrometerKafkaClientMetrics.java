package io.groupkeeper.kafka.container;

import io.groupkeeper.kafka.KafkaClientListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Binds the Kafka clients of a container's workers — each worker's {@code KafkaConsumer}, the transactional producers,
 * the dead-letter producer — to a Micrometer registry with Micrometer's {@link KafkaClientMetrics}
 * ({@code kafka.consumer.fetch.manager.records.consumed.total}, {@code kafka.producer.record.send.total}, ...), and
 * removes a client's meters when it is closed (each binding has its own refresh thread, which close() shuts down, so a
 * closed client's meters never come back) (a worker stops, a partition's producer is released). Kafka's own tag
 * {@code client.id} tells the workers apart; the tags given here (e.g. {@code listener}, {@code group}) tell apart two
 * containers whose clients have the same client id. Give it to {@link ListenerContainerBuilder#clientListener}.
 */
public final class MicrometerKafkaClientMetrics implements KafkaClientListener {

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<Object, KafkaClientMetrics> bound = new ConcurrentHashMap<>();

    public MicrometerKafkaClientMetrics(MeterRegistry registry, Iterable<Tag> tags) {
        this.registry = registry;
        this.tags = Tags.of(tags);
    }

    /** With the tags {@code listener} (the container id) and {@code group}. */
    public static MicrometerKafkaClientMetrics forContainer(MeterRegistry registry, String listenerId, String group) {
        return new MicrometerKafkaClientMetrics(registry, Tags.of("listener", listenerId, "group", group));
    }

    @Override
    public void consumerAdded(String clientId, Consumer<?, ?> consumer) {
        bind(consumer, new KafkaClientMetrics(consumer, tags));
    }

    @Override
    public void consumerRemoved(String clientId, Consumer<?, ?> consumer) {
        unbind(consumer);
    }

    @Override
    public void producerAdded(String clientId, Producer<?, ?> producer) {
        bind(producer, new KafkaClientMetrics(producer, tags));
    }

    @Override
    public void producerRemoved(String clientId, Producer<?, ?> producer) {
        unbind(producer);
    }

    /** The clients bound now (for tests and health). */
    public int boundClients() {
        return bound.size();
    }

    private void bind(Object client, KafkaClientMetrics metrics) {
        metrics.bindTo(registry);
        KafkaClientMetrics old = bound.put(client, metrics);
        if (old != null) {
            old.close();
        }
    }

    private void unbind(Object client) {
        KafkaClientMetrics m = bound.remove(client);
        if (m != null) {
            m.close(); // shuts its own refresh thread down, then removes its meters
        }
    }
}

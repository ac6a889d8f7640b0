package io.groupkeeper.kafka.container;

import io.groupkeeper.kafka.KafkaClientListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Binds the Kafka clients of a container's workers — each worker's {@code KafkaConsumer}, the transactional producers,
 * the dead-letter producer — to a Micrometer registry with Micrometer's {@link KafkaClientMetrics}
 * ({@code kafka.consumer.fetch.manager.records.consumed.total}, {@code kafka.producer.record.send.total}, ...), and
 * removes a client's meters when it is closed (a worker stops, a partition's producer is released).
 *
 * <p>Tags: Kafka's own ({@code client.id}, {@code kafka.version}, per-topic/-node ones) and {@value #SPRING_ID} =
 * {@code <id>/<client id>}, e.g. {@code groupkeeper/billing/orders/groupkeeper-orders-dlt} — the one tag key Spring
 * Kafka's {@code MicrometerConsumerListener}/{@code MicrometerProducerListener} add (their value is
 * {@code <factory bean name>.<client id>}). Micrometer keeps one set of tag keys per meter name (and drops the meters
 * with fewer tags), so the same keys let a {@code KafkaTemplate}'s meters and these live side by side.
 *
 * <p>Each bound client has its own refresh thread ({@code groupkeeper-kafka-metrics-<client id>}, which picks up the
 * metrics a client registers late: per topic, per partition, per node); unbinding shuts it down before the meters are
 * removed, so a closed client's meters never come back. Give it to {@link ListenerContainerBuilder#clientListener}.
 */
public final class MicrometerKafkaClientMetrics implements KafkaClientListener {

    /** The tag key Spring Kafka's Micrometer listeners add to Kafka's; the value names the client's owner. */
    public static final String SPRING_ID = "spring.id";

    /** Micrometer's own interval for looking for a client's new metrics. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(60);

    private final MeterRegistry registry;
    private final String id;
    private final Tags tags;
    private final Duration refreshInterval;
    private final Map<Object, Binding> bound = new ConcurrentHashMap<>();

    /**
     * @param id              the owner's part of {@value #SPRING_ID}: a client's value is {@code <id>/<client id>}
     * @param tags            further tags: only the ones the application gives Spring Kafka's Micrometer listeners
     *                        too (none by default in Spring Boot), as Micrometer wants one set of keys per name
     * @param refreshInterval how often each client's refresh thread looks for metrics registered late
     */
    public MicrometerKafkaClientMetrics(
            MeterRegistry registry, String id, Iterable<Tag> tags, Duration refreshInterval) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.id = Objects.requireNonNull(id, "id");
        this.tags = Tags.of(tags);
        if (refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("refreshInterval must be positive: " + refreshInterval);
        }
        this.refreshInterval = refreshInterval;
    }

    /** A container's clients: {@value #SPRING_ID} = {@code groupkeeper/<listener>/<group>/<client id>}. */
    public static MicrometerKafkaClientMetrics forContainer(MeterRegistry registry, String listenerId, String group) {
        return forContainer(registry, listenerId, group, DEFAULT_REFRESH_INTERVAL);
    }

    /** As {@link #forContainer(MeterRegistry, String, String)}, refreshing each client's meters this often. */
    public static MicrometerKafkaClientMetrics forContainer(
            MeterRegistry registry, String listenerId, String group, Duration refreshInterval) {
        return new MicrometerKafkaClientMetrics(
                registry, "groupkeeper/" + listenerId + "/" + group, Tags.empty(), refreshInterval);
    }

    @Override
    public void consumerAdded(String clientId, Consumer<?, ?> consumer) {
        bind(consumer, clientId, (t, refresh) -> new KafkaClientMetrics(consumer, t, refresh, refreshInterval));
    }

    @Override
    public void consumerRemoved(String clientId, Consumer<?, ?> consumer) {
        unbind(consumer);
    }

    @Override
    public void producerAdded(String clientId, Producer<?, ?> producer) {
        bind(producer, clientId, (t, refresh) -> new KafkaClientMetrics(producer, t, refresh, refreshInterval));
    }

    @Override
    public void producerRemoved(String clientId, Producer<?, ?> producer) {
        unbind(producer);
    }

    /** The clients bound now (for tests and health). */
    public int boundClients() {
        return bound.size();
    }

    private void bind(
            Object client, String clientId, BiFunction<Tags, ScheduledExecutorService, KafkaClientMetrics> metrics) {
        ScheduledExecutorService refresh = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "groupkeeper-kafka-metrics-" + clientId);
            t.setDaemon(true);
            return t;
        });
        Binding b = new Binding(metrics.apply(tags.and(SPRING_ID, id + "/" + clientId), refresh), refresh);
        b.metrics.bindTo(registry);
        Binding old = bound.put(client, b);
        if (old != null) {
            old.close();
        }
    }

    private void unbind(Object client) {
        Binding b = bound.remove(client);
        if (b != null) {
            b.close();
        }
    }

    /** A client's meters and the thread that refreshes them (Micrometer leaves a scheduler it was given running). */
    private record Binding(KafkaClientMetrics metrics, ScheduledExecutorService refresh) {
        void close() {
            refresh.shutdownNow();
            try { // a refresh under way could put meters back after close() removed them
                refresh.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            metrics.close();
        }
    }
}

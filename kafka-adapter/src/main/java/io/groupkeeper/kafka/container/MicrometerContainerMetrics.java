package io.groupkeeper.kafka.container;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/** {@link ContainerMetrics} in a Micrometer registry. Micrometer is an optional dependency of the adapter. */
public final class MicrometerContainerMetrics implements ContainerMetrics {

    private final MeterRegistry registry;
    private final Map<String, List<Meter>> gauges = new ConcurrentHashMap<>();
    private final Map<String, Counter> processed = new ConcurrentHashMap<>();

    public MicrometerContainerMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void containerStarted(
            String group, String listener, IntSupplier stuck, IntSupplier paused, IntSupplier stopped) {
        containerStopped(group, listener);
        Tags tags = Tags.of("group", group, "listener", listener);
        gauges.put(
                key(group, listener),
                List.of(
                        gauge(
                                "groupkeeper.container.handlers.stuck",
                                "Handler calls running longer than the watchdog limit",
                                tags,
                                stuck),
                        gauge(
                                "groupkeeper.container.partitions.paused",
                                "Partitions paused (by the user or stopped)",
                                tags,
                                paused),
                        gauge(
                                "groupkeeper.container.partitions.stopped",
                                "Partitions stopped by the error policy",
                                tags,
                                stopped)));
    }

    private static String key(String group, String listener) {
        return group + '\u0000' + listener;
    }

    private Meter gauge(String name, String description, Tags tags, IntSupplier value) {
        return Gauge.builder(name, value, s -> s.getAsInt())
                .description(description)
                .tags(tags)
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void containerStopped(String group, String listener) {
        List<Meter> meters = gauges.remove(key(group, listener));
        if (meters != null) {
            meters.forEach(registry::remove);
        }
    }

    @Override
    public void processed(String group, String topic, int count) {
        processed
                .computeIfAbsent(
                        group + '\u0000' + topic,
                        k -> Counter.builder("groupkeeper.container.records")
                                .description("Records handled successfully")
                                .tags("group", group, "topic", topic)
                                .register(registry))
                .increment(count);
    }

    @Override
    public void handlerFailed(String group, String topic, Class<?> exception) {
        Counter.builder("groupkeeper.container.handler.failures")
                .description("Failed handler attempts")
                .tags(Tags.of("group", group, "topic", topic, "exception", exception.getName()))
                .register(registry)
                .increment();
    }

    @Override
    public void recovered(String group, String topic, Recovery recovery) {
        Counter.builder("groupkeeper.container.records.recovered")
                .description("Records dead-lettered, skipped or stopped at after their last attempt")
                .tags("group", group, "topic", topic, "recovery", recovery.toString())
                .register(registry)
                .increment();
    }

    @Override
    public void handlerStuck(String group) {
        Counter.builder("groupkeeper.container.handler.stuck")
                .description("Handler calls noticed running longer than the watchdog limit")
                .tags("group", group)
                .register(registry)
                .increment();
    }
}

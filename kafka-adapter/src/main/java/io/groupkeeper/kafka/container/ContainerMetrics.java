package io.groupkeeper.kafka.container;

import java.util.function.IntSupplier;

/**
 * The container's metrics seam; every method a no-op by default. {@link MicrometerContainerMetrics} records them in a
 * Micrometer registry (names in docs/metrics.md).
 */
public interface ContainerMetrics {

    ContainerMetrics NONE = new ContainerMetrics() {};

    /**
     * Gauges of a container ({@code listener}: its id, the group unless named; several containers may share a group):
     * handler calls running past the watchdog limit now, partitions paused and stopped.
     */
    default void containerStarted(
            String group,
            String listener,
            IntSupplier stuckHandlers,
            IntSupplier pausedPartitions,
            IntSupplier stoppedPartitions) {}

    /** The gauges of that container (and only those) go. */
    default void containerStopped(String group, String listener) {}

    /** {@code count} records handled successfully. */
    default void processed(String group, String topic, int count) {}

    /** One failed handler attempt. */
    default void handlerFailed(String group, String topic, Class<?> exception) {}

    /** A record recovered after its last attempt (or because it did not deserialize). */
    default void recovered(String group, String topic, Recovery recovery) {}

    /** A handler call noticed by the watchdog. */
    default void handlerStuck(String group) {}
}

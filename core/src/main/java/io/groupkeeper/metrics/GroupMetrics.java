package io.groupkeeper.metrics;

import io.groupkeeper.TopicPartition;
import java.util.function.LongSupplier;

/**
 * Where groupkeeper reports what it does. Every method has a no-op default, so an implementation overrides only what
 * it records; {@link #NOOP} records nothing. {@link MicrometerGroupMetrics} records into a Micrometer registry
 * (names in docs/metrics.md). Implementations must be thread-safe and fast: they are called on protocol threads.
 *
 * <p>This interface keeps Micrometer optional: nothing outside {@link MicrometerGroupMetrics} refers to it.
 */
public interface GroupMetrics {

    /** Records nothing. */
    GroupMetrics NOOP = new GroupMetrics() {};

    /** A member started: register gauges for its generation and owned partition count. */
    default void memberStarted(String group, String member, LongSupplier generation, LongSupplier ownedPartitions) {}

    /** A member closed: remove what {@link #memberStarted} registered. */
    default void memberClosed(String group, String member) {}

    /** One rebalance step of one member completed: partitions gained and revoked, and how long the step took. */
    default void rebalanced(String group, String member, long generation, int gained, int revoked, long nanos) {}

    /** Partitions reported lost (connection suspended or lost, or a commit found it fenced). */
    default void partitionsLost(String group, String member, int count) {}

    /** The leader published a generation. */
    default void generationPublished(String group, long generation, int changedTargets, int movedPartitions) {}

    /** One commit call: partitions committed, adopted (an external edit won), refused (not owned), and latency. */
    default void committed(String group, String member, int committed, int adopted, int fenced, long nanos) {}

    /** The store's connection changed state ({@code connected}, {@code suspended}, {@code reconnected}, ...). */
    default void connectionState(String state) {}

    /** A stored offset outside the log was corrected by {@code policy} ({@code earliest}, {@code latest}). */
    default void offsetCorrected(String group, TopicPartition partition, String policy) {}

    /** Registers a lag gauge for a partition this member processes (Kafka adapter). */
    default void lagStarted(String group, String member, TopicPartition partition, LongSupplier lag) {}

    /** Removes the lag gauge of a partition this member stopped processing. */
    default void lagStopped(String group, String member, TopicPartition partition) {}

    /** Offsets committed to the store were copied to Kafka's group offset store (Kafka adapter, opt-in mirror). */
    default void offsetsMirrored(String group, int partitions) {}

    /** Copying committed offsets to Kafka failed (the offsets in the store are unaffected). */
    default void offsetMirrorFailed(String group, int partitions) {}
}

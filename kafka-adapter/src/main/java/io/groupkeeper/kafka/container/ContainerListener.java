package io.groupkeeper.kafka.container;

import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Notifications from a {@link ListenerContainer}; every method a no-op by default. Called on the worker thread
 * (stopped partitions, dead letters, worker failures) or on the watchdog's thread (stuck handlers); must not block.
 */
public interface ContainerListener {

    /** A partition stopped: paused at {@code stopped.offset()}, still owned. */
    default void partitionStopped(StoppedPartition stopped) {}

    /** A record went to {@code deadLetterTopic} (acknowledged by the broker). */
    default void deadLettered(ConsumerRecord<byte[], byte[]> record, String deadLetterTopic, Throwable cause) {}

    /** A handler call has run longer than the watchdog limit (reported once per call). */
    default void handlerStuck(StuckHandler stuck) {}

    /**
     * A worker's consumer has fetched nothing for {@code idleFor} (at least the builder's {@code idleEventInterval}),
     * reported once per interval while the quiet lasts (Spring Kafka's {@code ListenerContainerIdleEvent}). Called on
     * the worker's thread.
     */
    default void idle(String member, Duration idleFor) {}

    /** A worker died (see {@link ContainerState#FAILED}); the container is FAILED. Not called once stopping. */
    default void workerFailed(String member, Throwable failure) {}
}

package io.groupkeeper.kafka.container;

import io.groupkeeper.GroupKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs a record or batch handler on {@code concurrency} {@link io.groupkeeper.kafka.CoordinatedConsumer}s of one group,
 * each on its own thread, with per-exception retries, dead-letter topics, pause/resume, a processing watchdog and a
 * graceful stop. No framework needed; the Spring Boot starter builds on it.
 *
 * <pre>{@code
 * try (ListenerContainer<String, String> container = ListenerContainer.<String, String>builder(keeper)
 *         .group("billing").topics("orders")
 *         .kafkaProperty("bootstrap.servers", bootstrap)
 *         .deserializers(new StringDeserializer(), new StringDeserializer())
 *         .concurrency(2)
 *         .recordHandler(record -> bill(record.value()))
 *         .errorPolicy(ErrorPolicy.builder().on(IllegalArgumentException.class, ErrorAction.deadLetter()).build())
 *         .build().start()) {
 *     ...
 * }   // close(): graceful stop (in-flight records finish, final commit, partitions released)
 * }</pre>
 *
 * <p>The workers consume raw bytes and deserialize in the container, so a record that does not deserialize is still
 * at hand: it is dead-lettered with its raw bytes (by default) and the group moves on. Delivery is at least once: a
 * record's position is committed only after its handler returned or it was recovered (dead letter acknowledged, or
 * skipped). Methods are safe from any thread.
 */
public interface ListenerContainer<K, V> extends AutoCloseable {

    static <K, V> ListenerContainerBuilder<K, V> builder(GroupKeeper keeper) {
        return new ListenerContainerBuilder<>(keeper);
    }

    /**
     * Checks the dead-letter topics (creating them if so configured), starts every worker's consumer and returns once
     * all have joined the group. A failure stops the workers already started and is rethrown. A container
     * {@link ContainerState#STOPPED} or {@link ContainerState#FAILED} starts again with new workers (new members),
     * once every old worker has exited.
     *
     * @throws IllegalStateException if starting or running, if a stopped worker's handler still runs, if its
     *         deserializer instances were closed at its stop (give suppliers to restart), or if a dead-letter topic is
     *         missing
     */
    ListenerContainer<K, V> start();

    /**
     * Graceful stop: each worker finishes the handler call in flight, hands back the records fetched but not started
     * (seek), commits its final positions and leaves the group, releasing its partitions. Waits at most
     * {@code deadline}; returns whether every worker finished within it. A worker still busy after the deadline is
     * reported (WARN with its stack) and finishes in the background: it keeps its partitions and commits nothing past
     * what it processed until its handler returns, then hands back, commits and leaves; the state stays
     * {@link ContainerState#STOPPING} until then. On a {@link ContainerState#FAILED} container the state stays FAILED.
     */
    boolean stop(Duration deadline);

    /** {@link #stop(Duration)} with the builder's stop deadline (default 30 s). */
    @Override
    void close();

    /** Pauses every partition, owned now or assigned later, until {@link #resume()}; ownership is kept. */
    void pause();

    /** Resumes the partitions paused by {@link #pause()} (not those paused one by one or stopped). */
    void resume();

    /**
     * Pauses one owned partition: its records fetched but not handled yet are handed back, nothing more is fetched,
     * ownership is kept (also across rebalances while it stays with this container; a paused partition that moves
     * away is simply revoked). Takes effect before the next record of the partition.
     *
     * @return false if no worker of this container owns it
     */
    boolean pause(TopicPartition partition);

    /** Resumes a partition paused by {@link #pause(TopicPartition)} or stopped by the error policy. */
    boolean resume(TopicPartition partition);

    boolean isPaused();

    /** Partitions paused right now (one by one, by {@link #pause()}, or stopped), as the workers last applied. */
    Set<TopicPartition> pausedPartitions();

    /** Partitions stopped by the error policy, still owned. */
    Map<TopicPartition, StoppedPartition> stoppedPartitions();

    ContainerState state();

    /** The failure that made the container {@link ContainerState#FAILED}. */
    Optional<Throwable> failure();

    String group();

    /** One entry per worker. */
    List<WorkerStatus> workers();

    /** Handler calls running longer than the watchdog limit right now. */
    List<StuckHandler> stuckHandlers();
}

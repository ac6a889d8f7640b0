package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * What the handler call running on this thread is about: its worker's consumer and the partition being handled. Set by
 * the worker (consumer) and the dispatcher (partition, around each handler call); read through
 * {@link io.groupkeeper.kafka.container.HandlerContext}.
 */
public final class CurrentRecord {

    private static final ThreadLocal<CurrentRecord> CURRENT = new ThreadLocal<>();

    private final CoordinatedConsumer<?, ?> consumer;
    private TopicPartition partition;

    private CurrentRecord(CoordinatedConsumer<?, ?> consumer) {
        this.consumer = consumer;
    }

    /** The worker thread's consumer, for the rest of the thread's life (until {@link #leave}). */
    static void worker(CoordinatedConsumer<?, ?> consumer) {
        CURRENT.set(new CurrentRecord(consumer));
    }

    static void leave() {
        CURRENT.remove();
    }

    /** Around a handler call: the partition of its record or batch (null after it). */
    static void handling(TopicPartition partition) {
        CurrentRecord c = CURRENT.get();
        if (c != null) {
            c.partition = partition;
        }
    }

    public static Optional<TopicPartition> partition() {
        CurrentRecord c = CURRENT.get();
        return c == null ? Optional.empty() : Optional.ofNullable(c.partition);
    }

    public static OptionalLong fencingToken() {
        CurrentRecord c = CURRENT.get();
        return c == null || c.partition == null ? OptionalLong.empty() : c.consumer.fencingToken(c.partition);
    }
}

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
    /** The transactional mode's sender; null when off. */
    private final TransactionalOutput output;
    private TopicPartition partition;

    private CurrentRecord(CoordinatedConsumer<?, ?> consumer, TransactionalOutput output) {
        this.consumer = consumer;
        this.output = output;
    }

    /** The worker thread's consumer (and sender), for the rest of the thread's life (until {@link #leave}). */
    static void worker(CoordinatedConsumer<?, ?> consumer, TransactionalOutput output) {
        CURRENT.set(new CurrentRecord(consumer, output));
    }

    /** The transactional sender of the handler call on this thread. */
    @SuppressWarnings("unchecked")
    public static <K, V> io.groupkeeper.kafka.container.TransactionalSender<K, V> sender() {
        CurrentRecord c = CURRENT.get();
        if (c == null || c.partition == null) {
            throw new IllegalStateException("HandlerContext.sender() is for the thread of a handler call, during it");
        }
        if (c.output == null) {
            throw new IllegalStateException("HandlerContext.sender() needs a transactional container "
                    + "(ListenerContainerBuilder.transactional, @GroupKeeperListener(transactional = \"true\"))");
        }
        return (io.groupkeeper.kafka.container.TransactionalSender<K, V>) (Object) c.output;
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

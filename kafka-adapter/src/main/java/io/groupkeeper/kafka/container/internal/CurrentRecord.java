package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.TransactionalSender;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * What the handler call running on this thread is about: the partition being handled and the fencing token of the
 * claim its records were fetched under. Set by the worker (where tokens come from) and the dispatcher (partition and
 * token, around each handler call); read through {@link io.groupkeeper.kafka.container.HandlerContext}.
 *
 * <p>The token is taken when the call starts from the worker's record of the claims served to it (kept by its
 * rebalance listener, changed only inside a poll on this same thread): the token of the ownership the records were
 * fetched under — never the live one, which moves to a later claim (or is empty) once the partition changed hands
 * while the call runs, and would let a record of an earlier ownership carry a later owner's token.
 */
public final class CurrentRecord {

    private static final ThreadLocal<CurrentRecord> CURRENT = new ThreadLocal<>();

    /** The token of each partition's claim as served to the worker. */
    private final Function<TopicPartition, OptionalLong> tokens;
    /** The transactional mode's sender; null when off. */
    private final TransactionalOutput output;

    private TopicPartition partition;
    private OptionalLong token = OptionalLong.empty();
    /** The call is of a container with manual acknowledgements; what its handler said about its record. */
    private boolean manualAcks;

    private boolean acknowledged;
    private Duration nack;

    private CurrentRecord(Function<TopicPartition, OptionalLong> tokens, TransactionalOutput output) {
        this.tokens = tokens;
        this.output = output;
    }

    /** The worker thread's claims (and sender), for the rest of the thread's life (until {@link #leave}). */
    static void worker(Function<TopicPartition, OptionalLong> tokens, TransactionalOutput output) {
        CURRENT.set(new CurrentRecord(tokens, output));
    }

    /** The transactional sender of the handler call on this thread. */
    @SuppressWarnings("unchecked")
    public static <K, V> TransactionalSender<K, V> sender() {
        CurrentRecord c = CURRENT.get();
        if (c == null || c.partition == null) {
            throw new IllegalStateException("HandlerContext.sender() is for the thread of a handler call, during it");
        }
        if (c.output == null) {
            throw new IllegalStateException("HandlerContext.sender() needs a transactional container "
                    + "(ListenerContainerBuilder.transactional, @GroupKeeperListener(transactional = \"true\"))");
        }
        return (TransactionalSender<K, V>) (Object) c.output;
    }

    static void leave() {
        CURRENT.remove();
    }

    /** Around a handler call: the partition of its record or batch (null after it). */
    static void handling(TopicPartition partition) {
        CurrentRecord c = CURRENT.get();
        if (c != null) {
            c.partition = partition;
            c.token = partition == null ? OptionalLong.empty() : c.tokens.apply(partition);
        }
    }

    /**
     * Around a handler call of the per-partition progress path ({@link ProgressDispatch}): the partition and the token
     * its record was dispatched under (null partition after it). Any thread: a work thread gets its own.
     */
    static void handling(TopicPartition partition, OptionalLong token) {
        CurrentRecord c = CURRENT.get();
        if (c == null) {
            if (partition == null) {
                return;
            }
            c = ofThread();
        }
        c.set(partition, token);
    }

    /**
     * This thread's (made on first use: a work thread's), for a caller that keeps it and sets it around every call
     * ({@link #set} on it) without a thread-local look-up each time.
     */
    static CurrentRecord ofThread() {
        CurrentRecord c = CURRENT.get();
        if (c == null) {
            c = new CurrentRecord(tp -> OptionalLong.empty(), null);
            CURRENT.set(c);
        }
        return c;
    }

    /** As the static {@link #handling(TopicPartition, OptionalLong)}, on this thread's record kept by the caller. */
    void set(TopicPartition partition, OptionalLong token) {
        this.partition = partition;
        this.token = partition == null ? OptionalLong.empty() : token;
        if (partition == null) {
            manualAcks = false;
        }
    }

    /** Right after {@link #set}: the call is of a container with manual acknowledgements (nothing said yet). */
    void manualAcks() {
        manualAcks = true;
        acknowledged = false;
        nack = null;
    }

    /** Whether the handler acknowledged its record (cleared). */
    boolean takeAcknowledged() {
        boolean a = acknowledged;
        acknowledged = false;
        return a;
    }

    /** The sleep of the handler's nack, null when none (cleared). */
    Duration takeNack() {
        Duration n = nack;
        nack = null;
        return n;
    }

    private static CurrentRecord manualCall(String what) {
        CurrentRecord c = CURRENT.get();
        if (c == null || c.partition == null) {
            throw new IllegalStateException(
                    "HandlerContext." + what + " is for the thread of a handler call, during " + "it");
        }
        if (!c.manualAcks) {
            throw new IllegalStateException("HandlerContext." + what + " needs a container with manual "
                    + "acknowledgements (ListenerContainerBuilder.manualAcks(true), spring.kafka.listener.ack-mode="
                    + "MANUAL or MANUAL_IMMEDIATE); without them every record handled is committed");
        }
        return c;
    }

    public static void acknowledge() {
        manualCall("acknowledge()").acknowledged = true;
    }

    public static void nack(Duration sleep) {
        Objects.requireNonNull(sleep, "sleep");
        if (sleep.isNegative()) {
            throw new IllegalArgumentException("the nack's sleep must not be negative, was " + sleep);
        }
        manualCall("nack(Duration)").nack = sleep;
    }

    public static Optional<TopicPartition> partition() {
        CurrentRecord c = CURRENT.get();
        return c == null ? Optional.empty() : Optional.ofNullable(c.partition);
    }

    public static OptionalLong fencingToken() {
        CurrentRecord c = CURRENT.get();
        return c == null || c.partition == null ? OptionalLong.empty() : c.token;
    }
}

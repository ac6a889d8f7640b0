package io.groupkeeper.kafka.container;

import io.groupkeeper.kafka.container.internal.CurrentRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Asked from inside a {@link RecordHandler} or {@link BatchHandler} call (or a {@code @GroupKeeperListener} method), on
 * the worker thread that runs it: the partition being handled and its fencing token. Outside a handler call both are
 * empty.
 *
 * <p>Pass the fencing token with every write to a downstream store that checks it (docs/reliability.md): it grows with
 * every change of hands of the partition and never repeats, so the store can refuse a former owner that has not
 * noticed it lost the partition. Open the store with the same token in the container's {@link AssignmentHook} before
 * the first record (docs/exactly-once.md, "Into a database"; {@link io.groupkeeper.kafka.jdbc.FencedJdbcSink}).
 */
public final class HandlerContext {

    private HandlerContext() {}

    /** The partition of the record (or batch) being handled on this thread. */
    public static Optional<TopicPartition> partition() {
        return CurrentRecord.partition();
    }

    /**
     * The fencing token of the claim under which the record (or batch) being handled was fetched: the token
     * {@code CoordinatedConsumer.fencingToken} gave when this member was assigned the partition, the one the container's
     * {@link AssignmentHook} saw ({@link AssignmentHook.Seeker#fencingToken}). It stays that token for the whole call,
     * even when the partition changes hands meanwhile (a session expired under a long batch): a sink that refuses a
     * token lower than one it has seen then refuses this call's writes, because the successor opened it with a higher
     * one. Empty outside a handler call, or when the partition was lost before its records were handed out.
     */
    public static OptionalLong fencingToken() {
        return CurrentRecord.fencingToken();
    }

    /**
     * The sender of a transactional container ({@link ListenerContainerBuilder#transactional}): what the handler sends
     * with it commits in one Kafka transaction with the input partition's position. Key and value types are those of
     * the serializers given there.
     *
     * @throws IllegalStateException outside a handler call, or when the container is not transactional
     */
    public static <K, V> TransactionalSender<K, V> sender() {
        return CurrentRecord.sender();
    }

    /**
     * Acknowledges the record being handled, in a container with {@link ListenerContainerBuilder#manualAcks manual
     * acknowledgements}: once its call has returned, its partition's committed position is its offset + 1 (every
     * record before it is committed with it, acknowledged or not). A record not acknowledged is not committed: it runs
     * again after a restart, or at the partition's next owner. Spring Kafka's {@code Acknowledgment.acknowledge()}.
     *
     * @throws IllegalStateException outside a handler call, or when the container's acknowledgements are not manual
     */
    public static void acknowledge() {
        CurrentRecord.acknowledge();
    }

    /**
     * Hands the record being handled back, in a container with {@link ListenerContainerBuilder#manualAcks manual
     * acknowledgements}: once its call has returned, the record runs again after {@code sleep}, its partition's later
     * records waiting behind it (the other partitions go on). Not a failure: no attempt of the error policy is counted,
     * nothing is logged above DEBUG, and the record's attempts start afresh. Spring Kafka's
     * {@code Acknowledgment.nack(Duration)}. A handler that throws after a nack fails as it would without it.
     *
     * @throws IllegalStateException outside a handler call, or when the container's acknowledgements are not manual
     */
    public static void nack(Duration sleep) {
        CurrentRecord.nack(sleep);
    }
}

package io.groupkeeper.kafka.container;

import io.groupkeeper.kafka.container.internal.CurrentRecord;
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
 * noticed it lost the partition.
 */
public final class HandlerContext {

    private HandlerContext() {
    }

    /** The partition of the record (or batch) being handled on this thread. */
    public static Optional<TopicPartition> partition() {
        return CurrentRecord.partition();
    }

    /**
     * The fencing token of that partition (see {@code CoordinatedConsumer.fencingToken}); empty outside a handler call
     * or once this member no longer owns the partition.
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
}

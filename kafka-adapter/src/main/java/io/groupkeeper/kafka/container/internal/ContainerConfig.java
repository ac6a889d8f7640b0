package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.container.AsyncRecordHandler;
import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Sleeper;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.kafka.internal.TransactionalConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A container's validated options (built by {@code ListenerContainerBuilder}); {@code sleeper} null = default. The
 * deserializer suppliers are called once per worker; {@code sharedDeserializers}: they return one instance for all.
 * {@code id} names the container (metrics); {@code instanceId}, if not null, makes worker n the static member
 * {@code <instanceId>-<n>}. {@code assignmentHook} and {@code idleEventInterval} are null when not set;
 * {@code transactional} is null unless the transactional mode is on (its serializers are the handler's output's);
 * {@code checkDeadLetterTopics} false: the start neither checks nor creates them (a missing one fails at its send).
 * {@code producerProperties} are the user's, set with the mode or not (without it, the validation refuses them).
 * {@code ordering}, {@code parallelism} (handler calls in flight per worker), {@code asyncHandler} (null unless set)
 * and {@code limits} (span and buffer caps of each partition's progress) are docs/parallel.md's. {@code manualAcks}:
 * a partition's committed position is its last record acknowledged ({@code HandlerContext.acknowledge()}) + 1.
 */
public record ContainerConfig<K, V>(
        GroupKeeper keeper,
        String group,
        Set<String> topics,
        Map<String, Object> kafkaProperties,
        Map<String, Object> deadLetterProducerProperties,
        Supplier<? extends Deserializer<K>> keyDeserializer,
        Supplier<? extends Deserializer<V>> valueDeserializer,
        boolean sharedDeserializers,
        String id,
        String instanceId,
        int concurrency,
        RecordHandler<K, V> recordHandler,
        BatchHandler<K, V> batchHandler,
        ErrorPolicy errorPolicy,
        Function<String, String> deadLetterTopic,
        boolean createDeadLetterTopics,
        boolean checkDeadLetterTopics,
        Duration watchdogLimit,
        Duration pollTimeout,
        Duration stopDeadline,
        Duration deadLetterTimeout,
        Sleeper sleeper,
        Ticker ticker,
        ContainerMetrics metrics,
        ContainerListener listener,
        Consumer<CoordinatedConsumer.Builder<?, ?>> consumerOptions,
        AssignmentHook assignmentHook,
        Duration idleEventInterval,
        TransactionalConfig transactional,
        Map<String, Object> producerProperties,
        KafkaClientListener clientListener,
        Ordering ordering,
        int parallelism,
        AsyncRecordHandler<K, V> asyncHandler,
        ProgressLimits limits,
        boolean manualAcks) {}

package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.AssignmentHook;
import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Sleeper;
import io.groupkeeper.kafka.container.Ticker;
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
 * {@code producerProperties} are the user's, set with the mode or not (without it, the validation refuses them).
 */
public record ContainerConfig<K, V>(GroupKeeper keeper, String group, Set<String> topics,
                                    Map<String, Object> kafkaProperties,
                                    Map<String, Object> deadLetterProducerProperties,
                                    Supplier<? extends Deserializer<K>> keyDeserializer,
                                    Supplier<? extends Deserializer<V>> valueDeserializer,
                                    boolean sharedDeserializers, String id, String instanceId,
                                    int concurrency, RecordHandler<K, V> recordHandler,
                                    BatchHandler<K, V> batchHandler, ErrorPolicy errorPolicy,
                                    Function<String, String> deadLetterTopic, boolean createDeadLetterTopics,
                                    Duration watchdogLimit, Duration pollTimeout, Duration stopDeadline,
                                    Duration deadLetterTimeout, Sleeper sleeper, Ticker ticker,
                                    ContainerMetrics metrics, ContainerListener listener,
                                    Consumer<CoordinatedConsumer.Builder<?, ?>> consumerOptions,
                                    AssignmentHook assignmentHook, Duration idleEventInterval,
                                    io.groupkeeper.kafka.internal.TransactionalConfig transactional,
                                    Map<String, Object> producerProperties,
                                    io.groupkeeper.kafka.KafkaClientListener clientListener) {
}

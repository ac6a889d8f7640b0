package io.groupkeeper.kafka.container;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.Names;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.container.internal.ContainerConfig;
import io.groupkeeper.kafka.container.internal.DefaultListenerContainer;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.kafka.internal.TransactionalConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Configures a {@link ListenerContainer}; {@link #build()} fails fast naming the bad or conflicting option, its
 * workers' consumer configuration included (checked by {@link CoordinatedConsumer.Builder#validate()}: the transactional
 * mode's producer settings, the consumer options, Kafka properties that do not parse).
 * Kafka properties pass through to every worker's consumer (and, those a producer or an Admin client knows, to the
 * dead-letter producer and the topic check). The workers always consume bytes; the deserializers given here run in
 * the container.
 */
public final class ListenerContainerBuilder<K, V> {
    private final GroupKeeper keeper;
    private String group;
    private final Set<String> topics = new LinkedHashSet<>();
    private final Map<String, Object> kafkaProperties = new LinkedHashMap<>();
    private final Map<String, Object> deadLetterProducerProperties = new LinkedHashMap<>();
    private Supplier<? extends Deserializer<K>> keyDeserializer;
    private Supplier<? extends Deserializer<V>> valueDeserializer;
    private boolean sharedDeserializers;
    private int concurrency = 1;
    private String id;
    private String instanceId;
    private RecordHandler<K, V> recordHandler;
    private BatchHandler<K, V> batchHandler;
    private ErrorPolicy errorPolicy = ErrorPolicy.defaults();
    private Function<String, String> deadLetterTopic = ListenerContainerBuilder::defaultDeadLetterTopic;
    /** Whether dead-letter topics were named by the user (then a missing one fails the start unless asked to). */
    private boolean deadLetterTopicNamed;
    /** Null: create the missing default-named ones only. */
    private Boolean createDeadLetterTopics;
    /** Whether start() looks for the dead-letter topics (false: a missing one fails at its first send). */
    private boolean checkDeadLetterTopics = true;

    private ProgressLimits limits = ProgressLimits.DEFAULT;
    /** Whether a limit was set (the paths without per-partition progress refuse it). */
    private boolean limitsSet;

    private Duration watchdogLimit = Duration.ofSeconds(30);
    private Duration pollTimeout = Duration.ofMillis(500);
    private Duration stopDeadline = Duration.ofSeconds(30);
    private Duration deadLetterTimeout = Duration.ofSeconds(30);
    private Sleeper sleeper;
    private Ticker ticker = Ticker.system();
    private ContainerMetrics metrics = ContainerMetrics.NONE;
    private ContainerListener listener = new ContainerListener() {};
    private Consumer<CoordinatedConsumer.Builder<?, ?>> consumerOptions = b -> {};
    private AssignmentHook assignmentHook;
    private Duration idleEventInterval;
    private Serializer<?> outputKeySerializer;
    private Serializer<?> outputValueSerializer;
    private String transactionalIdPrefix = "groupkeeper/";
    private final Map<String, Object> producerProperties = new LinkedHashMap<>();
    private KafkaClientListener clientListener = KafkaClientListener.NONE;
    private Ordering ordering = Ordering.PARTITION;
    private int parallelism = 1;
    private AsyncRecordHandler<K, V> asyncHandler;
    private boolean manualAcks;

    ListenerContainerBuilder(GroupKeeper keeper) {
        this.keeper = Objects.requireNonNull(keeper, "keeper");
    }

    /** The consumer group. Required. */
    public ListenerContainerBuilder<K, V> group(String group) {
        this.group = Names.requireValid("group id", group);
        return this;
    }

    public ListenerContainerBuilder<K, V> topics(String... topics) {
        for (String t : topics) {
            this.topics.add(Names.requireValid("topic", t));
        }
        return this;
    }

    public ListenerContainerBuilder<K, V> topics(Collection<String> topics) {
        return topics(topics.toArray(String[]::new));
    }

    /** Kafka client properties ({@code bootstrap.servers} required); deserializer classes are ignored: see below. */
    public ListenerContainerBuilder<K, V> kafkaProperties(Map<String, ?> properties) {
        Objects.requireNonNull(properties, "kafkaProperties").forEach(this::kafkaProperty);
        return this;
    }

    public ListenerContainerBuilder<K, V> kafkaProperty(String key, Object value) {
        Objects.requireNonNull(key, "kafka property key");
        kafkaProperties.put(key, Objects.requireNonNull(value, () -> "value of kafka property " + key));
        return this;
    }

    /** Properties for the dead-letter producer only (over the Kafka properties), e.g. {@code acks}. */
    public ListenerContainerBuilder<K, V> deadLetterProducerProperty(String key, Object value) {
        Objects.requireNonNull(key, "producer property key");
        deadLetterProducerProperties.put(key, Objects.requireNonNull(value, () -> "value of producer property " + key));
        return this;
    }

    /**
     * Deserializers (or {@link #deserializers(Supplier, Supplier)}) are required: they run in the container, so a record
     * that does not deserialize can be dead-lettered raw. These instances are shared by every worker (they must be
     * thread-safe when {@code concurrency > 1}) and closed once, when the container has stopped.
     */
    public ListenerContainerBuilder<K, V> deserializers(Deserializer<K> key, Deserializer<V> value) {
        Objects.requireNonNull(key, "key deserializer");
        Objects.requireNonNull(value, "value deserializer");
        this.keyDeserializer = () -> key;
        this.valueDeserializer = () -> value;
        this.sharedDeserializers = true;
        return this;
    }

    /**
     * One key and one value deserializer per worker, made by these suppliers (configured, as Kafka's consumer would
     * have configured them) when the worker is made, used by its thread only, and closed when it exits.
     */
    public ListenerContainerBuilder<K, V> deserializers(
            Supplier<? extends Deserializer<K>> key, Supplier<? extends Deserializer<V>> value) {
        this.keyDeserializer = Objects.requireNonNull(key, "key deserializer supplier");
        this.valueDeserializer = Objects.requireNonNull(value, "value deserializer supplier");
        this.sharedDeserializers = false;
        return this;
    }

    /**
     * Names this container in its metrics (tag {@code listener}) and logs; default the group. Give each container of
     * one group in one process its own.
     */
    public ListenerContainerBuilder<K, V> id(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("the container id must not be blank");
        }
        this.id = id;
        return this;
    }

    /**
     * Makes the workers static members: worker {@code n} (from 0) has the instance id {@code <instanceId>-<n>}, so
     * each is one member across restarts (see {@code GroupKeeper.MemberBuilder#instanceId}). Set it here, not through
     * {@link #consumerOptions}, where every worker would get the same one.
     */
    public ListenerContainerBuilder<K, V> instanceId(String instanceId) {
        this.instanceId = Names.requireValid("instance id", instanceId);
        return this;
    }

    /** Consumers (members of the group) in this process, one thread each; default 1. */
    public ListenerContainerBuilder<K, V> concurrency(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
        }
        this.concurrency = concurrency;
        return this;
    }

    /**
     * Which records of a partition may be handled at the same time (docs/parallel.md); default
     * {@link Ordering#PARTITION}, one at a time. {@link Ordering#KEY} and {@link Ordering#UNORDERED} need a record or
     * asynchronous handler, and no transactional mode ({@link #build()} refuses them otherwise).
     */
    public ListenerContainerBuilder<K, V> ordering(Ordering ordering) {
        this.ordering = Objects.requireNonNull(ordering, "ordering");
        return this;
    }

    /**
     * Handler calls in flight per member (per {@linkplain #concurrency consumer}) at most, shared fairly by its
     * partitions: threads for a {@link #recordHandler}, records in flight for an {@link #asyncHandler}. Default 1 (the
     * handler runs on the consumer's own thread). Above 1 with {@link Ordering#PARTITION}, different partitions of a
     * member run in parallel.
     */
    public ListenerContainerBuilder<K, V> parallelism(int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, was " + parallelism);
        }
        this.parallelism = parallelism;
        return this;
    }

    /**
     * The span of each partition's progress (docs/parallel.md, "The span"): no record at or beyond its low-water mark
     * (lowest record not done) + {@code maxSpan} is dispatched, so the done set written to the offset node stays below
     * {@code maxSpan} offsets and its size has a known bound; a record that keeps failing stops its partition's
     * dispatching after {@code maxSpan} offsets. 1 to {@value ProgressLimits#MAX_SPAN}; default 10,000. Applies to the
     * record and asynchronous handlers (not the batch handler or the transactional mode: {@link #build()} refuses it).
     */
    public ListenerContainerBuilder<K, V> maxSpan(int maxSpan) {
        if (maxSpan < 1 || maxSpan > ProgressLimits.MAX_SPAN) {
            throw new IllegalArgumentException("maxSpan must be in 1.." + ProgressLimits.MAX_SPAN + ", was " + maxSpan);
        }
        this.limits = new ProgressLimits(maxSpan, limits.maxRecords(), limits.maxBytes());
        this.limitsSet = true;
        return this;
    }

    /**
     * Records held per partition (fetched and not done) at most (docs/parallel.md, "Memory"): at the cap the
     * partition's fetching pauses, and it resumes when the records and the bytes held are at half their caps; one
     * fetch may overshoot by its own size ({@code max.poll.records}). 1 to {@code Integer.MAX_VALUE}; default 10,000.
     * Same handlers as {@link #maxSpan}.
     */
    public ListenerContainerBuilder<K, V> maxBufferedRecords(int maxRecords) {
        if (maxRecords < 1) {
            throw new IllegalArgumentException(
                    "maxBufferedRecords must be in 1.." + Integer.MAX_VALUE + ", was " + maxRecords);
        }
        this.limits = new ProgressLimits(limits.maxSpan(), maxRecords, limits.maxBytes());
        this.limitsSet = true;
        return this;
    }

    /**
     * Bytes (serialized keys and values) held per partition at most, as {@link #maxBufferedRecords}. 1 to
     * {@code Long.MAX_VALUE}; default 64 MiB.
     */
    public ListenerContainerBuilder<K, V> maxBufferedBytes(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException(
                    "maxBufferedBytes must be in 1.." + Long.MAX_VALUE + ", was " + maxBytes);
        }
        this.limits = new ProgressLimits(limits.maxSpan(), limits.maxRecords(), maxBytes);
        this.limitsSet = true;
        return this;
    }

    /**
     * One record per call, completing asynchronously ({@link AsyncRecordHandler}): up to {@link #parallelism} records
     * in flight per member, not bounded by threads. Exactly one of record, batch and asynchronous handler.
     */
    public ListenerContainerBuilder<K, V> asyncHandler(AsyncRecordHandler<K, V> handler) {
        this.asyncHandler = Objects.requireNonNull(handler, "asyncHandler");
        return this;
    }

    /** One record per call. Exactly one of record handler and batch handler. */
    public ListenerContainerBuilder<K, V> recordHandler(RecordHandler<K, V> handler) {
        this.recordHandler = Objects.requireNonNull(handler, "recordHandler");
        return this;
    }

    /** One partition's fetched records per call. Exactly one of record handler and batch handler. */
    public ListenerContainerBuilder<K, V> batchHandler(BatchHandler<K, V> handler) {
        this.batchHandler = Objects.requireNonNull(handler, "batchHandler");
        return this;
    }

    /** Default {@link ErrorPolicy#defaults()}: 3 attempts 1 s apart, then dead-letter. */
    public ListenerContainerBuilder<K, V> errorPolicy(ErrorPolicy policy) {
        this.errorPolicy = Objects.requireNonNull(policy, "errorPolicy");
        return this;
    }

    /**
     * The default dead-letter topic of a source topic: {@code <topic>-dlt}, the name Spring Kafka 3.3 and later give
     * it ({@code DeadLetterPublishingRecoverer}'s default). {@code deadLetterTopics(t -> t + ".DLT")} keeps the older
     * convention.
     */
    public static String defaultDeadLetterTopic(String sourceTopic) {
        return sourceTopic + "-dlt";
    }

    /** One dead-letter topic for every source topic; default {@link #defaultDeadLetterTopic <topic>-dlt}. */
    public ListenerContainerBuilder<K, V> deadLetterTopic(String topic) {
        String t = Names.requireValid("dead-letter topic", topic);
        this.deadLetterTopic = source -> t;
        this.deadLetterTopicNamed = true;
        return this;
    }

    /** The dead-letter topic of each source topic; default {@link #defaultDeadLetterTopic <topic>-dlt}. */
    public ListenerContainerBuilder<K, V> deadLetterTopics(Function<String, String> nameOfSource) {
        this.deadLetterTopic = Objects.requireNonNull(nameOfSource, "deadLetterTopics");
        this.deadLetterTopicNamed = true;
        return this;
    }

    /**
     * Whether {@code start()} creates missing dead-letter topics (as many partitions as the source topic, the broker's
     * default replication factor); {@code false}: a missing one fails {@code start()} naming it. Default: the default
     * ones ({@code <topic>-dlt}) are created, and a dead-letter topic named with {@link #deadLetterTopic} or
     * {@link #deadLetterTopics} must exist.
     */
    public ListenerContainerBuilder<K, V> createDeadLetterTopics(boolean create) {
        if (create && !checkDeadLetterTopics) {
            throw new IllegalStateException("createDeadLetterTopics(true) creates the missing dead-letter topics at "
                    + "start, but checkDeadLetterTopics(false) was set: start() does not look at them; choose one");
        }
        this.createDeadLetterTopics = create;
        return this;
    }

    /**
     * Whether {@code start()} checks that the dead-letter topics exist (default {@code true}: it creates or fails, see
     * {@link #createDeadLetterTopics}). {@code false}: it does not look, so it needs no Admin client and no right to
     * list topics; a missing dead-letter topic fails only when a record is dead-lettered there — the send waits for the
     * topic's metadata up to {@link #deadLetterTimeout}, then the partition stops at the record (reason
     * {@code dead-letter send to <topic> failed: ...}) and {@link ListenerContainer#resume} tries it again (e.g. once
     * the topic exists). For topics created by others after the start, or by a broker that auto-creates topics;
     * Spring for Apache Kafka's {@code @RetryableTopic(autoCreateTopics = "false")}. Cannot be combined with
     * {@code createDeadLetterTopics(true)}.
     */
    public ListenerContainerBuilder<K, V> checkDeadLetterTopics(boolean check) {
        if (!check && Boolean.TRUE.equals(createDeadLetterTopics)) {
            throw new IllegalStateException("checkDeadLetterTopics(false) does not look at the dead-letter topics at "
                    + "start, but createDeadLetterTopics(true) was set: it creates them there; choose one");
        }
        this.checkDeadLetterTopics = check;
        return this;
    }

    /** A handler call running longer than this is reported (WARN with the thread's stack, a meter); default 30 s. */
    public ListenerContainerBuilder<K, V> watchdog(Duration limit) {
        this.watchdogLimit = positive("watchdog", limit);
        return this;
    }

    /** How long one poll waits for records; default 500 ms. */
    public ListenerContainerBuilder<K, V> pollTimeout(Duration timeout) {
        this.pollTimeout = positive("pollTimeout", timeout);
        return this;
    }

    /** What {@link ListenerContainer#close()} waits at most; default 30 s. */
    public ListenerContainerBuilder<K, V> stopDeadline(Duration deadline) {
        this.stopDeadline = positive("stopDeadline", deadline);
        return this;
    }

    /**
     * How long a dead-letter send may take, waiting for the topic's metadata included (the dead-letter producer's
     * {@code max.block.ms} is capped at it) and the broker's acknowledgement; a send that fails or times out stops the
     * partition at the record. Default 30 s.
     */
    public ListenerContainerBuilder<K, V> deadLetterTimeout(Duration timeout) {
        this.deadLetterTimeout = positive("deadLetterTimeout", timeout);
        return this;
    }

    /**
     * A test seam: the retry backoffs are waited in place, through this sleeper, instead of by polling with the
     * partition paused (the default; a rebalance then never waits for a backoff).
     */
    public ListenerContainerBuilder<K, V> sleeper(Sleeper sleeper) {
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        return this;
    }

    /** The watchdog's time source; default {@link System#nanoTime()}. */
    public ListenerContainerBuilder<K, V> ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    public ListenerContainerBuilder<K, V> metrics(ContainerMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        return this;
    }

    public ListenerContainerBuilder<K, V> listener(ContainerListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Further options of every worker's consumer (commit interval, start position, out-of-range policy, revocation
     * timeout, member options). Group, topics, properties and deserializers are the container's (it consumes raw
     * {@code ByteBuffer}s and deserializes them itself), and so is the rebalance listener (it keeps each claim's fencing
     * token with the records fetched under it; a {@code listener} set here is replaced: use
     * {@link #onPartitionsAssigned}). Applied once per worker, and once by {@link #build()} to
     * validate the result.
     */
    public ListenerContainerBuilder<K, V> consumerOptions(Consumer<CoordinatedConsumer.Builder<?, ?>> options) {
        this.consumerOptions = Objects.requireNonNull(options, "consumerOptions");
        return this;
    }

    /**
     * Called on a worker's thread when it gains partitions, before their first fetch, with a seeker to position them
     * (an offset kept in the application's own store, a point in time), and the fencing token of each partition's
     * claim ({@link AssignmentHook.Seeker#fencingToken}: open a fencing sink with it, as
     * {@link io.groupkeeper.kafka.jdbc.FencedJdbcSink#assignmentHook()} does). It runs in the workers' consumers'
     * rebalance listener, which replaces a {@code listener} set through {@link #consumerOptions}.
     */
    public ListenerContainerBuilder<K, V> onPartitionsAssigned(AssignmentHook hook) {
        this.assignmentHook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /**
     * Report {@link ContainerListener#idle} when a worker has fetched nothing for this long (and again every such
     * interval while it stays quiet); off by default.
     */
    public ListenerContainerBuilder<K, V> idleEventInterval(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("idleEventInterval must be positive, was " + interval);
        }
        this.idleEventInterval = interval;
        return this;
    }

    /**
     * The transactional mode, exactly once into Kafka (docs/exactly-once.md): each worker's consumer runs in
     * {@code CoordinatedConsumer}'s transactional mode (a fenced transactional producer per owned input partition),
     * and what a handler sends with {@link HandlerContext#sender()} commits in one Kafka transaction with the input
     * partition's position. The records of a handler call that throws are dropped (a retry starts clean); a record
     * that is dead-lettered goes to its dead-letter topic in the same transaction as the position past it. These
     * serializers (shared by the workers, thread-safe then; not closed by the container) turn the handler's keys and
     * values into bytes.
     */
    public ListenerContainerBuilder<K, V> transactional(Serializer<?> keySerializer, Serializer<?> valueSerializer) {
        this.outputKeySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
        this.outputValueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
        return this;
    }

    /** The prefix of the transactional producers' {@code transactional.id}s; default {@code groupkeeper/}. */
    public ListenerContainerBuilder<K, V> transactionalIdPrefix(String prefix) {
        Objects.requireNonNull(prefix, "transactionalIdPrefix");
        if (prefix.isBlank()) {
            throw new IllegalArgumentException("transactionalIdPrefix must not be blank");
        }
        this.transactionalIdPrefix = prefix;
        return this;
    }

    /**
     * Manual acknowledgements, as Spring Kafka's {@code AckMode.MANUAL}: a partition's committed position is the last
     * record its handler acknowledged ({@link HandlerContext#acknowledge()}) + 1 — acknowledging a record commits it
     * and every record before it, acknowledged or not — never above what was handled; a record not acknowledged is not
     * committed, so it runs again after a restart or at its partition's next owner. {@link HandlerContext#nack}
     * hands the current record back to run again after a sleep. Default false (every record done is committed).
     * For a {@link #recordHandler} with ordering {@code PARTITION}, parallelism 1 and no transactional mode
     * ({@link #build()} refuses the rest, naming it). docs/service.md, "Manual acknowledgements".
     */
    public ListenerContainerBuilder<K, V> manualAcks(boolean on) {
        this.manualAcks = on;
        return this;
    }

    /** A property of the transactional producers only (over the Kafka properties), e.g. {@code linger.ms}. */
    public ListenerContainerBuilder<K, V> producerProperty(String key, Object value) {
        Objects.requireNonNull(key, "producer property key");
        producerProperties.put(key, Objects.requireNonNull(value, () -> "value of producer property " + key));
        return this;
    }

    /**
     * Told when a worker creates or closes a Kafka client (its consumer, the transactional producers) and about the
     * dead-letter producer: e.g. {@link MicrometerKafkaClientMetrics}, which binds their metrics to a meter registry.
     */
    public ListenerContainerBuilder<K, V> clientListener(KafkaClientListener listener) {
        this.clientListener = Objects.requireNonNull(listener, "clientListener");
        return this;
    }

    public ListenerContainer<K, V> build() {
        String what = "ListenerContainer" + (group == null ? "" : " of group " + group);
        if (group == null) {
            throw new IllegalStateException(what + ": group is required");
        }
        if (topics.isEmpty()) {
            throw new IllegalStateException(what + ": at least one topic is required");
        }
        int handlers =
                (recordHandler == null ? 0 : 1) + (batchHandler == null ? 0 : 1) + (asyncHandler == null ? 0 : 1);
        if (handlers != 1) {
            throw new IllegalStateException(what + ": exactly one of recordHandler, batchHandler and asyncHandler is "
                    + "required, " + handlers + " given");
        }
        boolean beyondOne = ordering != Ordering.PARTITION || parallelism > 1;
        if (batchHandler != null && beyondOne) {
            throw new IllegalStateException(what + ": the batch handler takes one partition's fetched records in one "
                    + "call, in offset order, so it runs with ordering PARTITION and parallelism 1 only (was ordering "
                    + ordering + ", parallelism " + parallelism + "); use a record or asynchronous handler");
        }
        if (outputKeySerializer != null && (beyondOne || asyncHandler != null)) {
            throw new IllegalStateException(what + ": the transactional mode commits a partition's outputs with its "
                    + "position in one Kafka transaction, sent from the consumer's own thread one call at a time, so "
                    + "it runs with ordering PARTITION, parallelism 1 and a record or batch handler only (was ordering "
                    + ordering + ", parallelism " + parallelism
                    + (asyncHandler != null ? ", an asynchronous handler" : "") + ")");
        }
        if (limitsSet && (batchHandler != null || outputKeySerializer != null)) {
            throw new IllegalStateException(what + ": maxSpan, maxBufferedRecords and maxBufferedBytes bound the "
                    + "per-partition progress of the record and asynchronous handlers; the "
                    + (batchHandler != null ? "batch handler" : "transactional mode") + " runs with the defaults (one "
                    + "call at a time; the transactional mode hands back what it has not done before every poll): "
                    + "remove them (was " + limits + ")");
        }
        if (manualAcks && (recordHandler == null || beyondOne || outputKeySerializer != null)) {
            throw new IllegalStateException(what + ": manualAcks(true) commits a partition up to the last record its "
                    + "handler acknowledged, one record at a time on the worker's thread, so it runs with a record "
                    + "handler, ordering PARTITION, parallelism 1 and without the transactional mode only (was "
                    + (batchHandler != null
                            ? "a batch handler, "
                            : asyncHandler != null ? "an asynchronous handler, " : "")
                    + "ordering " + ordering + ", parallelism " + parallelism
                    + (outputKeySerializer != null ? ", transactional" : "") + ")");
        }
        if (keyDeserializer == null) {
            throw new IllegalStateException(what + ": deserializers(...) are required (they run in the container)");
        }
        Object bootstrap = kafkaProperties.get("bootstrap.servers");
        if (bootstrap == null || bootstrap.toString().isBlank()) {
            throw new IllegalStateException(what + ": kafka property bootstrap.servers is required");
        }
        Map<String, Object> props = new LinkedHashMap<>(kafkaProperties);
        props.remove("key.deserializer");
        props.remove("value.deserializer");
        for (String t : topics) {
            String dlt = deadLetterTopic.apply(t);
            if (errorPolicy.mayDeadLetter() && (dlt == null || topics.contains(dlt))) {
                throw new IllegalStateException(what + ": the dead-letter topic of " + t + " is " + dlt
                        + "; it must be a topic the container does not consume");
            }
        }
        ContainerConfig<K, V> config = new ContainerConfig<>(
                keeper,
                group,
                Set.copyOf(topics),
                Map.copyOf(props),
                Map.copyOf(deadLetterProducerProperties),
                keyDeserializer,
                valueDeserializer,
                sharedDeserializers,
                id == null ? group : id,
                instanceId,
                concurrency,
                recordHandler,
                batchHandler,
                errorPolicy,
                deadLetterTopic,
                createDeadLetterTopics != null ? createDeadLetterTopics : !deadLetterTopicNamed,
                checkDeadLetterTopics,
                watchdogLimit,
                pollTimeout,
                stopDeadline,
                deadLetterTimeout,
                sleeper,
                ticker,
                metrics,
                listener,
                consumerOptions,
                assignmentHook,
                idleEventInterval,
                transactionalConfig(),
                Map.copyOf(producerProperties),
                clientListener,
                ordering,
                parallelism,
                asyncHandler,
                limits,
                manualAcks);
        return new DefaultListenerContainer<>(config); // validates the workers' consumers' configuration
    }

    private TransactionalConfig transactionalConfig() {
        return outputKeySerializer == null
                ? null
                : new TransactionalConfig(
                        outputKeySerializer,
                        outputValueSerializer,
                        transactionalIdPrefix,
                        Map.copyOf(producerProperties));
    }

    private static Duration positive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }
}

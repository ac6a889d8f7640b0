package io.groupkeeper.kafka;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.Names;
import io.groupkeeper.kafka.internal.AdapterConfig;
import io.groupkeeper.kafka.internal.ConsumerBuilds;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.kafka.internal.TransactionalConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka consumer whose partitions are handed out by groupkeeper (ZooKeeper-coordinated groups) instead of Kafka's
 * group management: a real {@code KafkaConsumer} that only ever uses {@code assign()} and {@code seek()}, with offsets
 * committed to the group's offset store.
 *
 * <pre>{@code
 * try (GroupKeeper keeper = GroupKeeper.builder().store(ZooKeeperStore.builder().connectString(zk).build()).build().start();
 *      CoordinatedConsumer<String, String> consumer = CoordinatedConsumer.<String, String>builder(keeper)
 *              .group("billing").topics("orders")
 *              .kafkaProperty("bootstrap.servers", bootstrap)
 *              .deserializers(new StringDeserializer(), new StringDeserializer())
 *              .build().start()) {
 *     while (running) {
 *         for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
 *             process(r);
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p><b>Threads.</b> Like {@code KafkaConsumer}, one thread at a time calls {@link #poll}, {@link #commitSync} and
 * {@link #close} (concurrent use throws {@link java.util.ConcurrentModificationException}); {@link #wakeup()} and the
 * queries ({@link #assignment()}, {@link #memberId()}, ...) are safe from any thread. Coordination happens on the
 * member's own thread, which hands every change to the polling thread (a queue plus {@code KafkaConsumer.wakeup()}); the
 * {@code KafkaConsumer} is only ever touched by the polling thread. The user's {@link ConsumerRebalanceListener} runs
 * on the polling thread, inside {@code poll()}, as with Kafka.
 *
 * <p><b>Delivery: at least once.</b> Records returned by a {@code poll()} count as processed when the same thread next
 * calls {@code poll()}, {@link #commitSync()} or {@link #close()} (as with Kafka's auto-commit). Positions are committed
 * every {@linkplain Builder#commitInterval commit interval} (checked at each {@code poll()}), on every revocation and on
 * close. A graceful leave therefore loses and repeats nothing; a crash repeats at most what was delivered after the last
 * commit. In the {@linkplain Builder#transactional transactional mode} outputs sent with {@link #send} commit with the
 * positions in one Kafka transaction per input partition: exactly once into Kafka (docs/exactly-once.md).
 *
 * <p><b>Revocation.</b> When a partition must move to another member, the member waits until this consumer's thread
 * has stopped fetching it and committed its final position, and only then releases it to the next owner
 * (invariant I1). That happens inside the next {@code poll()} or {@code commitSync()}; if the thread is busy with a
 * batch, the move waits for it, at most {@linkplain Builder#revocationTimeout the revocation timeout} (default 30 s,
 * compare Kafka's {@code max.poll.interval.ms}). After that the partition is released without a final commit (one WARN;
 * the next owner repeats from the last commit) and this consumer drops it at its next call.
 *
 * <p><b>External edits win (I4).</b> If an admin or a hand edit changes a stored offset of an owned partition, the
 * consumer seeks there within one poll, discarding records it had fetched but not yet returned.
 *
 * <p>About 510 lines, most of them Javadoc: the contract users program against (ownership, commits, revocation, the
 * transactional mode) and its one builder, whose options are documented where they are set.
 */
public interface CoordinatedConsumer<K, V> extends AutoCloseable {

    /**
     * A builder for a consumer on {@code keeper}, which must be started; the caller owns it and closes it after the
     * consumers built on it.
     */
    static <K, V> Builder<K, V> builder(GroupKeeper keeper) {
        return new Builder<>(keeper);
    }

    /**
     * Creates the {@code KafkaConsumer}, joins the group and starts following its assignment. Returns this.
     *
     * @throws IllegalStateException if already started or closed
     */
    CoordinatedConsumer<K, V> start();

    /**
     * Returns records of the partitions this member owns, waiting up to {@code timeout}; handles assignment changes,
     * external offset edits and periodic commits on the way. Everything returned by the previous call counts as
     * processed.
     *
     * @throws OffsetOutOfRangePolicyException once per partition stopped by {@link OutOfRangePolicy#FAIL}
     * @throws WakeupException if {@link #wakeup()} was called
     * @throws org.apache.kafka.common.KafkaException for Kafka failures that {@code KafkaConsumer.poll} would throw
     *                                                  (e.g. a record that does not deserialize)
     */
    ConsumerRecords<K, V> poll(Duration timeout);

    /**
     * The transactional mode ({@link Builder#transactional}): sends {@code output} in the open Kafka transaction of
     * the owned input partition {@code input} (opening one if needed). That transaction commits together with the
     * input partition's position at the next commit point (commit interval, {@link #commitSync()}, revocation,
     * {@link #close()}); if this member loses the partition first, it is aborted and the output never reaches
     * {@code read_committed} readers. Send the outputs of a record before the next {@code poll()}. Polling thread
     * only. The record's key and value must suit the serializers given to {@link Builder#transactional}.
     *
     * @throws IllegalStateException if not in the transactional mode, or {@code input} is not owned
     */
    default Future<RecordMetadata> send(TopicPartition input, ProducerRecord<?, ?> output) {
        throw new IllegalStateException("send() needs the transactional mode (Builder.transactional)");
    }

    /**
     * The transactional mode: aborts the open transaction of the owned input partition {@code input} now (one of its
     * outputs failed, so it could never commit) and moves the partition back to where that transaction began: the
     * records whose outputs were in it are returned again by the next {@code poll()}. Returns that offset (the
     * partition's position now). Nothing is aborted when no transaction is open. Polling thread only.
     *
     * @throws IllegalStateException if not in the transactional mode, or {@code input} is not owned
     */
    default long abort(TopicPartition input) {
        throw new IllegalStateException("abort() needs the transactional mode (Builder.transactional)");
    }

    /**
     * Serves pending assignment changes, then commits the position of every owned partition (everything returned by
     * {@code poll()} so far counts as processed).
     *
     * @throws io.groupkeeper.spi.StoreException if the store cannot be reached
     */
    void commitSync();

    /**
     * The partitions this member owns right now, as last applied by the polling thread (including any stopped by
     * {@link OutOfRangePolicy#FAIL}). Safe from any thread.
     */
    Set<TopicPartition> assignment();

    /**
     * The fencing token of an owned partition (see {@link io.groupkeeper.GroupMember#fencingToken}): grows with every
     * change of hands and never repeats. Pass it with every write to a downstream store so that the store can refuse a
     * former owner that has not noticed it lost the partition (a long pause, a cut network). Empty while not owned.
     */
    OptionalLong fencingToken(TopicPartition partition);

    String groupId();

    /** The member id in the group (the instance id for a static member). */
    String memberId();

    /** Whether this consumer's member is the group's elected rebalancer right now. */
    boolean isLeader();

    /**
     * Subscribed topics that Kafka reported missing at this member's last check (at start, while it leads the group,
     * and while a topic is missing). The group keeps consuming its other topics; a missing topic's partitions are
     * assigned when it appears.
     */
    Set<String> missingTopics();

    /**
     * Moves the position of an owned partition: the next {@code poll()} returns its records from {@code offset}, and
     * that is the position committed next. Polling thread only. Used to hand back records fetched but not processed
     * (a listener container that stops a partition or shuts down mid-batch).
     *
     * @throws IllegalStateException if the partition is not owned
     */
    void seek(TopicPartition partition, long offset);

    /**
     * Stops fetching these owned partitions (Kafka's {@code pause}) while keeping their ownership; not-owned ones are
     * ignored. They stay paused across rebalances while they stay owned; a paused partition that is revoked or lost
     * is simply forgotten. Polling thread only.
     */
    void pause(Collection<TopicPartition> partitions);

    /** Fetches these paused partitions again. Polling thread only. */
    void resume(Collection<TopicPartition> partitions);

    /**
     * Sets the metadata written with an owned partition's offset from its next commit on ("" for none, the default):
     * a {@link io.groupkeeper.status.StoppedMark} while the application keeps the partition stopped (the listener
     * container does), so that lag status ({@code groups describe --status}, the monitor) says STOP with the mark's
     * reason until it runs again. A change is written at the next periodic commit, even if the position did not move.
     * Not-owned partitions are ignored; a partition gained again starts with none. Polling thread only.
     */
    void offsetMetadata(TopicPartition partition, String metadata);

    /** The owned partitions paused by {@link #pause}. Safe from any thread. */
    Set<TopicPartition> paused();

    /** Makes the current or next {@link #poll} throw {@link WakeupException}. Safe from any thread. */
    void wakeup();

    /**
     * Graceful leave: serves pending changes, calls the listener's {@code onPartitionsRevoked} for everything owned,
     * commits final positions, stops fetching, then leaves the group (its partitions are released to the others) and
     * closes the {@code KafkaConsumer}. Failures are logged, never thrown.
     */
    @Override
    void close();

    /**
     * Configures a {@link CoordinatedConsumer}; {@link #build()} validates every option and fails fast naming the bad
     * one. Kafka properties pass through to the {@code KafkaConsumer} untouched (security, SASL/SSL, fetch sizes,
     * {@code client.id}, deserializer classes ...), except that offsets are groupkeeper's: {@code enable.auto.commit}
     * is forced to {@code false} and {@code auto.offset.reset} to {@code none} (setting either to anything else fails),
     * and Kafka's group management ({@code subscribe}) is never used. The same properties (those the Admin client
     * knows) configure the Admin client that reads partition counts.
     */
    final class Builder<K, V> {
        static { // the container's workers build on the simulator's clients through this (ConsumerBuilds)
            ConsumerBuilds.configs(Builder::config);
        }

        private final GroupKeeper keeper;
        private String groupId;
        private final Set<String> topics = new LinkedHashSet<>();
        private final Map<String, Object> kafkaProperties = new LinkedHashMap<>();
        private Deserializer<K> keyDeserializer;
        private Deserializer<V> valueDeserializer;
        private Duration commitInterval = Duration.ofSeconds(1);
        private Duration metadataRefreshInterval = Duration.ofSeconds(2);
        private Duration revocationTimeout = Duration.ofSeconds(30);
        private Duration kafkaTimeout = Duration.ofSeconds(10);
        private StartPosition startPosition = StartPosition.latest();
        private OutOfRangePolicy outOfRange = OutOfRangePolicy.EARLIEST;
        private ConsumerRebalanceListener listener;
        private String instanceId;
        private Consumer<GroupKeeper.MemberBuilder> memberOptions = m -> {};
        private boolean mirror;
        private String mirrorGroup;
        private Serializer<?> outputKeySerializer;
        private Serializer<?> outputValueSerializer;
        private String transactionalIdPrefix = "groupkeeper/";
        private final Map<String, Object> producerProperties = new LinkedHashMap<>();
        private KafkaClientListener clientListener = KafkaClientListener.NONE;

        private Builder(GroupKeeper keeper) {
            this.keeper = Objects.requireNonNull(keeper, "keeper");
        }

        /** The consumer group. Required. */
        public Builder<K, V> group(String groupId) {
            this.groupId = Names.requireValid("group id", groupId);
            return this;
        }

        /** Kafka topics to consume; at least one. */
        public Builder<K, V> topics(String... topics) {
            for (String t : topics) {
                this.topics.add(Names.requireValid("topic", t));
            }
            return this;
        }

        public Builder<K, V> topics(Collection<String> topics) {
            return topics(topics.toArray(String[]::new));
        }

        /** Kafka client properties, passed through ({@code bootstrap.servers} is required). */
        public Builder<K, V> kafkaProperties(Map<String, ?> properties) {
            Objects.requireNonNull(properties, "kafkaProperties").forEach(this::kafkaProperty);
            return this;
        }

        public Builder<K, V> kafkaProperties(Properties properties) {
            Objects.requireNonNull(properties, "kafkaProperties");
            properties.stringPropertyNames().forEach(k -> kafkaProperty(k, properties.getProperty(k)));
            return this;
        }

        public Builder<K, V> kafkaProperty(String key, Object value) {
            Objects.requireNonNull(key, "kafka property key");
            Objects.requireNonNull(value, () -> "value of kafka property " + key);
            kafkaProperties.put(key, value);
            return this;
        }

        /** Deserializer instances; alternatively set {@code key.deserializer}/{@code value.deserializer} classes. */
        public Builder<K, V> deserializers(Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
            this.keyDeserializer = Objects.requireNonNull(keyDeserializer, "keyDeserializer");
            this.valueDeserializer = Objects.requireNonNull(valueDeserializer, "valueDeserializer");
            return this;
        }

        /** How often positions are committed (checked at each {@code poll()}); default 1 s. */
        public Builder<K, V> commitInterval(Duration commitInterval) {
            this.commitInterval = positive("commitInterval", commitInterval);
            return this;
        }

        /** Where partitions without a committed offset start; default {@link StartPosition#latest()}. */
        public Builder<K, V> startPosition(StartPosition startPosition) {
            this.startPosition = Objects.requireNonNull(startPosition, "startPosition");
            return this;
        }

        /** What to do with an offset outside the log; default {@link OutOfRangePolicy#EARLIEST}. */
        public Builder<K, V> outOfRange(OutOfRangePolicy outOfRange) {
            this.outOfRange = Objects.requireNonNull(outOfRange, "outOfRange");
            return this;
        }

        /** User code's rebalance listener; runs on the polling thread, inside {@code poll()}. */
        public Builder<K, V> listener(ConsumerRebalanceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * How often the group's leader asks Kafka for partition counts (a partition increase, or a topic appearing or
         * disappearing, triggers a rebalance); default 2 s.
         */
        public Builder<K, V> metadataRefreshInterval(Duration interval) {
            this.metadataRefreshInterval = positive("metadataRefreshInterval", interval);
            return this;
        }

        /**
         * How long a revocation waits for the polling thread to come back ({@code poll}/{@code commitSync}) before the
         * partition is released without a final commit; default 30 s.
         */
        public Builder<K, V> revocationTimeout(Duration timeout) {
            this.revocationTimeout = positive("revocationTimeout", timeout);
            return this;
        }

        /** Upper bound for Kafka lookups (offsets by time, log bounds, partition counts); default 10 s. */
        public Builder<K, V> kafkaTimeout(Duration timeout) {
            this.kafkaTimeout = positive("kafkaTimeout", timeout);
            return this;
        }

        /** Makes this a static member with this id (see {@link GroupKeeper.MemberBuilder#instanceId}). */
        public Builder<K, V> instanceId(String instanceId) {
            this.instanceId = Names.requireValid("instance id", instanceId);
            return this;
        }

        /**
         * Further member options (assignor, settle delay, static grace period, host). Topics, listener, metadata and
         * instance id are set by this builder and override anything set here.
         */
        public Builder<K, V> memberOptions(Consumer<GroupKeeper.MemberBuilder> options) {
            this.memberOptions = Objects.requireNonNull(options, "memberOptions");
            return this;
        }

        /**
         * Also writes every offset committed to groupkeeper's store into Kafka's own group offset store, under the
         * group's name, so Kafka's tools ({@code kafka-consumer-groups --describe}, Burrow, lag exporters, Kafka UI)
         * see this group. Off by default. See {@link #mirrorOffsetsToKafka(String)}.
         */
        public Builder<K, V> mirrorOffsetsToKafka() {
            this.mirror = true;
            this.mirrorGroup = null;
            return this;
        }

        /**
         * As {@link #mirrorOffsetsToKafka()}, under the Kafka group id {@code kafkaGroupId}. The mirror is written
         * after each successful commit to the store, asynchronously, in Kafka transactions of one fenced producer
         * per owned partition (so a previous owner's late write never moves Kafka's offset back; the cluster must
         * allow transactions): it never blocks or fails consumption. A failed write is counted
         * ({@code groupkeeper.offsets.mirror.failures}) and logged as a rate-limited WARN. The store stays the source
         * of truth; the mirror is never read back. The Kafka group must not have members of its own (the mirror does
         * not write while it has). See docs/kafka-adapter.md.
         */
        public Builder<K, V> mirrorOffsetsToKafka(String kafkaGroupId) {
            Objects.requireNonNull(kafkaGroupId, "kafkaGroupId");
            if (kafkaGroupId.isBlank()) {
                throw new IllegalArgumentException("mirrorOffsetsToKafka: the Kafka group id must not be blank");
            }
            this.mirror = true;
            this.mirrorGroup = kafkaGroupId;
            return this;
        }

        /**
         * The transactional mode, exactly once into Kafka (docs/exactly-once.md): outputs sent with
         * {@link CoordinatedConsumer#send} and the input positions commit in one Kafka transaction per input
         * partition. One transactional producer per owned input partition, {@code transactional.id}
         * {@code <prefix><group>/<topic>/<partition>}, initialised when the partition is claimed, before its first
         * record is fetched: that fences the former owner's producer and aborts its open transaction. Kafka's
         * transactional offset of the group (the group id as Kafka group) is the offset of record; ZooKeeper's offset
         * node is written right after each Kafka commit, and an operator's change of it wins. Not with
         * {@link #mirrorOffsetsToKafka()} (this mode writes Kafka's group offsets itself). The producers take the
         * Kafka properties a producer knows, plus {@link #producerProperty}.
         */
        public <KO, VO> Builder<K, V> transactional(Serializer<KO> keySerializer, Serializer<VO> valueSerializer) {
            this.outputKeySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
            this.outputValueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
            return this;
        }

        /** The prefix of the transactional mode's {@code transactional.id}s; default {@code groupkeeper/}. */
        public Builder<K, V> transactionalIdPrefix(String prefix) {
            Objects.requireNonNull(prefix, "transactionalIdPrefix");
            if (prefix.isBlank()) {
                throw new IllegalArgumentException("transactionalIdPrefix must not be blank");
            }
            this.transactionalIdPrefix = prefix;
            return this;
        }

        /**
         * A property of the transactional mode's producers only (e.g. {@code linger.ms},
         * {@code transaction.timeout.ms}). {@code transactional.id}, the serializers, {@code enable.idempotence=false}
         * and {@code acks} other than {@code all} fail at {@link #build()}.
         */
        public Builder<K, V> producerProperty(String key, Object value) {
            Objects.requireNonNull(key, "producer property key");
            Objects.requireNonNull(value, () -> "value of producer property " + key);
            producerProperties.put(key, value);
            return this;
        }

        /**
         * Told when this consumer creates or closes its Kafka clients (the {@code KafkaConsumer}, the transactional
         * mode's producers): to bind their metrics.
         */
        public Builder<K, V> clientListener(KafkaClientListener listener) {
            this.clientListener = Objects.requireNonNull(listener, "clientListener");
            return this;
        }

        private TransactionalConfig transactionalConfig() {
            if (outputKeySerializer == null) {
                if (!producerProperties.isEmpty()) {
                    throw new IllegalStateException("CoordinatedConsumer for group " + groupId
                            + ": producer properties " + producerProperties.keySet()
                            + " are set but the transactional mode is not (transactional(...))");
                }
                return null;
            }
            if (mirror) {
                throw new IllegalStateException("CoordinatedConsumer for group " + groupId + ": mirrorOffsetsToKafka "
                        + "and transactional(...) exclude each other (the transactional mode commits Kafka's group "
                        + "offsets itself)");
            }
            Map<String, Object> all = new LinkedHashMap<>(kafkaProperties);
            all.putAll(producerProperties);
            for (String forbidden : new String[] {"transactional.id", "key.serializer", "value.serializer"}) {
                if (producerProperties.containsKey(forbidden)) {
                    throw new IllegalArgumentException(
                            "CoordinatedConsumer for group " + groupId + ": producer property "
                                    + forbidden + "=" + producerProperties.get(forbidden)
                                    + " is not allowed in the transactional "
                                    + "mode (ids are derived per input partition; serializers are given to transactional(...))");
                }
            }
            Object idempotence = all.get("enable.idempotence");
            if (idempotence != null && !idempotence.toString().trim().equalsIgnoreCase("true")) {
                throw new IllegalArgumentException("CoordinatedConsumer for group " + groupId + ": property "
                        + "enable.idempotence=" + idempotence + " conflicts with the transactional mode (needs true)");
            }
            Object acks = all.get("acks");
            if (acks != null
                    && !acks.toString().trim().equalsIgnoreCase("all")
                    && !acks.toString().trim().equals("-1")) {
                throw new IllegalArgumentException("CoordinatedConsumer for group " + groupId + ": property acks="
                        + acks + " conflicts with the transactional mode (needs all)");
            }
            return new TransactionalConfig(
                    outputKeySerializer, outputValueSerializer, transactionalIdPrefix, Map.copyOf(producerProperties));
        }

        /** Validates the options and creates the consumer (not started). */
        public CoordinatedConsumer<K, V> build() {
            return new DefaultCoordinatedConsumer<>(config());
        }

        /**
         * Checks the options as {@link #build()} and {@code start()} would, creating nothing: the checks of
         * {@code build()}, then the Kafka properties parsed as the {@code KafkaConsumer} and, in the transactional
         * mode, its producers will parse them. Throws what they would throw, naming the bad setting. For code that
         * builds consumers later from options given now (the listener container's {@code build()}).
         */
        public void validate() {
            DefaultCoordinatedConsumer.validateProperties(config());
        }

        private AdapterConfig<K, V> config() {
            if (groupId == null) {
                throw new IllegalStateException("CoordinatedConsumer: group is required");
            }
            if (topics.isEmpty()) {
                throw new IllegalStateException(
                        "CoordinatedConsumer for group " + groupId + ": at least one topic is required");
            }
            Object bootstrap = kafkaProperties.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
            if (bootstrap == null || bootstrap.toString().isBlank()) {
                throw new IllegalStateException(
                        "CoordinatedConsumer for group " + groupId + ": kafka property bootstrap.servers is required");
            }
            requireManaged(
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                    "false",
                    "offsets are committed to groupkeeper's store; see commitInterval()");
            requireManaged(
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none", "use startPosition() and outOfRange() instead");
            if (keyDeserializer == null && !kafkaProperties.containsKey(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG)) {
                throw new IllegalStateException("CoordinatedConsumer for group " + groupId
                        + ": a key deserializer is required (deserializers(...) or kafka property key.deserializer)");
            }
            if (valueDeserializer == null
                    && !kafkaProperties.containsKey(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
                throw new IllegalStateException(
                        "CoordinatedConsumer for group " + groupId
                                + ": a value deserializer is required (deserializers(...) or kafka property value.deserializer)");
            }
            return new AdapterConfig<>(
                    keeper,
                    groupId,
                    Set.copyOf(topics),
                    Map.copyOf(kafkaProperties),
                    keyDeserializer,
                    valueDeserializer,
                    commitInterval,
                    metadataRefreshInterval,
                    revocationTimeout,
                    kafkaTimeout,
                    startPosition,
                    outOfRange,
                    listener,
                    instanceId,
                    memberOptions,
                    mirror ? (mirrorGroup == null ? groupId : mirrorGroup) : null,
                    transactionalConfig(),
                    clientListener);
        }

        private void requireManaged(String key, String value, String hint) {
            Object set = kafkaProperties.get(key);
            if (set != null && !set.toString().trim().equalsIgnoreCase(value)) {
                throw new IllegalArgumentException("CoordinatedConsumer for group " + groupId + ": kafka property "
                        + key + "=" + set + " is not allowed (it is always " + value + "): " + hint);
            }
        }

        private static Duration positive(String what, Duration d) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, was " + d);
            }
            return d;
        }
    }
}

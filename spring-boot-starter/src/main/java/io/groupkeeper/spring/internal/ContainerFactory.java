package io.groupkeeper.spring.internal;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.spring.GroupKeeperProperties;
import io.groupkeeper.spring.GroupKeeperProperties.Listener;
import io.groupkeeper.spring.GroupKeeperSeekAware;
import io.groupkeeper.spring.ListenerIdleEvent;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

/**
 * Builds a {@link ListenerContainer} for a {@link ListenerEndpoint}: the annotation's attributes win over
 * {@code groupkeeper.listeners.<id>.*}, which win over {@code groupkeeper.listener.*}; Kafka settings from
 * {@code spring.kafka.*} (consumer properties for the workers, producer properties for dead letters).
 *
 * <p>About 680 lines: every listener setting's precedence (the annotation, then {@code groupkeeper.listeners.<id>.*},
 * then {@code groupkeeper.listener.*}, then Spring Kafka's) is resolved here, one short method per setting, and
 * {@link #create} applies them to the builder in one place, so a setting and its precedence are read together.
 */
public final class ContainerFactory {

    private final GroupKeeper keeper;
    private final GroupKeeperProperties properties;
    private final KafkaProperties kafka;
    private final ContainerMetrics metrics;
    private final BeanFactory beans;
    private final ObservationRegistry observations;
    private final ApplicationEventPublisher events;
    /** The Kafka client metrics of a listener (id, group); null without a meter registry. */
    private final BiFunction<String, String, KafkaClientListener> clientMetrics;

    private SpringKafkaSettings springKafka;

    public ContainerFactory(
            GroupKeeper keeper,
            GroupKeeperProperties properties,
            KafkaProperties kafka,
            ContainerMetrics metrics,
            BeanFactory beans,
            ObservationRegistry observations,
            ApplicationEventPublisher events,
            BiFunction<String, String, KafkaClientListener> clientMetrics) {
        this.keeper = keeper;
        this.events = events;
        this.clientMetrics = clientMetrics;
        this.observations = observations;
        this.properties = properties;
        this.kafka = kafka;
        this.metrics = metrics;
        this.beans = beans;
    }

    /**
     * Fails naming every Spring Kafka bean and {@code spring.kafka.*} setting of this application that the
     * {@code endpoints} would not apply (none is silently ignored); returns those the application acknowledged in
     * {@code groupkeeper.spring-kafka-only}.
     */
    public List<String> checkSpringKafka(List<ListenerEndpoint> endpoints) {
        List<String> acknowledged = new ArrayList<>();
        if (springKafka == null || endpoints.isEmpty()) {
            return acknowledged;
        }
        List<String> refused = springKafka.refused(endpoints, acknowledged);
        if (!refused.isEmpty()) {
            throw new IllegalStateException(SpringKafkaSettings.message(refused));
        }
        return acknowledged;
    }

    private RetryTopics retryTopics;

    /** The {@code @RetryableTopic} endpoints' support (null: none). */
    public ContainerFactory retryTopics(RetryTopics support) {
        this.retryTopics = support;
        return this;
    }

    private Deserializer<Object> retryable(ListenerEndpoint e, Deserializer<Object> d, boolean isKey) {
        return retryTopics == null ? d : retryTopics.capture(e.id(), d, isKey);
    }

    /** Checks the application's Spring Kafka beans and settings at start ({@link #checkSpringKafka}). */
    public ContainerFactory springKafka(SpringKafkaSettings settings) {
        this.springKafka = settings;
        return this;
    }

    /** Whether the endpoint's container starts with the context. */
    public boolean autoStartup(ListenerEndpoint e) {
        if (!e.autoStartup().isBlank()) {
            return Boolean.parseBoolean(e.autoStartup().trim());
        }
        return first(
                own(e).getAutoStartup(),
                properties.getListener().getAutoStartup(),
                kafka.getListener().isAutoStartup());
    }

    public Duration stopDeadline(ListenerEndpoint e) {
        return first(own(e).getStopDeadline(), properties.getListener().getStopDeadline(), Duration.ofSeconds(20));
    }

    @SuppressWarnings("unchecked")
    /** A {@code topicPattern} listener's topics now (sorted), or null when it has none or Kafka cannot tell now. */
    public List<String> patternTopics(ListenerEndpoint e) {
        if (e.topicPattern().isEmpty()) {
            return null;
        }
        try {
            return TopicPatterns.matching(e, kafka.buildConsumerProperties(), Duration.ofSeconds(30));
        } catch (RuntimeException ex) {
            LoggerFactory.getLogger(ContainerFactory.class)
                    .warn("groupkeeper listener '{}': {}", e.id(), ex.getMessage());
            return null;
        }
    }

    /** How often {@code topicPattern} listeners are re-evaluated (the consumer's {@code metadata.max.age.ms}). */
    public Duration patternInterval() {
        return TopicPatterns.interval(kafka.buildConsumerProperties());
    }

    /** The endpoint with a {@code topicPattern} resolved to the topics matching it now. */
    public ListenerEndpoint resolveTopics(ListenerEndpoint declared) {
        return TopicPatterns.resolve(declared, kafka.buildConsumerProperties(), Duration.ofSeconds(30));
    }

    public ListenerContainer<Object, Object> create(ListenerEndpoint declared) {
        ListenerEndpoint e =
                declared.topicPattern().isEmpty() || !declared.topics().isEmpty() ? declared : resolveTopics(declared);
        Listener own = own(e);
        Listener all = properties.getListener();
        String where = "groupkeeper listener '" + e.id() + "' (" + e.method() + ")";

        Map<String, Object> consumer = new LinkedHashMap<>(kafka.buildConsumerProperties());
        if (kafka.getListener().getClientId() != null) { // Spring Kafka's listener client id: each worker adds -<n>
            consumer.putIfAbsent(
                    ConsumerConfig.CLIENT_ID_CONFIG, kafka.getListener().getClientId());
        }
        // One key and one value deserializer per worker (closed with it); the classes are resolved now, failing fast.
        Class<?> keyType = deserializerClass(consumer.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG), true);
        Class<?> valueType = deserializerClass(consumer.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG), false);
        Map<String, Object> deserializerConfig = Collections.unmodifiableMap(new LinkedHashMap<>(consumer));
        consumer.remove(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG); // offsets are groupkeeper's
        consumer.remove(ConsumerConfig.GROUP_ID_CONFIG); // the group is the annotation's
        Object reset = consumer.remove(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG);
        String start = first(
                own.getStartPosition(),
                all.getStartPosition(),
                reset == null || "none".equals(reset.toString()) ? "latest" : reset.toString());

        ListenerContainerBuilder<Object, Object> b = ListenerContainer.builder(keeper)
                .id(e.id())
                .group(e.group())
                .topics(e.topics())
                .kafkaProperties(consumer)
                .deserializers(
                        () -> retryable(e, deserializer(keyType, deserializerConfig, true), true),
                        () -> e.method()
                                .valueDeserializer(
                                        retryable(e, deserializer(valueType, deserializerConfig, false), false),
                                        payloadJson()))
                .concurrency(concurrency(e, own, all, where))
                .errorPolicy(errorPolicy(e, own, all, where))
                .watchdog(first(own.getWatchdog(), all.getWatchdog(), Duration.ofSeconds(30)))
                .stopDeadline(stopDeadline(e))
                .metrics(metrics);
        producerProperties().forEach((k, v) -> {
            if (!k.equals(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG)
                    && !k.equals(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)
                    && !k.equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG)
                    && v != null) {
                b.deadLetterProducerProperty(k, v);
            }
        });
        String fixedTopic = !e.deadLetterTopic().isBlank()
                ? e.deadLetterTopic()
                : first(own.getDeadLetter().getTopic(), all.getDeadLetter().getTopic(), null);
        if (fixedTopic != null) {
            b.deadLetterTopic(fixedTopic); // named: must exist unless create-topics=true
        } else {
            String suffix =
                    first(own.getDeadLetter().getSuffix(), all.getDeadLetter().getSuffix());
            if (suffix != null) { // named by a suffix of the user's: must exist unless create-topics=true
                b.deadLetterTopics((Function<String, String>) t -> t + suffix);
            } // else the container's default, <topic>-dlt, created at start if missing
        }
        String instanceId = first(own.getInstanceId(), all.getInstanceId());
        if (instanceId != null && !instanceId.isBlank()) {
            b.instanceId(instanceId);
        }
        Boolean create =
                first(own.getDeadLetter().getCreateTopics(), all.getDeadLetter().getCreateTopics());
        if (create != null) {
            b.createDeadLetterTopics(create);
        }
        StartPosition startPosition = StartPosition.parse(start);
        Duration commitInterval = first(own.getCommitInterval(), all.getCommitInterval(), Duration.ofSeconds(1));
        boolean mirror = first(own.getMirrorOffsets(), all.getMirrorOffsets(), false);
        String mirrorGroup = first(own.getMirrorGroup(), all.getMirrorGroup(), e.group());
        b.consumerOptions(c -> {
            c.startPosition(startPosition).commitInterval(commitInterval);
            if (mirror) {
                c.mirrorOffsetsToKafka(mirrorGroup);
            }
        });
        boolean tx = transactional(e, own, all, where, b);
        ListenerTransactionTemplates templates = tx ? templates() : null; // a KafkaTemplate joins the transaction
        if (clientMetrics != null) {
            b.clientListener(clientMetrics.apply(e.id(), e.group()));
        }
        if (e.method().bean() instanceof GroupKeeperSeekAware seekAware) {
            b.onPartitionsAssigned((partitions, seeker) -> seekAware.onPartitionsAssigned(e.id(), partitions, seeker));
        }
        Duration idle = idleEventInterval(e, own, all, where);
        AtomicReference<ListenerContainer<Object, Object>> self = new AtomicReference<>();
        if (idle != null && events != null) {
            b.idleEventInterval(idle).listener(new ContainerListener() {
                @Override
                public void idle(String member, Duration idleFor) {
                    events.publishEvent(new ListenerIdleEvent(self.get(), e.id(), e.group(), member, idleFor));
                }
            });
        }
        if (e.method().sendTo() != null) { // Boot's reply template: the application's one KafkaTemplate
            @SuppressWarnings("unchecked")
            KafkaTemplate<Object, Object> template =
                    beans.getBeanProvider(KafkaTemplate.class).getIfUnique();
            if (template == null) {
                throw new IllegalStateException(where + ": @SendTo needs one KafkaTemplate bean to send the replies "
                        + "with (Spring Boot's, from spring.kafka.producer.*)");
            }
            e.method().replyWith(template);
        }
        if (springKafka != null) {
            e.method().validateWith(springKafka.validator()); // @Valid payloads, as Spring Kafka's registrar validates
        }
        ListenerObservation observation = new ListenerObservation(observations, e.group(), e.id());
        RecordFilterStrategy<Object, Object> filter = springKafka == null ? null : springKafka.recordFilter();
        if (filter != null && !e.method().valuesAsDeserialized(valueType, payloadJson())) {
            throw new IllegalStateException(where + ": the RecordFilterStrategy bean would see this listener's "
                    + "converted payloads, not the deserializer's values as in Spring Kafka: filter in the method, "
                    + "or take ConsumerRecord<K, V> (or list the bean in groupkeeper.spring-kafka-only)");
        }
        if (e.method().batch()) {
            BatchHandler<Object, Object> raw =
                    tx ? templates.wrap(e.method().batchHandler()) : e.method().batchHandler();
            BatchHandler<Object, Object> observed = observation.observe(raw);
            b.batchHandler(
                    filter == null
                            ? observed
                            : records -> { // Spring's FilteringBatchMessageListenerAdapter
                                List<ConsumerRecord<Object, Object>> kept =
                                        filter.filterBatch(new ArrayList<>(records));
                                if (!kept.isEmpty()) {
                                    observed.handle(kept);
                                } else if (!filter.ignoreEmptyBatch()) {
                                    raw.handle(kept);
                                }
                            });
        } else {
            RecordHandler<Object, Object> observed = observation.observe(
                    tx ? templates.wrap(e.method().recordHandler()) : e.method().recordHandler());
            RecordHandler<Object, Object> handler = filter == null
                    ? observed
                    : r -> { // true: discard, as Spring's
                        if (!filter.filter(r)) {
                            observed.handle(r);
                        }
                    };
            boolean retryTopic = retryTopics != null && retryTopics.handles(e.id()); // @RetryableTopic (RetryTopics)
            b.recordHandler(retryTopic ? retryTopics.handler(e, handler, self) : handler);
            if (retryTopic) {
                retryTopics.customize(e, b);
            }
        }
        ordering(b, e, own, all, where);
        String manual = manualAcks(b, e, tx, where);
        ListenerContainer<Object, Object> container;
        try {
            container = b.build(); // validated: only now talk to Kafka
        } catch (IllegalStateException ex) {
            if (manual != null && ex.getMessage() != null && ex.getMessage().contains("manualAcks(true)")) {
                throw new IllegalStateException(
                        where + ": spring.kafka.listener.ack-mode=" + manual + " is honoured "
                                + "for record listeners with ordering partition and parallelism 1 only: "
                                + ex.getMessage(),
                        ex);
            }
            throw ex;
        }
        if (first(own.getTakeOverKafkaOffsets(), all.getTakeOverKafkaOffsets(), true)) {
            ZooKeeperStore store = beans.getBeanProvider(ZooKeeperStore.class).getIfAvailable();
            if (store != null) { // (an application's own GroupKeeper on another store: nothing to take over into)
                KafkaOffsetTakeover.takeOver(store, e.id(), e.group(), e.topics(), consumer, Duration.ofSeconds(30));
            }
        }

        self.set(container);
        return container;
    }

    /**
     * Spring Kafka's manual ack modes ({@code spring.kafka.listener.ack-mode=MANUAL | MANUAL_IMMEDIATE}): every
     * listener commits only what it acknowledges (one without an {@code Acknowledgment} parameter commits nothing, as
     * in Spring Kafka). An {@code Acknowledgment} parameter without them is refused: Spring Kafka would fail each of its
     * records. Returns the mode, or null.
     */
    private String manualAcks(
            ListenerContainerBuilder<Object, Object> b, ListenerEndpoint e, boolean tx, String where) {
        String mode = springKafka == null ? null : springKafka.manualAckMode();
        if (mode == null) {
            if (e.method().takesAcknowledgment()) {
                throw new IllegalStateException(where + ": an Acknowledgment parameter needs "
                        + "spring.kafka.listener.ack-mode=MANUAL or MANUAL_IMMEDIATE (without it Spring Kafka fails "
                        + "every record: \"No Acknowledgment available as an argument, the listener container must "
                        + "have a MANUAL AckMode to populate the Acknowledgment.\"); set it, or remove the parameter "
                        + "(every record handled is then committed)");
            }
            return null;
        }
        if (e.method().batch()) {
            throw new IllegalStateException(where + ": spring.kafka.listener.ack-mode=" + mode + " is honoured for "
                    + "record listeners only, and this one is a batch listener: take one record, or remove the "
                    + "ack-mode (each batch handled is then committed)");
        }
        if (tx) {
            throw new IllegalStateException(where + ": spring.kafka.listener.ack-mode=" + mode + " with a "
                    + "transactional listener is not supported: the transaction commits the position with the "
                    + "outputs; remove the ack-mode or the transactional mode");
        }
        b.manualAcks(true);
        return mode;
    }

    /**
     * The transactional mode: the annotation's {@code transactional}, else the properties; serializers and producer
     * properties from {@code spring.kafka.producer.*}. A {@code TransactionalSender} parameter needs it.
     */
    private boolean transactional(
            ListenerEndpoint e, Listener own, Listener all, String where, ListenerContainerBuilder<Object, Object> b) {
        // with spring.kafka.producer.transaction-id-prefix, Boot makes every @KafkaListener container transactional
        boolean tx = !e.transactional().isBlank()
                ? Boolean.parseBoolean(e.transactional().trim())
                : first(
                        own.getTransactional(),
                        all.getTransactional(),
                        kafka.getProducer().getTransactionIdPrefix() != null);
        if (!tx) {
            if (e.method().takesSender()) {
                throw new IllegalStateException(where + ": a TransactionalSender parameter needs a transactional "
                        + "listener: @GroupKeeperListener(transactional = \"true\") or groupkeeper.listeners."
                        + e.id() + ".transactional=true");
            }
            return false;
        }
        Map<String, Object> producer = producerProperties();
        Object keyClass = producer.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        Object valueClass = producer.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        producer.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        Map<String, Object> serializerConfig = Collections.unmodifiableMap(new LinkedHashMap<>(producer));
        b.transactional(serializer(keyClass, serializerConfig, true), serializer(valueClass, serializerConfig, false));
        producer.forEach((k, v) -> {
            if (v != null) {
                b.producerProperty(k, v);
            }
        });
        String prefix = first(own.getTransactionalIdPrefix(), all.getTransactionalIdPrefix());
        if (prefix != null) {
            b.transactionalIdPrefix(prefix);
        }
        return true;
    }

    private ListenerTransactionTemplates templates;
    private PayloadJson payloadJson;

    /** The JSON mapper of payload conversion: the application's where it has one ({@link PayloadJson#select}). */
    private synchronized PayloadJson payloadJson() {
        return payloadJson != null ? payloadJson : (payloadJson = PayloadJson.select((ListableBeanFactory) beans));
    }

    private synchronized ListenerTransactionTemplates templates() {
        return templates != null
                ? templates
                : (templates = ListenerTransactionTemplates.of((ListableBeanFactory) beans));
    }

    /**
     * {@code spring.kafka.producer.*} as Boot builds them, except that without a producer bootstrap setting of their
     * own ({@code spring.kafka.producer.bootstrap-servers}, or {@code bootstrap.servers} in its properties) the
     * producers dial the consumers' servers ({@code spring.kafka.consumer.bootstrap-servers} may be the only one set),
     * not Boot's default {@code localhost:9092}.
     */
    private Map<String, Object> producerProperties() {
        Map<String, Object> producer = new LinkedHashMap<>(kafka.buildProducerProperties());
        boolean ownBootstrap = kafka.getProducer().getBootstrapServers() != null
                || kafka.getProducer().getProperties().containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)
                || kafka.getProperties().containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)
                || !List.of("localhost:9092").equals(kafka.getBootstrapServers());
        if (!ownBootstrap) {
            Object consumers = kafka.buildConsumerProperties().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
            if (consumers != null) {
                producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, consumers);
            }
        }
        return producer;
    }

    private static Serializer<?> serializer(Object configured, Map<String, Object> config, boolean isKey) {
        String property = "spring.kafka.producer." + (isKey ? "key" : "value") + "-serializer";
        Class<?> type;
        try {
            type = configured == null
                    ? StringSerializer.class
                    : configured instanceof Class<?> c
                            ? c
                            : ClassUtils.forName(configured.toString().trim(), ContainerFactory.class.getClassLoader());
        } catch (ClassNotFoundException ex) {
            throw new IllegalStateException(property + ": class " + configured + " not found", ex);
        }
        if (!Serializer.class.isAssignableFrom(type)) {
            throw new IllegalStateException(property + ": " + type.getName() + " is not a Kafka Serializer");
        }
        Serializer<?> s = (Serializer<?>) BeanUtils.instantiateClass(type);
        s.configure(config, isKey);
        return s;
    }

    private Duration idleEventInterval(ListenerEndpoint e, Listener own, Listener all, String where) {
        if (!e.idleEventInterval().isBlank()) {
            try {
                return DurationStyle.detectAndParse(e.idleEventInterval().trim());
            } catch (IllegalArgumentException ex) {
                throw new IllegalStateException(where + ": idleEventInterval '" + e.idleEventInterval()
                        + "' is not a duration (e.g. 30s, PT1M)");
            }
        }
        return first(
                own.getIdleEventInterval(),
                all.getIdleEventInterval(),
                kafka.getListener().getIdleEventInterval());
    }

    private Listener own(ListenerEndpoint e) {
        return properties.getListeners().getOrDefault(e.id(), new Listener());
    }

    private int concurrency(ListenerEndpoint e, Listener own, Listener all, String where) {
        if (!e.concurrency().isBlank()) {
            try {
                return Integer.parseInt(e.concurrency().trim());
            } catch (NumberFormatException ex) {
                throw new IllegalStateException(where + ": concurrency '" + e.concurrency() + "' is not a number");
            }
        }
        return first(
                own.getConcurrency(), all.getConcurrency(), kafka.getListener().getConcurrency(), 1);
    }

    /**
     * Sets the ordering, the parallelism and the progress limits only where given, so that batch and transactional
     * listeners keep theirs.
     */
    private static void ordering(
            ListenerContainerBuilder<Object, Object> b, ListenerEndpoint e, Listener own, Listener all, String where) {
        String ordering = e.ordering().isBlank() ? first(own.getOrdering(), all.getOrdering()) : e.ordering();
        if (ordering != null) {
            try {
                b.ordering(Ordering.valueOf(ordering.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                throw new IllegalStateException(
                        where + ": ordering '" + ordering + "' is not one of partition, key, " + "unordered");
            }
        }
        Integer parallelism = first(own.getParallelism(), all.getParallelism());
        if (!e.parallelism().isBlank()) {
            try {
                parallelism = Integer.parseInt(e.parallelism().trim());
            } catch (NumberFormatException ex) {
                throw new IllegalStateException(where + ": parallelism '" + e.parallelism() + "' is not a number");
            }
        }
        if (parallelism != null) {
            try {
                b.parallelism(parallelism);
            } catch (IllegalArgumentException ex) {
                throw new IllegalStateException(where + ": " + ex.getMessage(), ex);
            }
        }
        // the progress limits, only where given (the builder refuses them for batch and transactional listeners)
        Integer maxSpan = first(own.getMaxSpan(), all.getMaxSpan());
        Integer maxRecords = first(own.getMaxBufferedRecords(), all.getMaxBufferedRecords());
        DataSize maxBytes = first(own.getMaxBufferedBytes(), all.getMaxBufferedBytes());
        try {
            if (maxSpan != null) {
                b.maxSpan(maxSpan);
            }
            if (maxRecords != null) {
                b.maxBufferedRecords(maxRecords);
            }
            if (maxBytes != null) {
                b.maxBufferedBytes(maxBytes.toBytes());
            }
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    where + ": " + ex.getMessage() + " (groupkeeper.listener(s).max-span / "
                            + "max-buffered-records / max-buffered-bytes)",
                    ex);
        }
    }

    private ErrorPolicy errorPolicy(ListenerEndpoint e, Listener own, Listener all, String where) {
        if (!e.errorPolicy().isBlank()) {
            return beans.getBean(e.errorPolicy(), ErrorPolicy.class);
        }
        GroupKeeperProperties.Error o = own.getError();
        GroupKeeperProperties.Error a = all.getError();
        ErrorPolicy fromSpring;
        try {
            fromSpring = springKafka == null ? null : springKafka.errorHandlerPolicy();
        } catch (IllegalStateException ex) {
            throw new IllegalStateException(where + ": " + ex.getMessage(), ex);
        }
        if (fromSpring != null) { // the application's DefaultErrorHandler, as Boot gives it to every @KafkaListener
            for (GroupKeeperProperties.Error set : List.of(o, a)) {
                if (set.getAttempts() != null
                        || set.getBackoff() != null
                        || set.getBackoffMultiplier() != null
                        || set.getMaxBackoff() != null
                        || set.getRecovery() != null
                        || set.getRules() != null
                        || set.getDeserializationFailure() != null) {
                    throw new IllegalStateException(where + ": both the error handler bean '"
                            + springKafka.errorHandlerBean()
                            + "' and groupkeeper.listener(s).error.* are set; keep one "
                            + "(or list the bean in groupkeeper.spring-kafka-only)");
                }
            }
            return fromSpring;
        }
        int attempts = first(o.getAttempts(), a.getAttempts(), 3);
        Duration backoff = first(o.getBackoff(), a.getBackoff(), Duration.ofSeconds(1));
        double multiplier = first(o.getBackoffMultiplier(), a.getBackoffMultiplier(), 1.0);
        Duration max = first(o.getMaxBackoff(), a.getMaxBackoff(), Duration.ofNanos((long)
                (backoff.toNanos() * Math.pow(multiplier, Math.max(0, attempts - 2)))));
        // A listener of dead-letter topics only (default names): its failures are logged and skipped, as Spring's
        // DefaultErrorHandler without a recoverer does, not dead-lettered again into <topic>-dlt-dlt (unless asked).
        String recoveryDefault = readsDeadLettersOnly(e, own, all) ? "skip" : "dead-letter";
        Recovery recovery = Recovery.parse(first(o.getRecovery(), a.getRecovery(), recoveryDefault));
        ErrorPolicy.Builder p = ErrorPolicy.builder()
                .otherwise(ErrorAction.retry(attempts, Backoff.exponential(backoff, multiplier, max))
                        .then(recovery))
                .deserializationFailure(Recovery.parse(
                        first(o.getDeserializationFailure(), a.getDeserializationFailure(), recoveryDefault)));
        List<GroupKeeperProperties.Rule> rules = first(o.getRules(), a.getRules(), List.of());
        // an invalid @Valid payload is not retried (Spring: MethodArgumentResolutionException is not retryable)
        Class<? extends Throwable> invalid =
                org.springframework.messaging.handler.invocation.MethodArgumentResolutionException.class;
        if (rules.stream().noneMatch(r -> invalid.getName().equals(r.getException()))) {
            p.on(invalid, ErrorAction.retry(1, Backoff.none()).then(recovery));
        }
        for (GroupKeeperProperties.Rule r : rules) {
            p.on(
                    exceptionClass(r.getException(), where),
                    ErrorAction.retry(r.getAttempts(), Backoff.fixed(r.getBackoff()))
                            .then(Recovery.parse(r.getRecovery())));
        }
        return p.build();
    }

    /**
     * Whether every topic of the listener is a dead-letter topic by the default name ({@code <x>-dlt}, or
     * {@code <x><suffix>} with {@code dead-letter.suffix}) and no dead-letter topic is named for it.
     */
    private boolean readsDeadLettersOnly(ListenerEndpoint e, Listener own, Listener all) {
        if (!e.deadLetterTopic().isBlank()
                || own.getDeadLetter().getTopic() != null
                || all.getDeadLetter().getTopic() != null) {
            return false;
        }
        String suffix =
                first(own.getDeadLetter().getSuffix(), all.getDeadLetter().getSuffix(), "-dlt");
        return e.topics().stream().allMatch(t -> t.endsWith(suffix));
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Throwable> exceptionClass(String name, String where) {
        if (name == null || name.isBlank()) {
            throw new IllegalStateException(where + ": an error rule has no exception class (groupkeeper.listener.error"
                    + ".rules[n].exception)");
        }
        Class<?> c;
        try {
            c = ClassUtils.forName(name.trim(), ContainerFactory.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError ex) {
            throw new IllegalStateException(where + ": error rule exception class " + name + " not found");
        }
        if (!Throwable.class.isAssignableFrom(c)) {
            throw new IllegalStateException(where + ": error rule class " + name + " is not an exception");
        }
        return (Class<? extends Throwable>) c;
    }

    @SuppressWarnings("unchecked")
    private static Deserializer<Object> deserializer(Class<?> type, Map<String, Object> config, boolean isKey) {
        Deserializer<Object> d = (Deserializer<Object>) BeanUtils.instantiateClass(type);
        d.configure(config, isKey);
        return d;
    }

    private static Class<?> deserializerClass(Object configured, boolean isKey) {
        Class<?> type;
        try {
            type = configured == null
                    ? StringDeserializer.class
                    : configured instanceof Class<?> c
                            ? c
                            : ClassUtils.forName(configured.toString().trim(), ContainerFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "spring.kafka.consumer." + (isKey ? "key" : "value") + "-deserializer: class " + configured
                            + " not found",
                    e);
        }
        if (!Deserializer.class.isAssignableFrom(type)) {
            throw new IllegalStateException("spring.kafka.consumer." + (isKey ? "key" : "value") + "-deserializer: "
                    + type.getName() + " is not a Kafka Deserializer");
        }
        return type;
    }

    @SafeVarargs
    private static <T> T first(T... values) {
        for (T v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}

package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.BackOffPause;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Recovery;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.RetryTopicConfigurationProvider;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.annotation.RetryableTopicAnnotationProcessor;
import org.springframework.kafka.config.KafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.KafkaListenerEndpointRegistrar;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.KafkaBackoffException;
import org.springframework.kafka.listener.KafkaConsumerBackoffManager;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.TimestampedException;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.DestinationTopic;
import org.springframework.kafka.retrytopic.DestinationTopicResolver;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;
import org.springframework.kafka.retrytopic.RetryTopicConfiguration;
import org.springframework.kafka.retrytopic.RetryTopicConfigurer;
import org.springframework.kafka.retrytopic.RetryTopicHeaders;
import org.springframework.kafka.support.KafkaUtils;

/**
 * Non-blocking retries through retry topics ({@code @RetryableTopic} and {@code @DltHandler} on a
 * {@code @GroupKeeperListener} method), computed by Spring for Apache Kafka's own retry-topic machinery so that what
 * it decides is Spring's by construction: {@link RetryableTopicAnnotationProcessor} reads the annotation,
 * {@link RetryTopicConfigurer} names the retry and DLT endpoints (ids, groups, topics, concurrency, DLT auto-startup)
 * and registers their {@code NewTopic}s, the {@link DestinationTopicResolver} routes a failed record, and the
 * {@link DeadLetterPublishingRecovererFactory}'s recoverer forwards it with Spring's headers ({@code retry_topic-*},
 * {@code kafka_original-*}, {@code kafka_exception-*}). Each endpoint runs in a groupkeeper container of its own
 * group; a record of a retry topic not due yet ({@code retry_topic-backoff-timestamp}) stops its partition (paused,
 * still owned, nothing else of the container waits) and the partition is resumed at its due time, as Spring's
 * {@code KafkaConsumerBackoffManager} pauses and resumes it.
 */
public final class RetryTopics {

    private static final Logger LOG = LoggerFactory.getLogger(RetryTopics.class);
    /** Spring's {@code KafkaBackoffAwareMessageListenerAdapter} ignores a due time further away than this. */
    private static final long MAX_BACKOFF_MS = Duration.ofDays(1).toMillis();

    /** A retry-topic endpoint: its main listener, whether it is the DLT's, the dead-letter topic of its topics. */
    private record Role(String mainId, boolean dlt, Map<String, String> dltOfTopic, boolean autoCreate) {}

    private final ConfigurableListableBeanFactory beans;
    private final DestinationTopicResolver resolver;
    private final DeadLetterPublishingRecovererFactory recoverers;
    private final RetryTopicConfigurer configurer;
    private final Map<String, Role> roles = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService resumer;

    RetryTopics(ConfigurableListableBeanFactory beans) {
        this.beans = beans;
        RetryTopicComponentFactory f =
                beans.getBeanProvider(RetryTopicComponentFactory.class).getIfUnique(RetryTopicComponentFactory::new);
        this.resolver = f.destinationTopicResolver();
        this.recoverers = f.deadLetterPublishingRecovererFactory(resolver);
        KafkaConsumerBackoffManager unused = context -> { // Spring's containers only; ours pause themselves
            throw new UnsupportedOperationException("not used by groupkeeper containers");
        };
        this.configurer = f.retryTopicConfigurer(
                f.destinationTopicProcessor(resolver),
                f.listenerContainerFactoryConfigurer(unused, recoverers, f.internalRetryTopicClock()),
                f.listenerContainerFactoryResolver(beans),
                f.retryTopicNamesProviderFactory());
        this.configurer.setBeanFactory(beans);
    }

    /**
     * Whether retry topics may apply to the declared listener method: it carries {@code @RetryableTopic}, or the
     * application has {@code RetryTopicConfiguration} beans (Boot makes one for {@code spring.kafka.retry.topic.*}).
     */
    static boolean mayApply(ConfigurableListableBeanFactory beans, Method declared) {
        return beans != null
                && (AnnotatedElementUtils.hasAnnotation(declared, RetryableTopic.class)
                        || beans.getBeanNamesForType(RetryTopicConfiguration.class, false, false).length > 0);
    }

    /**
     * The retry-topic and DLT endpoints of a main endpoint, as Spring Kafka would register them beside its
     * {@code @KafkaListener}: from the method's {@code @RetryableTopic}, else from a {@code RetryTopicConfiguration}
     * bean for its topics (Spring's {@code RetryTopicConfigurationProvider}), else none. The topics to create are
     * registered as Spring's {@code NewTopic} beans (created by Boot's {@code KafkaAdmin} when it is asked to).
     */
    synchronized List<ListenerEndpoint> expand(ListenerEndpoint main, Object bean, Method invocable, Method declared) {
        RetryableTopic annotation = AnnotatedElementUtils.findMergedAnnotation(declared, RetryableTopic.class);
        String[] topics = main.topics().toArray(String[]::new);
        BeanExpressionContext context = new BeanExpressionContext(beans, null);
        RetryTopicConfiguration config = annotation != null
                ? new RetryableTopicAnnotationProcessor(beans, beans.getBeanExpressionResolver(), context)
                        .processAnnotation(topics, declared, annotation, bean)
                : new RetryTopicConfigurationProvider(beans, beans.getBeanExpressionResolver(), context)
                        .findRetryConfigurationFor(topics, declared, null, bean);
        if (config == null) {
            return List.of();
        }
        String where = "@GroupKeeperListener method " + ListenerMethod.describe(declared)
                + (annotation != null
                        ? ""
                        : " (retry topics from a RetryTopicConfiguration bean for its topics, e.g. Boot's for "
                                + "spring.kafka.retry.topic.enabled=true)");
        if (!main.topicPattern().isEmpty()) {
            throw new IllegalStateException(where + ": @RetryableTopic with topicPattern is not supported (Spring "
                    + "Kafka needs the topics to name the retry topics): list the topics");
        }
        if (main.method().batch()) {
            throw new IllegalStateException(where + ": @RetryableTopic on a batch listener is not supported (nor by "
                    + "Spring Kafka): take one record");
        }
        if (!main.transactional().isBlank()
                && Boolean.parseBoolean(main.transactional().trim())) {
            throw new IllegalStateException(
                    where + ": @RetryableTopic on a transactional listener is not supported: " + "remove one of them");
        }
        if (!main.errorPolicy().isBlank() || !main.deadLetterTopic().isBlank()) {
            throw new IllegalStateException(
                    where + ": errorPolicy and deadLetterTopic do not apply beside retry topics "
                            + "(Spring's resolver routes each failure, to the DLT last): remove them, or the retry topics");
        }
        if (main.method().sendTo() != null) {
            throw new IllegalStateException(
                    where + ": @RetryableTopic beside @SendTo is not supported: send the " + "reply in the method");
        }
        if (annotation != null && !annotation.listenerContainerFactory().isBlank()) {
            throw new IllegalStateException(where + ": @RetryableTopic(listenerContainerFactory) configures Spring "
                    + "Kafka's containers, not groupkeeper's: remove it (groupkeeper.listeners.<id>.* configure each "
                    + "retry endpoint's container)");
        }
        List<MethodKafkaListenerEndpoint<?, ?>> registered = new ArrayList<>();
        KafkaListenerEndpointRegistrar registrar = new KafkaListenerEndpointRegistrar() {
            @Override
            public void registerEndpoint(KafkaListenerEndpoint endpoint, KafkaListenerContainerFactory<?> factory) {
                registered.add((MethodKafkaListenerEndpoint<?, ?>) endpoint);
            }
        };
        MethodKafkaListenerEndpoint<Object, Object> mainEndpoint = new MethodKafkaListenerEndpoint<>();
        mainEndpoint.setId(main.id());
        // as Spring's annotation processor fills each endpoint from the @KafkaListener (before the names get suffixes)
        RetryTopicConfigurer.EndpointProcessor fill = ep -> {
            ep.setId(main.id());
            ep.setGroupId(main.group());
            ep.setTopics(topics);
            ep.setBean(bean);
            ep.setMethod(invocable);
        };
        try {
            configurer.processMainAndRetryListeners(
                    fill, mainEndpoint, config, registrar, null, "kafkaListenerContainerFactory");
        } catch (RuntimeException ex) {
            throw new IllegalStateException(where + ": @RetryableTopic: " + ex.getMessage(), ex);
        }
        Map<String, String> dltOfTopic = new LinkedHashMap<>();
        for (String t : topics) {
            DestinationTopic dlt = resolver.getDltFor(main.id(), t, null);
            if (dlt != null) {
                dltOfTopic.put(t, dlt.getDestinationName());
            }
        }
        boolean autoCreate = createsTopics(config);
        roles.put(main.id(), new Role(main.id(), false, dltOfTopic, autoCreate));
        List<ListenerEndpoint> extra = new ArrayList<>();
        for (MethodKafkaListenerEndpoint<?, ?> ep : registered) {
            if (ep == mainEndpoint) {
                continue;
            }
            List<String> epTopics = List.copyOf(ep.getTopics());
            boolean dlt = resolver.getDestinationTopicByName(main.id(), epTopics.get(0))
                    .isDltTopic();
            String group = ep.getGroupId() != null ? ep.getGroupId() : ep.getId();
            Method m = ep.getMethod();
            ListenerMethod method;
            if (m == null
                    || m.getDeclaringClass()
                            .getName()
                            .endsWith("RetryTopicConfigurer$LoggingDltListenerHandlerMethod")) {
                // Spring's default DLT handler (it takes an Acknowledgment): logged as Spring logs it
                DltLogger logger = new DltLogger();
                method = ListenerMethod.of(logger, DltLogger.METHOD, group);
            } else {
                Object target = ep.getBean();
                method = ListenerMethod.of(target, AopUtils.selectInvocableMethod(m, target.getClass()), group);
            }
            Map<String, String> dlts = new LinkedHashMap<>();
            for (int i = 0; i < epTopics.size() && i < topics.length; i++) {
                String d = dltOfTopic.get(topics[i]);
                if (d != null) {
                    dlts.put(epTopics.get(i), d);
                }
            }
            roles.put(ep.getId(), new Role(main.id(), dlt, dlts, autoCreate));
            extra.add(new ListenerEndpoint(
                    ep.getId(),
                    group,
                    epTopics,
                    "",
                    ep.getConcurrency() != null ? ep.getConcurrency().toString() : main.concurrency(),
                    "",
                    "",
                    ep.getAutoStartup() != null ? ep.getAutoStartup().toString() : main.autoStartup(),
                    "",
                    main.idleEventInterval(),
                    "",
                    "",
                    method)); // retries wait by pausing partitions: PARTITION order
        }
        LOG.info(
                "groupkeeper listener '{}': @RetryableTopic endpoints {}",
                main.id(),
                extra.stream().map(e -> e.id() + "=" + e.topics()).toList());
        return extra;
    }

    /**
     * Whether Spring creates the configuration's topics ({@code autoCreateTopics}; Boot's bean does not). Spring keeps
     * it in a class that is not public: read reflectively, and taken as {@code true} (Spring's default) if unreadable.
     */
    private static boolean createsTopics(RetryTopicConfiguration config) {
        try {
            Object creation = config.forKafkaTopicAutoCreation();
            Method should = creation.getClass().getDeclaredMethod("shouldCreateTopics");
            should.setAccessible(true);
            return (Boolean) should.invoke(creation);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("RetryTopicConfiguration's topic creation not readable ({}); taken as on", e.toString());
            return true;
        }
    }

    /** Whether the listener is a main, retry or DLT endpoint of a {@code @RetryableTopic}. */
    public boolean handles(String listenerId) {
        return roles.containsKey(listenerId);
    }

    /** The deserializer, keeping its values for a forward ({@link SpringSideValues}) when the listener needs them. */
    Deserializer<Object> capture(String listenerId, Deserializer<Object> d, boolean isKey) {
        return handles(listenerId) ? SpringSideValues.capture(d, isKey) : d;
    }

    /**
     * The handler of a retry-topic endpoint: not before the record's due time; a failure forwarded by Spring's
     * recoverer to the next retry topic or the DLT (what it resolves), or dropped where Spring's resolver says so.
     */
    RecordHandler<Object, Object> handler(
            ListenerEndpoint e,
            RecordHandler<Object, Object> delegate,
            AtomicReference<ListenerContainer<Object, Object>> self) {
        Role role = roles.get(e.id());
        DeadLetterPublishingRecoverer recoverer = recoverers.create(role.mainId());
        String methodText = e.method().toString();
        return r -> {
            Header due = r.headers().lastHeader(RetryTopicHeaders.DEFAULT_HEADER_BACKOFF_TIMESTAMP);
            if (due != null) {
                long dueAt = new BigInteger(due.value()).longValue();
                long wait = dueAt - System.currentTimeMillis();
                if (wait > 0 && wait <= MAX_BACKOFF_MS) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    resumeAt(self, tp, wait, 0);
                    throw new NotDueYet(
                            String.format(
                                    "Partition %s from topic %s is not ready for "
                                            + "consumption, backing off for approx. %s millis.",
                                    tp.partition(), tp.topic(), wait),
                            tp,
                            e.id(),
                            dueAt);
                }
            }
            try {
                delegate.handle(r);
            } catch (Exception ex) {
                // the exception as Spring's container hands it to its error handler's recoverer
                Exception failed = new ListenerExecutionFailedException(
                        "Listener failed",
                        e.group(),
                        new TimestampedException(
                                new ListenerExecutionFailedException(
                                        "Listener method '" + methodText + "' threw exception", ex),
                                Instant.now()));
                recoverer.accept(SpringSideValues.asDeserialized(r), partitionsOnly(role.mainId()), failed);
            }
        };
    }

    /**
     * The container settings of a retry-topic endpoint: a record not due stops (pauses) its partition until
     * {@link #resumeAt}; a forward that fails is tried again, then stops the partition; a record that does not
     * deserialize goes to the DLT (Spring's resolver sends deserialization failures there at once), skipped (logged)
     * in the DLT's own container. Without {@code autoCreateTopics} the DLT is not checked at start (Spring's containers
     * start without it too): a missing one fails the send, which stops the partition at the record.
     */
    void customize(ListenerEndpoint e, ListenerContainerBuilder<Object, Object> b) {
        Role role = roles.get(e.id());
        b.errorPolicy(ErrorPolicy.builder()
                .on(
                        KafkaBackoffException.class,
                        ErrorAction.retry(1, Backoff.none()).thenStopPartition())
                .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofSeconds(1)))
                        .thenStopPartition())
                .deserializationFailure(
                        role.dlt() || role.dltOfTopic().isEmpty() ? Recovery.SKIP : Recovery.DEAD_LETTER)
                .build());
        if (!role.dlt() && !role.dltOfTopic().isEmpty()) {
            Map<String, String> dlts = role.dltOfTopic();
            b.deadLetterTopics(t -> dlts.getOrDefault(t, t + "-dlt"));
            b.createDeadLetterTopics(role.autoCreate());
            if (!role.autoCreate()) { // as Spring: the start neither creates nor looks; a missing one fails its send
                b.checkDeadLetterTopics(false);
            }
        }
    }

    /**
     * What Spring's recoverer asks of the listener's consumer: only {@code partitionsFor(topic, timeout)}, to send to
     * the record's partition only when the destination has it (else the producer chooses). Answered by the
     * destination's template.
     */
    private Consumer<?, ?> partitionsOnly(String mainId) {
        return (Consumer<?, ?>) Proxy.newProxyInstance(
                RetryTopics.class.getClassLoader(),
                new Class<?>[] {Consumer.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "partitionsFor" ->
                        resolver.getDestinationTopicByName(mainId, (String) args[0])
                                .getKafkaOperations()
                                .partitionsFor((String) args[0]);
                    case "toString" -> "partitions of " + mainId + "'s retry topics";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private void resumeAt(
            AtomicReference<ListenerContainer<Object, Object>> self, TopicPartition tp, long waitMs, int tries) {
        scheduler()
                .schedule(
                        () -> {
                            ListenerContainer<Object, Object> c = self.get();
                            if (c == null) {
                                return;
                            }
                            if (c.stoppedPartitions().containsKey(tp)) {
                                c.resume(tp);
                            } else if (tries
                                    < 100) { // the worker stops it right after the handler threw: look again shortly
                                resumeAt(self, tp, 20, tries + 1);
                            }
                        },
                        waitMs,
                        TimeUnit.MILLISECONDS);
    }

    private ScheduledExecutorService scheduler() {
        ScheduledExecutorService s = resumer;
        if (s == null) {
            synchronized (this) {
                if (resumer == null) {
                    resumer = Executors.newSingleThreadScheduledExecutor(r -> {
                        Thread t = new Thread(r, "groupkeeper-retry-topic-resume");
                        t.setDaemon(true);
                        return t;
                    });
                }
                s = resumer;
            }
        }
        return s;
    }

    /**
     * Spring's exception for a record of a retry topic not due yet, marked for the container as a pause: the partition
     * stops (and is resumed when the record is due) with DEBUG lines, not WARN — Spring logs its back-off at DEBUG too.
     */
    static final class NotDueYet extends KafkaBackoffException implements BackOffPause {
        private static final long serialVersionUID = 1L;

        NotDueYet(String message, TopicPartition tp, String listenerId, long dueAt) {
            super(message, tp, listenerId, dueAt);
        }
    }

    /** Spring Kafka's default DLT handler ({@code LoggingDltListenerHandlerMethod}): logs the record at INFO. */
    public static final class DltLogger {
        static final Method METHOD;

        static {
            try {
                METHOD = DltLogger.class.getMethod("logMessage", ConsumerRecord.class);
            } catch (NoSuchMethodException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        public void logMessage(ConsumerRecord<?, ?> record) {
            LOG.info("Received message in dlt listener: {}", KafkaUtils.format(record));
            try { // Spring's acknowledges the record: in the manual ack modes it is committed
                HandlerContext.acknowledge();
            } catch (IllegalStateException notManual) {
                // without manual acknowledgements every record handled is committed anyway
            }
        }
    }
}

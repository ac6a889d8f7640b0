package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.ErrorPolicy;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;
import org.springframework.kafka.annotation.KafkaListenerConfigurer;
import org.springframework.kafka.config.KafkaListenerEndpointRegistrar;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;
import org.springframework.kafka.support.converter.BatchMessagingMessageConverter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.validation.Validator;

/**
 * What a migrated service's Spring for Apache Kafka configuration asks for that {@code @GroupKeeperListener} methods
 * do not apply: listener-related beans (an error handler, a record filter, interceptors, converters ...) and
 * {@code spring.kafka.*} properties the application set (Boot's defaults do not count) that configure Spring Kafka's
 * own container. Each fails the context start, named with what to use instead — none is silently ignored — unless the
 * application lists it in {@code groupkeeper.spring-kafka-only} (it configures its own {@code @KafkaListener}s only).
 * The ones applied ({@code spring.kafka.consumer.*}, {@code spring.kafka.listener.concurrency}, {@code client-id},
 * {@code auto-startup}, {@code idle-event-interval}) are not checked here.
 */
public final class SpringKafkaSettings {

    /** Listener-related bean types Boot's Kafka auto-configuration hands to Spring Kafka's containers. */
    private static final Map<String, String> BEAN_TYPES = new LinkedHashMap<>();

    static {
        String errors = "groupkeeper.listener.error.* (attempts, backoff, backoff-multiplier, max-backoff, rules per "
                + "exception class, recovery) or an ErrorPolicy bean named in @GroupKeeperListener(errorPolicy)";
        BEAN_TYPES.put("org.springframework.kafka.listener.KafkaListenerErrorHandler", errors);
        BEAN_TYPES.put(
                "org.springframework.kafka.listener.AfterRollbackProcessor",
                "the error policy, which also " + "applies to transactional listeners (groupkeeper.listener.error.*)");
        BEAN_TYPES.put(
                "org.springframework.kafka.listener.RecordInterceptor",
                "do it in the method, or observe " + "calls through the groupkeeper.listener Observation");
        BEAN_TYPES.put(
                "org.springframework.kafka.listener.BatchInterceptor",
                "do it in the method, or observe " + "calls through the groupkeeper.listener Observation");
        BEAN_TYPES.put(
                "org.springframework.kafka.listener.ConsumerAwareRebalanceListener",
                "a bean implementing " + "GroupKeeperSeekAware (told of gained partitions) or a ContainerListener");
        BEAN_TYPES.put(
                "org.springframework.kafka.support.converter.RecordMessageConverter",
                "the parameter's type "
                        + "decides the conversion (JSON by Jackson), after spring.kafka.consumer.value-deserializer");
        BEAN_TYPES.put(
                "org.springframework.kafka.support.converter.BatchMessageConverter",
                "the parameter's type "
                        + "decides the conversion (JSON by Jackson), after spring.kafka.consumer.value-deserializer");
        BEAN_TYPES.put(
                "org.springframework.kafka.transaction.KafkaAwareTransactionManager",
                "listeners are "
                        + "transactional with spring.kafka.producer.transaction-id-prefix (Boot's transaction manager) or "
                        + "@GroupKeeperListener(transactional = \"true\"), their transaction is the container's");
        BEAN_TYPES.put(
                "org.springframework.kafka.config.ContainerCustomizer",
                "groupkeeper.listener.* and " + "groupkeeper.listeners.<id>.*");
        BEAN_TYPES.put(
                "org.springframework.kafka.config.AbstractKafkaListenerContainerFactory",
                "groupkeeper.listener"
                        + ".* and groupkeeper.listeners.<id>.*; Kafka client settings in spring.kafka.consumer.*");
        BEAN_TYPES.put(
                "org.springframework.kafka.core.ConsumerFactory",
                "the listeners' consumers are configured "
                        + "from spring.kafka.consumer.* (deserializers, properties): move the factory's settings there");
    }

    /**
     * Spring Kafka's JSON record converters: they read a value as JSON into the listener parameter's type, which is
     * what the starter's payload conversion does, so such a bean is honoured as it is.
     */
    private static final Set<String> JSON_CONVERTERS = Set.of(
            "org.springframework.kafka.support.converter.JsonMessageConverter",
            "org.springframework.kafka.support.converter.StringJsonMessageConverter",
            "org.springframework.kafka.support.converter.ByteArrayJsonMessageConverter",
            "org.springframework.kafka.support.converter.BytesJsonMessageConverter",
            "org.springframework.kafka.support.converter.JacksonJsonMessageConverter",
            "org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter",
            "org.springframework.kafka.support.converter.ByteArrayJacksonJsonMessageConverter",
            "org.springframework.kafka.support.converter.BytesJacksonJsonMessageConverter");

    /** Whether {@code className} is one of Spring Kafka's JSON record converters. */
    static boolean isJsonConverter(String className) {
        return JSON_CONVERTERS.contains(className);
    }

    private final ListableBeanFactory beans;
    private final Binder binder;
    private final Set<String> springKafkaOnly;

    public SpringKafkaSettings(ListableBeanFactory beans, Environment environment, List<String> springKafkaOnly) {
        this.beans = beans;
        this.binder = Binder.get(environment);
        this.springKafkaOnly = Set.copyOf(springKafkaOnly);
    }

    /**
     * What this application configures that its {@code @GroupKeeperListener} methods ({@code endpoints}) do not
     * apply, each with what to use instead; {@code acknowledged} gets those listed in
     * {@code groupkeeper.spring-kafka-only}.
     */
    public List<String> refused(List<ListenerEndpoint> endpoints, List<String> acknowledged) {
        List<String> found = new ArrayList<>();
        properties(endpoints, found, acknowledged);
        beans(found, acknowledged);
        threadNames(found, acknowledged);
        return found;
    }

    /**
     * {@code spring.kafka.listener.ack-mode} when it is {@code MANUAL} or {@code MANUAL_IMMEDIATE} (as Spring binds
     * it: any case, {@code -} for {@code _}), else null; null too when {@code groupkeeper.spring-kafka-only} lists it
     * (it is then for the application's own {@code @KafkaListener} containers).
     */
    public String manualAckMode() {
        if (springKafkaOnly.contains("spring.kafka.listener.ack-mode")) {
            return null;
        }
        String v = binder.bind("spring.kafka.listener.ack-mode", String.class)
                .map(m -> m.trim().toUpperCase(Locale.ROOT).replace('-', '_'))
                .orElse("");
        return v.equals("MANUAL") || v.equals("MANUAL_IMMEDIATE") ? v : null;
    }

    /** One message naming every refused item, for the context start's failure. */
    public static String message(List<String> refused) {
        return "groupkeeper: this application configures Spring for Apache Kafka features that @GroupKeeperListener "
                + "methods do not apply (they would be ignored):\n - " + String.join("\n - ", refused)
                + "\nRemove them or use what is named. If one configures only this application's own @KafkaListener "
                + "methods or its KafkaTemplate, list its name in groupkeeper.spring-kafka-only.";
    }

    private void properties(List<ListenerEndpoint> endpoints, List<String> found, List<String> acknowledged) {
        String commit = "offsets are committed by the container (groupkeeper.listener.commit-interval), at least once";
        String watchdog = "groupkeeper's poll loop has its own timings; a slow handler is reported by "
                + "groupkeeper.listener.watchdog";
        Map<String, String> set = new LinkedHashMap<>();
        set.put("spring.kafka.listener.ack-mode", commit);
        set.put("spring.kafka.listener.ack-count", commit);
        set.put("spring.kafka.listener.ack-time", commit);
        set.put("spring.kafka.listener.async-acks", commit);
        set.put("spring.kafka.listener.poll-timeout", watchdog);
        set.put("spring.kafka.listener.idle-between-polls", watchdog);
        set.put("spring.kafka.listener.no-poll-threshold", watchdog);
        set.put("spring.kafka.listener.monitor-interval", watchdog);
        set.put(
                "spring.kafka.listener.idle-partition-event-interval",
                "no per-partition idle events: "
                        + "groupkeeper.listener.idle-event-interval publishes ListenerIdleEvent per consumer");
        set.put("spring.kafka.listener.immediate-stop", "groupkeeper.listener.stop-deadline");
        set.put(
                "spring.kafka.listener.log-container-config",
                "the containers' configuration is logged at INFO on start");
        set.put("spring.kafka.listener.missing-topics-fatal", "a listener of a missing topic waits for it");
        set.put("spring.kafka.listener.change-consumer-thread-name", "the workers' threads are named by the container");
        set.put(
                "spring.kafka.listener.auth-exception-retry-interval",
                "an authentication or authorization failure " + "fails the listener (health DOWN)");
        if (manualAckMode() != null) { // honoured (ContainerFactory: manual acknowledgements, Acknowledgment)
            set.remove("spring.kafka.listener.ack-mode");
        }
        for (Map.Entry<String, String> e : set.entrySet()) {
            if (binder.bind(e.getKey(), Bindable.of(String.class)).isBound()) {
                add(
                        e.getKey() + "=" + binder.bind(e.getKey(), String.class).get() + ": " + e.getValue(),
                        e.getKey(),
                        found,
                        acknowledged);
            }
        }
        if (binder.bind("spring.kafka.listener.type", String.class)
                        .map(v -> v.equalsIgnoreCase("batch"))
                        .orElse(false)
                && endpoints.stream().anyMatch(e -> !e.method().batch())) {
            add(
                    "spring.kafka.listener.type=batch: a method with a List data parameter is a batch listener, the "
                            + "others take one record",
                    "spring.kafka.listener.type",
                    found,
                    acknowledged);
        }
        if (!binder.bind("spring.kafka.listener.observation-enabled", Boolean.class)
                .orElse(true)) {
            add(
                    "spring.kafka.listener.observation-enabled=false: every call of a @GroupKeeperListener method is "
                            + "observed (groupkeeper.listener) when the application has an ObservationRegistry",
                    "spring.kafka.listener.observation-enabled",
                    found,
                    acknowledged);
        }
        if (binder.bind("spring.kafka.consumer.enable-auto-commit", Boolean.class)
                .orElse(false)) {
            add(
                    "spring.kafka.consumer.enable-auto-commit=true: " + commit + " and fenced in ZooKeeper",
                    "spring.kafka.consumer.enable-auto-commit",
                    found,
                    acknowledged);
        }
        // spring.kafka.retry.topic.*: Boot's RetryTopicConfiguration bean, honoured (RetryTopics)
    }

    private void beans(List<String> found, List<String> acknowledged) {
        ClassLoader loader = SpringKafkaSettings.class.getClassLoader();
        for (Map.Entry<String, String> t : BEAN_TYPES.entrySet()) {
            Class<?> type;
            try {
                type = ClassUtils.forName(t.getKey(), loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue; // not on this Spring Kafka's classpath
            }
            for (String name : beans.getBeanNamesForType(type, true, false)) {
                if (definedByBoot(name)) {
                    continue; // Boot's own, from a spring.kafka.* property named above (or its default factory)
                }
                Class<?> actual = beans.getType(name, false);
                if (actual != null && JSON_CONVERTERS.contains(actual.getName())) {
                    continue; // JSON into the parameter's type: what the starter does anyway (Spring's sample-01)
                }
                if (jsonBatchConverter(name)) {
                    continue; // sample-03's BatchMessagingMessageConverter(JsonMessageConverter): JSON per record
                }
                String described =
                        "bean '" + name + "' (" + typeOf(name) + ", a " + type.getSimpleName() + "): " + t.getValue();
                add(described, name, found, acknowledged);
            }
        }
    }

    /** A {@code BatchMessagingMessageConverter} whose record converter is one of the JSON converters. */
    private boolean jsonBatchConverter(String name) {
        Class<?> actual = beans.getType(name, false);
        if (actual == null
                || !"org.springframework.kafka.support.converter.BatchMessagingMessageConverter"
                        .equals(actual.getName())) {
            return false;
        }
        Object record = ((BatchMessagingMessageConverter) beans.getBean(name)).getRecordMessageConverter();
        return record != null && JSON_CONVERTERS.contains(record.getClass().getName());
    }

    /** Boot's thread-name supplier for Spring Kafka's containers: a {@code Function<MessageListenerContainer, String>}. */
    private void threadNames(List<String> found, List<String> acknowledged) {
        Class<?> container;
        try {
            container = ClassUtils.forName(
                    "org.springframework.kafka.listener.MessageListenerContainer",
                    SpringKafkaSettings.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return;
        }
        for (String name : beans.getBeanNamesForType(
                ResolvableType.forClassWithGenerics(Function.class, container, String.class), true, false)) {
            if (!definedByBoot(name)) {
                add(
                        "bean '" + name
                                + "' (a thread-name supplier of Spring Kafka's containers): the workers' threads "
                                + "are named groupkeeper-<listener id>-<n>",
                        name,
                        found,
                        acknowledged);
            }
        }
    }

    /**
     * The application's {@code RecordFilterStrategy}, applied to every listener as Boot applies it to its
     * {@code @KafkaListener}s (only when it is the one such bean, as Boot's {@code getIfUnique}); null when there is
     * none, several, or it is listed in {@code groupkeeper.spring-kafka-only}.
     */
    @SuppressWarnings("unchecked")
    RecordFilterStrategy<Object, Object> recordFilter() {
        String[] names = beans.getBeanNamesForType(RecordFilterStrategy.class, true, false);
        if (names.length != 1 || springKafkaOnly.contains(names[0])) {
            return null;
        }
        return beans.getBean(names[0], RecordFilterStrategy.class);
    }

    private ErrorPolicyHolder errorPolicy; // resolved once

    private record ErrorPolicyHolder(ErrorPolicy policy, String beanName) {}

    /**
     * The application's {@code CommonErrorHandler} as an error policy (Boot gives its one such bean to every
     * {@code @KafkaListener}); null when there is none, several (Boot then applies none), or it is listed in
     * {@code groupkeeper.spring-kafka-only}. A handler that cannot be mapped throws naming what.
     */
    synchronized ErrorPolicy errorHandlerPolicy() {
        if (errorPolicy == null) {
            String[] names = beans.getBeanNamesForType(CommonErrorHandler.class, true, false);
            if (names.length != 1 || springKafkaOnly.contains(names[0])) {
                errorPolicy = new ErrorPolicyHolder(null, null);
            } else {
                errorPolicy = new ErrorPolicyHolder(
                        SpringErrorHandlerPolicy.from(beans.getBean(names[0], CommonErrorHandler.class), names[0]),
                        names[0]);
            }
        }
        return errorPolicy.policy();
    }

    /** The bean {@link #errorHandlerPolicy()} came from. */
    synchronized String errorHandlerBean() {
        return errorPolicy == null ? null : errorPolicy.beanName();
    }

    private Validator validator;
    private boolean configured;

    /**
     * The validator the application's {@code KafkaListenerConfigurer}s set on Spring Kafka's registrar (Spring Kafka's
     * documented way to validate {@code @Valid} payloads); null without one. A configurer that does more than set a
     * validator (endpoints, a container factory, argument resolvers, a handler method factory, a registry) is refused.
     */
    synchronized Validator validator() {
        if (configured) {
            return validator;
        }
        configured = true;
        for (String name : beans.getBeanNamesForType(KafkaListenerConfigurer.class, true, false)) {
            if (springKafkaOnly.contains(name)) {
                continue;
            }
            KafkaListenerEndpointRegistrar registrar = new KafkaListenerEndpointRegistrar();
            beans.getBean(name, KafkaListenerConfigurer.class).configureKafkaListeners(registrar);
            boolean onlyValidator = registrar.getEndpointRegistry() == null
                    && registrar.getMessageHandlerMethodFactory() == null
                    && registrar.getCustomMethodArgumentResolvers().isEmpty()
                    && isEmpty(registrar, "endpointDescriptors")
                    && isEmpty(registrar, "containerFactory")
                    && isEmpty(registrar, "containerFactoryBeanName");
            if (!onlyValidator) {
                throw new IllegalStateException(message(List.of("bean '" + name + "' (a KafkaListenerConfigurer) "
                        + "does more than set a validator: endpoints, factories and resolvers of Spring Kafka's "
                        + "registrar are not used by @GroupKeeperListener methods; groupkeeper.listener.* and "
                        + "groupkeeper.listeners.<id>.* configure them")));
            }
            if (registrar.getValidator() != null) {
                validator = registrar.getValidator();
            }
        }
        return validator;
    }

    private static boolean isEmpty(Object target, String field) {
        Field f = ReflectionUtils.findField(target.getClass(), field);
        if (f == null) {
            return false; // another Spring Kafka: cannot tell, so not "only a validator"
        }
        ReflectionUtils.makeAccessible(f);
        Object v = ReflectionUtils.getField(f, target);
        return v == null || v instanceof Collection<?> c && c.isEmpty();
    }

    private String typeOf(String name) {
        Class<?> c = beans.getType(name, false);
        return c == null ? "?" : c.getName();
    }

    /** Whether the bean comes from one of Spring Boot's auto-configurations (not the application's own). */
    private boolean definedByBoot(String name) {
        if (!(beans instanceof ConfigurableListableBeanFactory f) || !f.containsBeanDefinition(name)) {
            return false;
        }
        BeanDefinition d = f.getMergedBeanDefinition(name);
        if (d instanceof AnnotatedBeanDefinition a) {
            MethodMetadata m = a.getFactoryMethodMetadata();
            if (m != null) {
                return m.getDeclaringClassName().startsWith("org.springframework.boot.");
            }
        }
        return false;
    }

    private void add(String described, String name, List<String> found, List<String> acknowledged) {
        if (springKafkaOnly.contains(name)) {
            acknowledged.add(name);
        } else {
            found.add(described);
        }
    }
}

package io.groupkeeper.spring.internal;

import io.groupkeeper.spring.GroupKeeperListener;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Finds {@code @GroupKeeperListener} methods on every bean, validates them (a bad signature fails the context start
 * naming the method) and collects them as {@link ListenerEndpoint}s for the containers.
 */
public final class ListenerAnnotationProcessor implements BeanPostProcessor, EnvironmentAware, BeanFactoryAware {

    private final Map<String, ListenerEndpoint> endpoints = new LinkedHashMap<>(); // guarded by this; bean order
    private Environment environment;
    private ConfigurableListableBeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory c) {
            this.beanFactory = c;
        }
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    /**
     * Spring Kafka's annotations beside ours are refused here, before any bean post-processor's after-initialization
     * step: Spring Kafka's own processor would otherwise fail first, with a message that does not say what to do.
     */
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(target, (MethodIntrospector.MetadataLookup<GroupKeeperListener>)
                        m -> AnnotatedElementUtils.findMergedAnnotation(m, GroupKeeperListener.class))
                .keySet()
                .forEach(m -> SpringKafkaAnnotations.refuse(target, m));
        if (AnnotatedElementUtils.hasAnnotation(target, GroupKeeperListener.class)) {
            kafkaHandlers(target).forEach(m -> SpringKafkaAnnotations.refuse(target, m));
        }
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        Map<Method, GroupKeeperListener> found =
                MethodIntrospector.selectMethods(target, (MethodIntrospector.MetadataLookup<GroupKeeperListener>)
                        m -> AnnotatedElementUtils.findMergedAnnotation(m, GroupKeeperListener.class));
        for (Map.Entry<Method, GroupKeeperListener> e : found.entrySet()) {
            Method invocable = AopUtils.selectInvocableMethod(e.getKey(), bean.getClass());
            SpringKafkaAnnotations.refuse(target, e.getKey());
            register(e.getValue(), bean, beanName, invocable, e.getKey());
        }
        GroupKeeperListener onClass = AnnotatedElementUtils.findMergedAnnotation(target, GroupKeeperListener.class);
        if (onClass != null) { // a class-level listener: its @KafkaHandler methods, routed by payload type
            List<Method> declared = kafkaHandlers(target);
            declared.forEach(m -> SpringKafkaAnnotations.refuse(target, m));
            List<Method> invocables = new ArrayList<>();
            Method defaultMethod = null;
            for (Method m : declared) {
                Method invocable = AopUtils.selectInvocableMethod(m, bean.getClass());
                invocables.add(invocable);
                KafkaHandler h = AnnotatedElementUtils.findMergedAnnotation(m, KafkaHandler.class);
                if (h != null && h.isDefault()) {
                    if (defaultMethod != null) {
                        throw new IllegalStateException("@GroupKeeperListener class " + target.getName() + ": only "
                                + "one @KafkaHandler may be isDefault = true; found " + defaultMethod.getName()
                                + " and " + m.getName());
                    }
                    defaultMethod = invocable;
                }
            }
            String group = group(onClass, "class " + target.getName());
            register(
                    onClass,
                    bean,
                    beanName,
                    beanName,
                    "class " + target.getName(),
                    group,
                    ListenerMethod.handlers(bean, target, invocables, defaultMethod, group, this::resolve));
        }
        return bean;
    }

    /** The class's {@code @KafkaHandler} methods, in declaration order. */
    private static List<Method> kafkaHandlers(Class<?> target) {
        List<Method> found = new ArrayList<>(MethodIntrospector.selectMethods(
                        target, (MethodIntrospector.MetadataLookup<KafkaHandler>)
                                m -> AnnotatedElementUtils.findMergedAnnotation(m, KafkaHandler.class))
                .keySet());
        found.sort(Comparator.comparing(Method::getName).thenComparing(Method::toGenericString));
        return found;
    }

    private synchronized void register(
            GroupKeeperListener a, Object bean, String beanName, Method invocable, Method declared) {
        String where = ListenerMethod.describe(declared);
        String group = group(a, "method " + where);
        ListenerMethod method = ListenerMethod.of(bean, invocable, group);
        SendTo sendTo = AnnotatedElementUtils.findMergedAnnotation(declared, SendTo.class);
        if (sendTo != null) { // Spring takes the first value; none: the record's kafka_replyTopic header
            method.sendTo(sendTo.value().length == 0 ? "" : resolve(sendTo.value()[0]));
        }
        register(a, bean, beanName, beanName + "." + declared.getName(), "method " + where, group, method);
        if (RetryTopics.mayApply(beanFactory, declared)) { // retry-topic and DLT endpoints, named as Spring's
            ListenerEndpoint main = endpoints.values().stream()
                    .filter(x -> x.method() == method)
                    .findFirst()
                    .orElseThrow();
            for (ListenerEndpoint extra : retryTopics().expand(main, bean, invocable, declared)) {
                ListenerEndpoint previous = endpoints.putIfAbsent(extra.id(), extra);
                if (previous != null) {
                    throw new IllegalStateException("@GroupKeeperListener id '" + extra.id() + "' (a retry endpoint of "
                            + where + ") is used by " + previous.method() + "; give one of them another id");
                }
            }
        }
    }

    private RetryTopics retryTopics;

    /** The {@code @RetryableTopic} endpoints' support (made when the first one is found; null before). */
    public synchronized RetryTopics retryTopics() {
        if (retryTopics == null && beanFactory != null) {
            retryTopics = new RetryTopics(beanFactory);
        }
        return retryTopics;
    }

    private String group(GroupKeeperListener a, String where) {
        String group = resolve(a.group());
        if (group.isBlank() && !a.id().isBlank()) { // as a @KafkaListener without groupId: idIsGroup (its default)
            group = resolve(a.id());
        }
        if (group.isBlank() && environment != null) { // then the consumer factory's group.id
            group = environment.getProperty("spring.kafka.consumer.group-id", "");
        }
        if (group.isBlank()) {
            throw new IllegalStateException("@GroupKeeperListener " + where + ": group is required (the "
                    + "annotation's group or id, or spring.kafka.consumer.group-id)");
        }
        return group;
    }

    private synchronized void register(
            GroupKeeperListener a,
            Object bean,
            String beanName,
            String defaultId,
            String where,
            String group,
            ListenerMethod method) {
        List<String> topics = new ArrayList<>();
        for (String t : a.topics()) {
            Object value = evaluate(t);
            if (value instanceof String text) {
                Arrays.stream(text.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .forEach(topics::add);
            } else if (value instanceof String[] array) {
                Arrays.stream(array).map(String::trim).filter(s -> !s.isEmpty()).forEach(topics::add);
            } else if (value instanceof Iterable<?> many) {
                many.forEach(v -> topics.add(String.valueOf(v).trim()));
            } else if (value != null) {
                throw new IllegalStateException("@GroupKeeperListener " + where + ": topics entry '" + t + "' gives a "
                        + value.getClass().getName() + "; expected text, a String[] or a collection");
            }
        }
        String topicPattern = resolve(a.topicPattern());
        if (!topicPattern.isEmpty() && !topics.isEmpty()) {
            throw new IllegalStateException("@GroupKeeperListener " + where + ": topics and topicPattern are both "
                    + "given; give one of them (as Spring Kafka's @KafkaListener)");
        }
        if (!topicPattern.isEmpty()) {
            try {
                Pattern.compile(topicPattern);
            } catch (PatternSyntaxException ex) {
                throw new IllegalStateException(
                        "@GroupKeeperListener " + where + ": topicPattern '" + topicPattern
                                + "' is not a regular expression: " + ex.getDescription(),
                        ex);
            }
        } else if (topics.isEmpty()) {
            throw new IllegalStateException("@GroupKeeperListener " + where + ": at least one topic is required "
                    + "(topics, or topicPattern)");
        }
        String id = a.id().isBlank() ? defaultId : resolve(a.id());
        ListenerEndpoint endpoint = new ListenerEndpoint(
                id,
                group,
                List.copyOf(topics),
                topicPattern,
                resolve(a.concurrency()),
                resolve(a.errorPolicy()),
                resolve(a.deadLetterTopic()),
                resolve(a.autoStartup()),
                resolve(a.transactional()),
                resolve(a.idleEventInterval()),
                resolve(a.ordering()),
                resolve(a.parallelism()),
                method);
        ListenerEndpoint previous = endpoints.putIfAbsent(id, endpoint);
        if (previous != null) {
            throw new IllegalStateException("@GroupKeeperListener id '" + id + "' is used by " + previous.method()
                    + " and " + method + "; give one of them another id (or another group)");
        }
    }

    /** Placeholders and SpEL ({@code #{...}}), resolved to text as Spring resolves a {@code @KafkaListener}'s. */
    private String resolve(String value) {
        Object v = evaluate(value);
        return v == null ? "" : v.toString();
    }

    /** {@code ${...}} placeholders, then {@code #{...}} expressions against the bean factory (Spring's order). */
    private Object evaluate(String value) {
        if (beanFactory == null) {
            return environment == null ? value : environment.resolveRequiredPlaceholders(value);
        }
        String resolved = beanFactory.resolveEmbeddedValue(value);
        BeanExpressionResolver resolver = beanFactory.getBeanExpressionResolver();
        return resolver == null || resolved == null
                ? resolved
                : resolver.evaluate(resolved, new BeanExpressionContext(beanFactory, null));
    }

    public synchronized List<ListenerEndpoint> endpoints() {
        return List.copyOf(endpoints.values());
    }
}

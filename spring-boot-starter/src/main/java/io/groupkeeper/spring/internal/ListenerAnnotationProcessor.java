package io.groupkeeper.spring.internal;

import io.groupkeeper.spring.GroupKeeperListener;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;

/**
 * Finds {@code @GroupKeeperListener} methods on every bean, validates them (a bad signature fails the context start
 * naming the method) and collects them as {@link ListenerEndpoint}s for the containers.
 */
public final class ListenerAnnotationProcessor implements BeanPostProcessor, EnvironmentAware {

    private final Map<String, ListenerEndpoint> endpoints = new LinkedHashMap<>(); // guarded by this; bean order
    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        Map<Method, GroupKeeperListener> found = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<GroupKeeperListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, GroupKeeperListener.class));
        for (Map.Entry<Method, GroupKeeperListener> e : found.entrySet()) {
            Method invocable = AopUtils.selectInvocableMethod(e.getKey(), bean.getClass());
            register(e.getValue(), bean, invocable, e.getKey());
        }
        return bean;
    }

    private synchronized void register(GroupKeeperListener a, Object bean, Method invocable, Method declared) {
        String where = ListenerMethod.describe(declared);
        String group = resolve(a.group());
        if (group.isBlank()) {
            throw new IllegalStateException("@GroupKeeperListener method " + where + ": group is required");
        }
        List<String> topics = new ArrayList<>();
        for (String t : a.topics()) {
            Arrays.stream(resolve(t).split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(topics::add);
        }
        if (topics.isEmpty()) {
            throw new IllegalStateException("@GroupKeeperListener method " + where + ": at least one topic is required");
        }
        ListenerMethod method = ListenerMethod.of(bean, invocable, group);
        String id = a.id().isBlank() ? defaultId(group) : resolve(a.id());
        ListenerEndpoint endpoint = new ListenerEndpoint(id, group, List.copyOf(topics), resolve(a.concurrency()),
                resolve(a.errorPolicy()), resolve(a.deadLetterTopic()), resolve(a.autoStartup()),
                resolve(a.transactional()), resolve(a.idleEventInterval()), method);
        ListenerEndpoint previous = endpoints.putIfAbsent(id, endpoint);
        if (previous != null) {
            throw new IllegalStateException("@GroupKeeperListener id '" + id + "' is used by " + previous.method()
                    + " and " + where + "; give one of them another id (or another group)");
        }
    }

    /**
     * The group for its first listener without an id, then {@code <group>#2}, {@code #3} ... in bean order: several
     * listeners on one group (each on its own topics, as Spring Kafka users have them) need no id.
     */
    private String defaultId(String group) {
        String id = group;
        for (int n = 2; endpoints.containsKey(id); n++) {
            id = group + "#" + n;
        }
        return id;
    }

    private String resolve(String value) {
        return environment == null ? value : environment.resolveRequiredPlaceholders(value);
    }

    public synchronized List<ListenerEndpoint> endpoints() {
        return List.copyOf(endpoints.values());
    }
}

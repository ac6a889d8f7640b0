package io.groupkeeper.spring;

import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.spring.internal.ContainerFactory;
import io.groupkeeper.spring.internal.ListenerAnnotationProcessor;
import io.groupkeeper.spring.internal.ListenerEndpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The listener containers of the {@code @GroupKeeperListener} methods, by listener id. A {@link SmartLifecycle} in a
 * late phase: the containers start once every singleton is ready (at the end of the context refresh) and stop first
 * on shutdown, gracefully (in-flight records finish, final offsets are committed, then partitions are released), all
 * in parallel. Inject it to pause, resume or stop a listener.
 */
public class GroupKeeperContainers implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(GroupKeeperContainers.class);
    /** Late start, early stop (after/before other lifecycle beans of the default phase, such as a web server). */
    public static final int PHASE = Integer.MAX_VALUE - 100;

    private final ContainerFactory factory;
    private final ListenerAnnotationProcessor endpoints;
    private final Map<String, ListenerContainer<Object, Object>> containers = new LinkedHashMap<>();
    private final Map<String, ListenerEndpoint> byId = new LinkedHashMap<>();
    private volatile boolean running;

    /** Created by {@link GroupKeeperAutoConfiguration}; its parameters are internal types, so it is no API. */
    GroupKeeperContainers(ContainerFactory factory, ListenerAnnotationProcessor endpoints) {
        this.factory = factory;
        this.endpoints = endpoints;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        containers.clear();
        List<String> springKafkaOnly = factory.checkSpringKafka(endpoints.endpoints()); // refuses what it would ignore
        if (!springKafkaOnly.isEmpty()) {
            LOG.info("groupkeeper: {} configure(s) only Spring Kafka's own containers (groupkeeper.spring-kafka-only), "
                    + "not @GroupKeeperListener methods", springKafkaOnly);
        }
        for (ListenerEndpoint e : endpoints.endpoints()) {
            ListenerContainer<Object, Object> c = factory.create(e);
            containers.put(e.id(), c);
            byId.put(e.id(), e);
        }
        List<String> started = new ArrayList<>();
        for (Map.Entry<String, ListenerContainer<Object, Object>> c : containers.entrySet()) {
            ListenerEndpoint e = byId.get(c.getKey());
            if (!factory.autoStartup(e)) {
                continue;
            }
            try {
                c.getValue().start();
                started.add(c.getKey());
            } catch (RuntimeException ex) {
                started.forEach(id -> containers.get(id).stop(factory.stopDeadline(byId.get(id))));
                throw new IllegalStateException("groupkeeper listener '" + e.id() + "' (" + e.method()
                        + ") failed to start: " + ex.getMessage(), ex);
            }
        }
        running = true;
        LOG.info("groupkeeper: {} listener container(s) {}", containers.size(), containers.keySet());
    }

    @Override
    public void stop() {
        stop(() -> { });
    }

    @Override
    public void stop(Runnable callback) {
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        synchronized (this) {
            running = false;
            containers.forEach((id, c) -> stops.add(CompletableFuture.runAsync(() -> {
                if (!c.stop(factory.stopDeadline(byId.get(id)))) {
                    LOG.warn("groupkeeper listener '{}' did not stop within its deadline", id);
                }
            })));
        }
        CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new)).whenComplete((ok, e) -> callback.run());
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The containers by listener id (empty before the context started them). */
    public synchronized Map<String, ListenerContainer<?, ?>> containers() {
        return Map.copyOf(containers);
    }

    /** One listener's container. */
    public synchronized ListenerContainer<?, ?> container(String id) {
        ListenerContainer<?, ?> c = containers.get(id);
        if (c == null) {
            throw new IllegalArgumentException("no groupkeeper listener '" + id + "'; known: " + containers.keySet());
        }
        return c;
    }

    /** Whether every container is running (none stopped, failed or not started). */
    public synchronized boolean allRunning() {
        return containers.values().stream().allMatch(c -> c.state() == ContainerState.RUNNING);
    }
}

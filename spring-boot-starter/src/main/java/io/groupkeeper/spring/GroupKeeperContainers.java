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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The listener containers of the {@code @GroupKeeperListener} methods, by listener id. A {@link SmartLifecycle} in a
 * late phase: the containers start once every singleton is ready (at the end of the context refresh) and stop first
 * on shutdown, gracefully (in-flight records finish, final offsets are committed, then partitions are released), all
 * in parallel. Inject it to pause, resume or stop a listener. A {@code topicPattern} listener whose matching topics
 * change gets a new container (the old one stopped gracefully, a pause carried over): look it up by id again.
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
    /** Re-evaluates {@code topicPattern} listeners while running (null: none has a pattern, or stopped). */
    private ScheduledExecutorService patterns;

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
        factory.retryTopics(endpoints.retryTopics()); // @RetryableTopic endpoints, if any
        List<String> springKafkaOnly = factory.checkSpringKafka(endpoints.endpoints()); // refuses what it would ignore
        if (!springKafkaOnly.isEmpty()) {
            LOG.info(
                    "groupkeeper: {} configure(s) only Spring Kafka's own containers (groupkeeper.spring-kafka-only), "
                            + "not @GroupKeeperListener methods",
                    springKafkaOnly);
        }
        for (ListenerEndpoint declared : endpoints.endpoints()) {
            ListenerEndpoint e = factory.resolveTopics(declared); // a topicPattern: the topics matching it now
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
                throw new IllegalStateException(
                        "groupkeeper listener '" + e.id() + "' (" + e.method() + ") failed to start: "
                                + ex.getMessage(),
                        ex);
            }
        }
        running = true;
        LOG.info("groupkeeper: {} listener container(s) {}", containers.size(), containers.keySet());
        if (byId.values().stream().anyMatch(e -> !e.topicPattern().isEmpty())) {
            long every = factory.patternInterval().toMillis();
            patterns = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "groupkeeper-topic-pattern");
                t.setDaemon(true);
                return t;
            });
            patterns.scheduleWithFixedDelay(this::refreshPatterns, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Re-evaluates the topicPattern listeners (outside the lock: it asks Kafka); replaces those whose topics changed. */
    private void refreshPatterns() {
        List<ListenerEndpoint> patterned;
        synchronized (this) {
            patterned = byId.values().stream()
                    .filter(e -> !e.topicPattern().isEmpty())
                    .toList();
        }
        for (ListenerEndpoint e : patterned) {
            List<String> now = factory.patternTopics(e);
            if (now != null && !now.equals(e.topics())) {
                replace(e, now);
            }
        }
    }

    /**
     * As a Kafka pattern subscription after a metadata refresh: the listener moves to the topics its pattern matches
     * now; its container is stopped gracefully (final offsets committed) and a new one started on the new topics.
     */
    private synchronized void replace(ListenerEndpoint e, List<String> topics) {
        ListenerContainer<Object, Object> old = containers.get(e.id());
        if (!running || old == null || byId.get(e.id()) != e) {
            return;
        }
        LOG.info(
                "groupkeeper listener '{}': topicPattern '{}' now matches {} (was {}); restarting its container",
                e.id(),
                e.topicPattern(),
                topics,
                e.topics());
        boolean wasRunning = old.state() == ContainerState.RUNNING || old.state() == ContainerState.STARTING;
        boolean paused = old.isPaused();
        old.stop(factory.stopDeadline(e));
        ListenerEndpoint next = e.withTopics(topics);
        ListenerContainer<Object, Object> c;
        try {
            c = factory.create(next);
        } catch (RuntimeException ex) {
            LOG.error("groupkeeper listener '{}' cannot be created on {}: {}", e.id(), topics, ex.getMessage(), ex);
            return;
        }
        containers.put(e.id(), c);
        byId.put(e.id(), next);
        if (wasRunning) {
            try {
                c.start();
                if (paused) {
                    c.pause();
                }
            } catch (RuntimeException ex) {
                LOG.error("groupkeeper listener '{}' failed to restart on {}: {}", e.id(), topics, ex.getMessage(), ex);
            }
        }
    }

    @Override
    public void stop() {
        stop(() -> {});
    }

    @Override
    public void stop(Runnable callback) {
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        synchronized (this) {
            running = false;
            if (patterns != null) {
                patterns.shutdownNow();
                patterns = null;
            }
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

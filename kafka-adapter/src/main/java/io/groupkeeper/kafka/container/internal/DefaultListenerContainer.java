package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.StoppedPartition;
import io.groupkeeper.kafka.container.StuckHandler;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.kafka.internal.KafkaClients;
import io.groupkeeper.log.internal.LogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ListenerContainer}: its workers, the shared dead-letter publisher and watchdog, and the lifecycle. */
public final class DefaultListenerContainer<K, V> implements ListenerContainer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultListenerContainer.class);

    private final ContainerConfig<K, V> config;
    private final AtomicReference<ContainerState> state = new AtomicReference<>(ContainerState.LATENT);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Worker<K, V>> workers = new ArrayList<>();
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean pausedAll;
    private volatile boolean stopRequested;
    private volatile DeadLetterPublisher publisher;
    private volatile Watchdog watchdog;
    /** Kafka's clients, the threads, the clock and the waits of the container and its workers' consumers. */
    private final KafkaClients clients;

    /** Validates the workers' consumer configuration first (throws naming the bad setting). */
    public DefaultListenerContainer(ContainerConfig<K, V> config) {
        this(config, KafkaClients.REAL);
    }

    /**
     * The same container on {@code clients} instead of {@link KafkaClients#REAL}: kafka-adapter's simulation runs it on
     * a model of Kafka and the simulator's threads, clock and waits.
     */
    public DefaultListenerContainer(ContainerConfig<K, V> config, KafkaClients clients) {
        Worker.validate(config);
        this.config = config;
        this.clients = Objects.requireNonNull(clients, "clients");
    }

    /** This container's configuration on other clients (not started). */
    public DefaultListenerContainer<K, V> on(KafkaClients other) {
        return new DefaultListenerContainer<>(config, other);
    }

    @Override
    public ListenerContainer<K, V> start() {
        try (LogContext.Scope ignored = LogContext.enter(config.group(), null)) {
            return startLogged();
        }
    }

    private ListenerContainer<K, V> startLogged() {
        ContainerState was = state.get();
        if (was == ContainerState.STOPPED || was == ContainerState.FAILED) {
            restarting(was);
        } else if (!state.compareAndSet(ContainerState.LATENT, ContainerState.STARTING)) {
            throw new IllegalStateException("container of group " + config.group() + " is " + was
                    + "; start() works from LATENT, STOPPED or FAILED");
        }
        try {
            if (config.errorPolicy().mayDeadLetter()) {
                publisher = new DeadLetterPublisher(config, DeadLetterPublisher.ensureTopics(config, clients), clients);
            }
            synchronized (this) {
                if (stopRequested) {
                    // A stop() came while this was starting and found no worker to stop; it returned true, so none
                    // may start now (a stop that copies the workers after this block stops them as usual).
                    closePublisher();
                    state.compareAndSet(ContainerState.STARTING, ContainerState.STOPPED);
                    LOG.info("container stopped while it was starting");
                    return this;
                }
                watchdog = new Watchdog(
                        config.group(),
                        config.watchdogLimit(),
                        config.ticker(),
                        config.metrics(),
                        config.listener(),
                        this::memberOf,
                        clients);
                for (int i = 0; i < config.concurrency(); i++) {
                    Worker<K, V> w = new Worker<>(this, config, i, publisher, clients);
                    workers.add(w);
                    watchdog.watch(w.inFlight);
                }
                running.set(workers.size());
                workers.forEach(Worker::start);
            }
            for (Worker<K, V> w : workers) {
                awaitStarted(w).join();
            }
        } catch (RuntimeException e) {
            RuntimeException cause =
                    e instanceof CompletionException ce && ce.getCause() instanceof RuntimeException re ? re : e;
            failure.set(cause);
            stop(config.stopDeadline());
            state.set(ContainerState.FAILED);
            closeShared();
            throw cause;
        }
        config.metrics()
                .containerStarted(
                        config.group(),
                        config.id(),
                        () -> watchdog.stuckCount(),
                        () -> pausedPartitions().size(),
                        () -> stoppedPartitions().size());
        if (!state.compareAndSet(ContainerState.STARTING, ContainerState.RUNNING)) {
            LOG.warn("container is {} right after start", state.get());
        }
        LOG.info(
                "container started: {} worker(s) on {}, error policy: {}",
                config.concurrency(),
                config.topics(),
                config.errorPolicy());
        return this;
    }

    /** Waits (uninterruptibly, as a {@code join}) until the worker's start is complete. */
    private CompletableFuture<Void> awaitStarted(Worker<K, V> w) {
        boolean interrupted = false;
        while (!w.started.isDone()) {
            try {
                clients.await(w.started, Long.MAX_VALUE);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return w.started;
    }

    /** A stopped or failed container starts again with new workers, once every old one has exited. */
    private synchronized void restarting(ContainerState was) {
        for (Worker<K, V> w : workers) {
            if (!w.exited.isDone()) {
                throw new IllegalStateException("container of group " + config.group() + " is " + was
                        + " but its worker " + w.thread().getName() + " has not exited yet (a handler still runs); "
                        + "start() again once it has");
            }
        }
        if (sharedDeserializersClosed) {
            throw new IllegalStateException(
                    "container of group " + config.group() + " closed the deserializer "
                            + "instances it was given when it stopped; give it deserializers(Supplier, Supplier) to restart it");
        }
        if (!state.compareAndSet(was, ContainerState.STARTING)) {
            throw new IllegalStateException("container of group " + config.group() + " is " + state.get()
                    + "; it changed while start() was called");
        }
        workers.clear();
        failure.set(null);
        stopRequested = false;
        LOG.info("container restarting (was {})", was);
    }

    @Override
    public boolean stop(Duration deadline) {
        try (LogContext.Scope ignored = LogContext.enter(config.group(), null)) {
            return stopLogged(deadline);
        }
    }

    private boolean stopLogged(Duration deadline) {
        if (state.compareAndSet(ContainerState.LATENT, ContainerState.STOPPED)) {
            return true; // never started; a start() from here on fails
        }
        stopRequested = true; // read by a start() still on its way, under the lock below
        List<Worker<K, V>> ws;
        synchronized (this) {
            ws = List.copyOf(workers);
        }
        // A FAILED container stays FAILED: its remaining workers stop, but the failure is not hidden (and no worker
        // would be left to move a STOPPING state on if the failed one was the last).
        state.compareAndSet(ContainerState.RUNNING, ContainerState.STOPPING);
        ws.forEach(Worker::requestStop);
        long end = clients.nanoTime() + deadline.toNanos();
        boolean all = true;
        for (Worker<K, V> w : ws) {
            try {
                if (!clients.await(w.exited, Math.max(0, end - clients.nanoTime()))) {
                    all = false;
                    StringBuilder trace = new StringBuilder();
                    for (StackTraceElement e : w.thread().getStackTrace()) {
                        trace.append("\n\tat ").append(e);
                    }
                    LOG.warn(
                            "worker {} did not finish within the stop deadline of {} ms; it commits and "
                                    + "leaves when its handler returns (nothing it has not processed is committed):{}",
                            w.thread().getName(),
                            deadline.toMillis(),
                            trace);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return all;
    }

    @Override
    public void close() {
        stop(config.stopDeadline());
    }

    /** Called by each worker as its thread ends; the last one closes the shared parts. */
    void workerExited(Worker<K, V> w, Throwable workerFailure) {
        if (workerFailure != null && !stopRequested) {
            failure.compareAndSet(null, workerFailure);
            state.set(ContainerState.FAILED);
            try {
                config.listener().workerFailed(w.member(), workerFailure);
            } catch (RuntimeException e) {
                LOG.warn("container listener threw on workerFailed: {}", e.toString());
            }
        }
        if (running.decrementAndGet() == 0) {
            closeShared();
            if (stopRequested) {
                state.updateAndGet(
                        s -> s == ContainerState.STARTING || s == ContainerState.STOPPING || s == ContainerState.RUNNING
                                ? ContainerState.STOPPED
                                : s);
                LOG.info("container stopped");
            }
        }
    }

    private synchronized void closeShared() {
        config.metrics().containerStopped(config.group(), config.id());
        if (watchdog != null) {
            watchdog.close();
        }
        closePublisher();
        if (config.sharedDeserializers() && !workers.isEmpty() && !sharedDeserializersClosed) {
            sharedDeserializersClosed = true; // the instances given to the builder, once
            Worker.closeQuietly(config.keyDeserializer().get(), "key");
            Worker.closeQuietly(config.valueDeserializer().get(), "value");
        }
    }

    private boolean sharedDeserializersClosed;

    private synchronized void closePublisher() {
        if (publisher != null) {
            publisher.close();
            publisher = null;
        }
    }

    boolean pausedAll() {
        return pausedAll;
    }

    /** A work thread's slot: watched from its first call. */
    void watch(InFlight slot) {
        Watchdog w = watchdog;
        if (w != null) {
            w.watch(slot);
        }
    }

    private String memberOf(InFlight slot) {
        for (Worker<K, V> w : workersList()) {
            if (w.watches(slot)) {
                return w.member();
            }
        }
        return "?";
    }

    /** The transactional mode's outputs its workers track as failed (tests: once stopped). */
    int failedOutputsTracked() {
        return workersList().stream().mapToInt(Worker::failedOutputsTracked).sum();
    }

    private synchronized List<Worker<K, V>> workersList() {
        return List.copyOf(workers);
    }

    // ------------------------------------------------------------------ ListenerContainer

    @Override
    public void pause() {
        pausedAll = true;
        workersList().forEach(Worker::nudge);
    }

    @Override
    public void resume() {
        pausedAll = false;
        workersList().forEach(Worker::nudge);
    }

    @Override
    public boolean pause(TopicPartition partition) {
        for (Worker<K, V> w : workersList()) {
            if (w.owns(partition)) {
                w.userPaused.add(partition);
                w.nudge();
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean resume(TopicPartition partition) {
        boolean any = false;
        for (Worker<K, V> w : workersList()) {
            boolean was = w.userPaused.remove(partition) | w.stopped.remove(partition) != null;
            if (was) {
                any = true;
                w.nudge();
            }
        }
        return any;
    }

    @Override
    public boolean isPaused() {
        return pausedAll;
    }

    @Override
    public Set<TopicPartition> pausedPartitions() {
        Set<TopicPartition> out = new HashSet<>();
        workersList().forEach(w -> out.addAll(w.paused()));
        return Set.copyOf(out);
    }

    @Override
    public Map<TopicPartition, StoppedPartition> stoppedPartitions() {
        Map<TopicPartition, StoppedPartition> out = new HashMap<>();
        workersList().forEach(w -> out.putAll(w.stopped));
        return Map.copyOf(out);
    }

    @Override
    public ContainerState state() {
        return state.get();
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    @Override
    public String group() {
        return config.group();
    }

    @Override
    public List<WorkerStatus> workers() {
        List<WorkerStatus> out = new ArrayList<>();
        workersList().forEach(w -> out.add(w.status()));
        return out;
    }

    @Override
    public List<StuckHandler> stuckHandlers() {
        Watchdog w = watchdog;
        return w == null ? List.of() : w.stuckNow();
    }

    @Override
    public String toString() {
        return "ListenerContainer[" + config.group() + ", " + state.get() + "]";
    }
}

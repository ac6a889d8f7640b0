package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.container.StoppedPartition;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressCodec;
import io.groupkeeper.kafka.container.internal.progress.ProgressFormatException;
import io.groupkeeper.kafka.internal.ConsumerBuilds;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.kafka.internal.KafkaClients;
import io.groupkeeper.kafka.internal.ProgressCommits;
import io.groupkeeper.log.internal.LogContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * One consumer of a container on its own thread: starts it, polls, applies pauses, and hands each poll's records to
 * its {@link ProgressDispatch} (per-partition progress, orderings, parallelism, commits of the low-water mark and done
 * set; the batch handler's and the transactional mode's calls too, through its {@link SerialCalls}). On stop, it
 * finishes what is in flight, and closes the consumer (final commit, then the partitions are released).
 *
 * <p>It is the control the progress calls back (pauses, stops, marks, tokens, commits, hand-backs), and the lifecycle
 * of the consumer and of the progress's work threads. The record path's own logic is in {@link ProgressDispatch}.
 */
final class Worker<K, V> implements Runnable, ProgressDispatch.Control {

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

    private final DefaultListenerContainer<K, V> container;
    private final ContainerConfig<K, V> config;
    private final Thread thread;
    private final int index;
    final InFlight inFlight;
    /** The per-partition progress: every handler's records. */
    private final ProgressDispatch<K, V> progress;
    /** The threads of handler calls and dead letters beside the polling thread; null when none. */
    private final ExecutorService pool;

    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    final CompletableFuture<Void> started = new CompletableFuture<>();
    /** Complete once its thread has ended (and the container's state moved). */
    final CompletableFuture<Void> exited = new CompletableFuture<>();
    /** Kafka's clients, the threads and the waits ({@code REAL} but in the simulator). */
    private final KafkaClients clients;

    private volatile CoordinatedConsumer<ByteBuffer, ByteBuffer> consumer;
    private volatile boolean stopping;
    /** The loop has ended: the progress's final marks are set (closing revokes without draining). */
    private volatile boolean exiting;

    /** Partitions paused one by one (any thread adds; the worker keeps only owned ones). */
    final Set<TopicPartition> userPaused = ConcurrentHashMap.newKeySet();

    final Map<TopicPartition, StoppedPartition> stopped = new ConcurrentHashMap<>();
    /**
     * Partitions whose pause was logged (a user's pause, a stop, the whole container's): their resume is logged too; the
     * progress's own pauses (buffer caps, span end, a retry's wait) are not (worker thread only).
     */
    private final Set<TopicPartition> announced = new HashSet<>();
    /** The transactional mode's sender; null when off. */
    private final TransactionalOutput output;
    /** The consumer's rebalance listener: the claims' tokens, the container's assignment hook, adopted resets. */
    private final AssignmentSeeker seeker;
    /** The stopped and failing marks in the partitions' offset metadata (lag status). */
    private final PartitionMarks marks = new PartitionMarks();
    /** When the worker last fetched a record, and when it last reported being idle (ticker nanos). */
    private long lastRecordNanos;

    private long lastIdleReportNanos;

    Worker(
            DefaultListenerContainer<K, V> container,
            ContainerConfig<K, V> config,
            int index,
            DeadLetterPublisher publisher,
            KafkaClients clients) {
        this.container = container;
        this.clients = clients;
        this.config = config;
        this.index = index;
        this.thread = new Thread(this, "groupkeeper-" + config.id() + "-" + index); // per listener (id: default group)
        this.inFlight = new InFlight(thread);
        this.keyDeserializer =
                Objects.requireNonNull(config.keyDeserializer().get(), "the key deserializer supplier returned null");
        this.valueDeserializer = Objects.requireNonNull(
                config.valueDeserializer().get(), "the value deserializer supplier returned null");
        this.output = config.transactional() == null
                ? null
                : new TransactionalOutput(
                        config.transactional().keySerializer(),
                        config.transactional().valueSerializer());
        this.seeker = new AssignmentSeeker(config.assignmentHook(), config.kafkaProperties(), this::adopted);
        ThreadLocal<InFlight> slots = new ThreadLocal<>();
        int threads = config.asyncHandler() != null ? 1 : config.parallelism() > 1 ? config.parallelism() : 0;
        this.pool = threads == 0 ? null : clients.pool(threads, workThreads(container, slots));
        this.progress = new ProgressDispatch<>(
                config, publisher, keyDeserializer, valueDeserializer, this, pool, inFlight, slots, clients, output);
        seeker.ownership(new ProgressOwnership());
    }

    /** The work threads {@code <worker's name>-w<n>}, each with its watchdog slot. */
    private ThreadFactory workThreads(DefaultListenerContainer<K, V> container, ThreadLocal<InFlight> slots) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread[] t = new Thread[1];
            t[0] = new Thread(
                    () -> {
                        InFlight slot = new InFlight(t[0]);
                        slots.set(slot);
                        container.watch(slot);
                        LogContext.enter(config.group(), thread.getName());
                        r.run();
                    },
                    thread.getName() + "-w" + n.getAndIncrement());
            return t[0];
        };
    }

    /** The container's Kafka properties; a {@code client.id} becomes {@code <client.id>-<n>}: one per worker. */
    private static Map<String, Object> kafkaProperties(ContainerConfig<?, ?> config, int index) {
        Object clientId = config.kafkaProperties().get("client.id");
        if (clientId == null || clientId.toString().isBlank()) {
            return config.kafkaProperties(); // the adapter names each consumer after its member
        }
        Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.put("client.id", clientId + "-" + index);
        return props;
    }

    /**
     * Worker {@code index}'s consumer, configured as the container says (not built): the user's consumer options, then
     * the container's own. The container's {@code build()} validates one ({@link #validate}), so a bad setting fails
     * there and not in a worker.
     */
    static CoordinatedConsumer.Builder<ByteBuffer, ByteBuffer> consumerBuilder(
            ContainerConfig<?, ?> config, int index, AssignmentSeeker seeker) {
        CoordinatedConsumer.Builder<ByteBuffer, ByteBuffer> b = CoordinatedConsumer.builder(config.keeper());
        config.consumerOptions().accept(b);
        if (seeker != null) {
            b.listener(seeker);
        }
        if (config.instanceId() != null) {
            b.instanceId(config.instanceId() + "-" + index); // one static member per worker
        }
        if (config.transactional() != null) { // the outputs arrive serialized (TransactionalOutput)
            b.transactional(new ByteArraySerializer(), new ByteArraySerializer())
                    .transactionalIdPrefix(config.transactional().idPrefix());
        }
        config.producerProperties().forEach(b::producerProperty); // (without the mode: refused by the validation)
        return b.group(config.group())
                .topics(config.topics())
                .kafkaProperties(kafkaProperties(config, index))
                .clientListener(config.clientListener())
                .deserializers(new ByteBufferDeserializer(), new ByteBufferDeserializer());
    }

    /**
     * Checks the workers' consumer configuration as {@code CoordinatedConsumer.Builder.validate()} does (the
     * transactional mode's settings, Kafka properties that do not parse ...): throws naming the bad setting.
     */
    static void validate(ContainerConfig<?, ?> config) {
        consumerBuilder(config, 0, null).validate();
    }

    /** This worker's own deserializers (unless shared by the container's), closed as its thread ends. */
    private void closeDeserializers() {
        if (config.sharedDeserializers()) {
            return; // the container closes them once
        }
        closeQuietly(keyDeserializer, "key");
        closeQuietly(valueDeserializer, "value");
    }

    static void closeQuietly(Deserializer<?> d, String which) {
        try {
            d.close();
        } catch (RuntimeException e) {
            LOG.warn(
                    "closing the {} deserializer {} failed: {}",
                    which,
                    d.getClass().getName(),
                    e.toString());
        }
    }

    void start() {
        clients.start(thread);
    }

    Thread thread() {
        return thread;
    }

    /** The transactional mode's outputs tracked and failed (tests: after the worker has exited); 0 when off. */
    int failedOutputsTracked() {
        return output == null ? 0 : output.failedTracked();
    }

    @Override
    public void run() {
        // The container's thread: the group and, once known, the member in every line it logs (as the core's).
        LogContext.enter(config.group(), thread.getName());
        if (output != null) {
            output.ownedBy(Thread.currentThread()); // (this.thread, unless the clients run the task on another)
        }
        try {
            runLogged();
        } finally {
            MDC.remove(LogContext.GROUP);
            MDC.remove(LogContext.MEMBER);
            CurrentRecord.leave();
        }
    }

    private void runLogged() {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c;
        try {
            c = ConsumerBuilds.build(consumerBuilder(config, index, seeker), clients);
            seeker.bind(c); // before start: the first assignment may come with the first poll
            c.start();
            consumer = c;
            MDC.put(LogContext.MEMBER, c.memberId());
            if (output != null) {
                output.bind(c);
            }
            CurrentRecord.worker(seeker::token, output); // HandlerContext.fencingToken() and sender() in handlers
            lastRecordNanos = config.ticker().nanoTime(); // quiet from here counts towards idle
            started.complete(null);
        } catch (RuntimeException | Error e) {
            started.completeExceptionally(e);
            closeDeserializers();
            container.workerExited(this, null);
            exited.complete(null);
            return;
        }
        Throwable failure = null;
        try {
            while (!stopping) {
                progress.pump(this::hold);
                applyPauses(c);
                ConsumerRecords<ByteBuffer, ByteBuffer> records;
                try {
                    records = c.poll(progress.enterPoll(config.pollTimeout(), this::hold));
                } catch (WakeupException e) {
                    continue; // a pause, resume, stop or handler outcome: applied at the top
                } catch (OffsetOutOfRangePolicyException e) {
                    continue; // the adapter stopped that partition and logged it (outOfRange=fail)
                } finally {
                    progress.leftPoll();
                }
                if (!records.isEmpty()) {
                    lastRecordNanos = config.ticker().nanoTime();
                    progress.fetched(records);
                } else if (progress.outstanding() > 0) {
                    lastRecordNanos = config.ticker().nanoTime(); // handlers still at work: not idle
                } else {
                    reportIdle(c);
                }
            }
            progress.drain(config.stopDeadline()); // in flight completes; the final marks go with close()
        } catch (InterruptedException e) {
            if (!stopping) { // interrupted from outside: a failure, which the container's state and health show
                failure = e;
                LOG.error(
                        "worker {} (member {}) interrupted; its consumer closes and leaves the group",
                        thread.getName(),
                        c.memberId(),
                        e);
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            LOG.error(
                    "worker {} (member {}) failed; its consumer closes and leaves the group",
                    thread.getName(),
                    c.memberId(),
                    e);
        } finally {
            exiting = true; // a revocation on close drains nothing more: what ran came back, or its time is up
            if (pool != null) {
                if (failure != null) {
                    pool.shutdownNow();
                } else {
                    pool.shutdown(); // (a handler still running past the stop deadline ends on its own)
                }
            }
            handBackBeforeClose(failure); // (after a drain: nothing left; a failure, an interrupt: what was not done)
            c.close(); // final commit of what was done, then the partitions are released
            seeker.close();
            closeDeserializers();
            container.workerExited(this, failure);
            exited.complete(null); // after the container's state moved: stop() returns a settled state
        }
    }

    /** {@link io.groupkeeper.kafka.container.ContainerListener#idle}, once per idle interval while nothing comes. */
    private void reportIdle(CoordinatedConsumer<ByteBuffer, ByteBuffer> c) {
        Duration interval = config.idleEventInterval();
        if (interval == null) {
            return;
        }
        long now = config.ticker().nanoTime();
        long since = Math.max(lastRecordNanos, lastIdleReportNanos);
        if (now - since < interval.toNanos()) {
            return;
        }
        lastIdleReportNanos = now;
        try {
            config.listener().idle(c.memberId(), Duration.ofNanos(now - lastRecordNanos));
        } catch (RuntimeException e) {
            LOG.warn("container listener threw on idle: {}", e.toString());
        }
    }

    /**
     * The transactional mode, before its consumer's final commit (a worker that dies, or is interrupted, has not
     * drained): what the progress holds and has not done is handed back, so the position that commits is not past it.
     */
    private void handBackBeforeClose(Throwable failure) {
        try {
            progress.handBack();
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                LOG.warn("handing back what was not done before the final commit failed: {}", e.toString());
            }
        }
    }

    /**
     * Makes the consumer's paused set what the container wants: user pauses, stopped partitions, records waiting for
     * their next attempt (until due), or all.
     */
    private void applyPauses(CoordinatedConsumer<ByteBuffer, ByteBuffer> c) {
        Set<TopicPartition> owned = c.assignment();
        userPaused.retainAll(owned);
        stopped.keySet().retainAll(owned);
        announced.retainAll(owned);
        marks.apply(c, owned, stopped);
        Set<TopicPartition> want;
        Set<TopicPartition> full = progress.pauses(); // buffer caps, span end, handover, waiting for a retry
        if (container.pausedAll()) {
            want = owned;
        } else {
            want = new HashSet<>(userPaused);
            want.addAll(stopped.keySet());
            want.addAll(full);
            want.retainAll(owned);
        }
        Set<TopicPartition> have = c.paused();
        if (want.equals(have)) {
            return;
        }
        Set<TopicPartition> pause = new HashSet<>(want);
        pause.removeAll(have);
        Set<TopicPartition> resume = new HashSet<>(have);
        resume.removeAll(want);
        if (!pause.isEmpty()) {
            c.pause(pause);
            if (!full.containsAll(pause)) {
                LOG.info("paused {}", pause);
                pause.removeAll(full);
                announced.addAll(pause);
            }
        }
        if (!resume.isEmpty()) {
            c.resume(resume);
            boolean loud = false;
            for (TopicPartition tp : resume) {
                loud |= announced.remove(tp);
            }
            if (loud) {
                LOG.info("resumed {}", resume);
            }
        }
    }

    // ------------------------------------------------------------------ ProgressDispatch.Control

    /** Whether the partition's records must not run now (paused, stopped, the container stops). */
    boolean hold(TopicPartition tp) {
        return stopping
                || container.pausedAll()
                || (!userPaused.isEmpty() && userPaused.contains(tp))
                || (!stopped.isEmpty() && stopped.containsKey(tp));
    }

    /**
     * The consumer adopted an external change of stored offsets (an operator's {@code offsets reset}, a hand edit; on
     * this thread, inside a poll): a partition stopped by the error policy resumes from there — the operator moved it
     * past (or back to) the record that stopped it — and a record waiting for its next attempt is no longer waited for.
     */
    private void adopted(Map<TopicPartition, OptionalLong> offsets) {
        offsets.forEach((tp, offset) -> {
            progress.assigned(tp); // the operator's offset wins (I4): a new progress from what the node holds
            StoppedPartition s = stopped.remove(tp);
            if (s != null) {
                LOG.warn(
                        "partition {} stopped at offset {} resumes from offset {}: its stored offset was changed "
                                + "(an operator's reset)",
                        tp,
                        s.offset(),
                        offset.isPresent() ? offset.getAsLong() : "none (the start position)");
            }
        });
    }

    @Override
    public void outcome(TopicPartition tp, long offset, Throwable failure) {
        marks.outcome(tp, offset, failure);
    }

    @Override
    public void stopPartition(TopicPartition tp, long offset, String reason) {
        StoppedPartition s = new StoppedPartition(tp, offset, reason);
        stopped.put(tp, s);
        LOG.atLevel(FailureLog.isBackOff(reason) ? Level.DEBUG : Level.WARN)
                .log(
                        "partition {} stopped at offset {} (paused, still owned; resume it to retry): {}",
                        tp,
                        offset,
                        reason);
        try {
            config.listener().partitionStopped(s);
        } catch (RuntimeException e) {
            LOG.warn("container listener threw on partitionStopped: {}", e.toString());
        }
    }

    @Override
    public void commit(TopicPartition tp, OffsetProgress p) {
        ((ProgressCommits) consumer).progress(tp, p.lowWater(), ProgressCodec.encode(p));
    }

    @Override
    public OffsetProgress resumeFrom(TopicPartition tp) {
        ProgressCommits pc = (ProgressCommits) consumer;
        OptionalLong offset = pc.resumeOffset(tp);
        if (offset.isEmpty()) {
            return null;
        }
        Optional<String> done = pc.resumeDone(tp);
        try {
            return ProgressCodec.resume(offset.getAsLong(), done);
        } catch (ProgressFormatException e) {
            LOG.warn(
                    "the done value beside offset {} of {} does not read ({}); resuming from the offset alone (what "
                            + "it named runs again)",
                    offset.getAsLong(),
                    tp,
                    e.getMessage());
            return OffsetProgress.at(offset.getAsLong());
        }
    }

    @Override
    public void handBack(TopicPartition tp, long offset) {
        consumer.seek(tp, offset); // fetched again from there; not committed past it
    }

    @Override
    public void wakeup() {
        nudge();
    }

    @Override
    public long token(TopicPartition tp) {
        return seeker.token(tp).orElse(-1);
    }

    /** Ownership changes, for the progress (inside a poll, on this thread). */
    private final class ProgressOwnership implements AssignmentSeeker.Ownership {
        @Override
        public void assigned(Collection<TopicPartition> partitions) {
            partitions.forEach(progress::assigned);
        }

        @Override
        public void revoking(Collection<TopicPartition> partitions) {
            Duration rt = ((DefaultCoordinatedConsumer<?, ?>) consumer).revocationTimeout();
            Duration drain = rt.minus(
                    rt.dividedBy(2).compareTo(Duration.ofSeconds(2)) < 0
                            ? rt.dividedBy(2)
                            : Duration.ofSeconds(2)); // the final commit still fits in the revocation timeout
            try {
                progress.revoking(partitions, exiting ? Duration.ZERO : drain, Worker.this::hold);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("interrupted while draining revoked {}; released without what was in flight", partitions);
            }
        }

        @Override
        public void lost(Collection<TopicPartition> partitions) {
            partitions.forEach(progress::forget);
        }
    }

    /** Whether {@code slot} is one of this worker's (its thread's, or a work thread's). */
    boolean watches(InFlight slot) {
        return slot == inFlight || slot.thread.getName().startsWith(thread.getName() + "-w");
    }

    String member() {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c = consumer;
        return c == null ? thread.getName() : c.memberId();
    }

    // ------------------------------------------------------------------ any thread

    /** Makes the worker apply pauses now (its poll returns). */
    void nudge() {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    void requestStop() {
        stopping = true;
        nudge();
    }

    boolean owns(TopicPartition tp) {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c = consumer;
        return c != null && c.assignment().contains(tp);
    }

    Set<TopicPartition> paused() {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c = consumer;
        return c == null ? Set.of() : c.paused();
    }

    WorkerStatus status() {
        CoordinatedConsumer<ByteBuffer, ByteBuffer> c = consumer;
        boolean running = !exited.isDone() && c != null;
        return c == null
                ? new WorkerStatus(config.group(), thread.getName(), false, Set.of(), Set.of(), false)
                : new WorkerStatus(
                        config.group(),
                        c.memberId(),
                        running && c.isLeader(),
                        running ? c.assignment() : Set.of(),
                        running ? c.paused() : Set.of(),
                        running);
    }
}

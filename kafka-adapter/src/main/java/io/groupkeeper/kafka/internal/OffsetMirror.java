package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies offsets that were committed to groupkeeper's store into Kafka's own group offset store
 * ({@code __consumer_offsets}), so Kafka's tools (kafka-consumer-groups, Burrow, lag exporters, Kafka UI) see the
 * group. ZooKeeper stays the source of truth: the mirror is written after the store's commit succeeded, never read.
 *
 * <p><b>Never backwards across owners.</b> Kafka keeps the last offset written, and has no conditional offset write;
 * a write can land long after its client gave up on it (a request queued in the broker, an internal retry). What
 * Kafka does fence is a transactional producer: {@code initTransactions} of a transactional id aborts the open
 * transaction of, and rejects every later write by, any earlier producer of that id. So each partition's offsets are
 * written in transactions ({@code sendOffsetsToTransaction}) by a producer of its own, transactional id
 * {@code groupkeeper-mirror|<topic>|<partition>|<kafka group>}, initialised when the member gains the partition. A
 * commit is mirrored only if that producer's initialisation had completed before the commit was sent to the store
 * ({@link #mark}), so by the store's ownership the previous owner's producer was initialised before this owner's:
 * every write of the previous owner lands before this owner's first one, or not at all. The argument in full is in
 * docs/kafka-adapter.md.
 *
 * <p>Asynchronous: one thread per mirror does every Kafka call in order; {@link #offer} only merges offsets into a
 * pending map (latest per partition wins) and never waits. A failed write is counted
 * ({@code groupkeeper.offsets.mirror.failures}), logged as a WARN at most once per {@code warnInterval}, and retried
 * with the next commit unless newer offsets came or the partition is gone. Before each round of writes the mirror
 * checks that Kafka's group has no live member of Kafka's own protocol (Kafka accepts a transactional offset commit
 * even then): if it has, the round counts as failed.
 *
 * <p>Kafka is reached through {@link FencedOffsets} ({@link KafkaFencedOffsets} in the adapter), and the mirror's
 * thread is an {@link Executor}: the simulator runs this class over a model of Kafka's offset store, the thread's tasks
 * scheduled like the rest of its work.
 *
 * <p>Thread-safe. {@link #close} writes what is pending and waits for it, bounded, then closes the clients.
 *
 * <p>About 530 lines: the ordering state (marks, readiness, generations, owed partitions) and the thread's tasks that
 * read and change it under one lock; split, each part would need all of it.
 */
public final class OffsetMirror implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetMirror.class);

    private final String group;
    private final String kafkaGroup;
    private final FencedOffsets kafka;
    private final GroupMetrics metrics;
    private final long warnIntervalNanos;
    private final LongSupplier nanoTime;
    private final Executor thread;

    private final Object lock = new Object();
    /** Ticks on every {@link #mark} and every completed producer initialisation: orders the two. */
    private long clock;
    /** The fence of every partition this member holds (gained and not yet released or lost). */
    private final Map<TopicPartition, Fence> fences = new HashMap<>();

    private Map<TopicPartition, Write> pending = new LinkedHashMap<>();
    private boolean drainQueued;
    private int tasks;
    private boolean closed;
    private long lastWarnNanos;
    private boolean warned;
    private long failuresSinceWarn;

    /** One partition's transactional producer, for as long as this member holds the partition. */
    private static final class Fence {
        final TopicPartition tp;
        /** Set on the mirror's thread only. */
        FencedOffsets.Writer producer;
        /** Which producer of this fence, counting from 1; 0 before the first is ready (read under the lock). */
        int generation;
        /** The clock at which {@link #generation}'s producer was ready (under the lock). */
        long readyAt = Long.MAX_VALUE;

        boolean initQueued;
        boolean gone;
        /** Its last committed offset needs a new commit to reach Kafka (see {@link #owed}). */
        boolean owed;

        Fence(TopicPartition tp) {
            this.tp = tp;
        }
    }

    /** An offset to write with the producer {@code generation} of {@code fence}, or not at all. */
    private record Write(Fence fence, int generation, long offset) {}

    OffsetMirror(
            String group,
            String kafkaGroup,
            Map<String, ?> kafkaProperties,
            GroupMetrics metrics,
            Duration timeout,
            Duration warnInterval,
            LongSupplier nanoTime) {
        this(
                group,
                kafkaGroup,
                new KafkaFencedOffsets(group, kafkaGroup, kafkaProperties, timeout),
                metrics,
                warnInterval,
                nanoTime,
                Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "groupkeeper-mirror-" + group);
                    t.setDaemon(true);
                    return t;
                }));
    }

    /** {@code thread} runs the tasks in the order given, one at a time; shut down on close if an ExecutorService. */
    OffsetMirror(
            String group,
            String kafkaGroup,
            FencedOffsets kafka,
            GroupMetrics metrics,
            Duration warnInterval,
            LongSupplier nanoTime,
            Executor thread) {
        this.group = Objects.requireNonNull(group, "group");
        this.kafkaGroup = Objects.requireNonNull(kafkaGroup, "kafkaGroup");
        this.kafka = Objects.requireNonNull(kafka, "kafka");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.warnIntervalNanos = warnInterval.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.thread = Objects.requireNonNull(thread, "thread");
    }

    String kafkaGroup() {
        return kafkaGroup;
    }

    /**
     * Call before sending a commit to the store, and pass the result to {@link #offer} with what it committed: an
     * offset is mirrored only by a producer that was ready before the mark.
     */
    long mark() {
        synchronized (lock) {
            return ++clock;
        }
    }

    /** The member gained these partitions: their producers are initialised now (fencing the previous owners'). */
    void gained(Collection<TopicPartition> partitions) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            for (TopicPartition tp : partitions) {
                Fence old = fences.put(tp, new Fence(tp));
                if (old != null) {
                    retireLocked(old);
                }
                queueInitLocked(fences.get(tp));
            }
        }
    }

    /**
     * Queues offsets the store has just committed (next offset to process, per partition), sent to the store after
     * {@code mark}; never blocks on Kafka. Offsets of partitions whose producer was not ready by then are not written:
     * the caller commits those partitions again once they are {@link #owed} (that commit proves that this member
     * still owns them, after its producer fenced the previous owner's).
     */
    void offer(Map<TopicPartition, Long> committed, long mark) {
        if (committed.isEmpty()) {
            return;
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            committed.forEach((tp, o) -> {
                Fence f = fences.get(tp);
                if (f == null) {
                    return; // not gained through this mirror (or already gone): nothing may write it
                }
                if (f.readyAt < mark) {
                    pending.put(tp, new Write(f, f.generation, o));
                    f.owed = false;
                    return;
                }
                f.owed = true;
                if (f.producer == null && !f.initQueued) {
                    queueInitLocked(f); // its initialisation failed: try again
                }
                LOG.debug(
                        "partition {}: offset {} not mirrored: its producer was not ready before the " + "commit",
                        tp,
                        o);
            });
            if (!pending.isEmpty() && !drainQueued) {
                drainQueued = true;
                submitLocked(this::drain);
            }
        }
    }

    /**
     * Partitions whose last committed offset is not in Kafka and needs a new commit to get there (it was sent before
     * their producer was ready, or their producer was fenced and replaced since), and whose producer is ready now:
     * the caller commits them again (unchanged offsets too) so that the mirror can write them.
     */
    SortedSet<TopicPartition> owed() {
        SortedSet<TopicPartition> owed = new TreeSet<>();
        synchronized (lock) {
            fences.values().forEach(f -> {
                if (f.owed && f.readyAt != Long.MAX_VALUE) {
                    owed.add(f.tp);
                }
            });
        }
        return owed;
    }

    /** Whether a commit of {@code p} sent from now on would be mirrored (its producer is ready). */
    boolean ready(TopicPartition p) {
        synchronized (lock) {
            Fence f = fences.get(p);
            return f != null && f.readyAt != Long.MAX_VALUE;
        }
    }

    /**
     * Waits, at most {@code max}, until the producers of these held partitions are ready or have failed: a final
     * commit sent after that can be mirrored. Without the wait, a partition released soon after it was gained (a
     * short-lived consumer, a quick rebalance) would leave its final offsets out of Kafka, since only a commit sent
     * after its producer was ready may be written (see the class comment).
     */
    void awaitReady(Collection<TopicPartition> partitions, Duration max) {
        long deadline = nanoTime.getAsLong() + max.toNanos();
        synchronized (lock) {
            while (!closed) {
                boolean pending = false;
                for (TopicPartition p : partitions) {
                    Fence f = fences.get(p);
                    pending |= f != null && f.readyAt == Long.MAX_VALUE && f.initQueued && !f.gone;
                }
                long left = deadline - nanoTime.getAsLong();
                if (!pending || left <= 0) {
                    return;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * The member released these partitions (after offering their final offsets): those are written, then the
     * partitions' producers closed. Queued behind the final write, never before it.
     */
    void released(Collection<TopicPartition> partitions) {
        synchronized (lock) {
            for (TopicPartition p : partitions) {
                Fence f = fences.remove(p);
                if (f != null) {
                    retireLocked(f);
                }
            }
        }
    }

    /** The member lost these partitions (no final commit): nothing pending for them is written; producers closed. */
    void lost(Collection<TopicPartition> partitions) {
        synchronized (lock) {
            for (TopicPartition tp : partitions) {
                Fence f = fences.remove(tp);
                Write w = pending.get(tp);
                if (w != null && w.fence == f) {
                    pending.remove(tp);
                }
                if (f != null) {
                    retireLocked(f);
                }
            }
        }
    }

    /** Nothing queued or running on the mirror's thread (for tests that need a write's aftermath settled). */
    boolean idle() {
        synchronized (lock) {
            return tasks == 0;
        }
    }

    private void retireLocked(Fence f) {
        f.gone = true;
        if (!closed) {
            submitLocked(() -> closeProducer(f, Duration.ofSeconds(1)));
        }
    }

    private void queueInitLocked(Fence f) {
        f.initQueued = true;
        submitLocked(() -> init(f));
    }

    /** The member whose offsets these are, for the logging context of the mirror's thread. */
    void member(String memberId) {
        this.member = memberId;
    }

    private volatile String member;

    private void submitLocked(Runnable task) {
        tasks++;
        thread.execute(() -> {
            try (LogContext.Scope ignored = LogContext.enter(group, member)) {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("offset mirror task failed: {}", e.toString());
            } finally {
                synchronized (lock) {
                    tasks--;
                    lock.notifyAll();
                }
            }
        });
    }

    /** Mirror thread: a new producer for {@code f}, initialised (which fences every earlier producer of its id). */
    private void init(Fence f) {
        try {
            initNow(f);
        } finally {
            synchronized (lock) {
                f.initQueued = false; // (only now: offers meanwhile must not queue a second initialisation)
            }
        }
    }

    private void initNow(Fence f) {
        synchronized (lock) {
            if (f.gone) {
                return;
            }
        }
        closeProducer(f, Duration.ZERO);
        FencedOffsets.Writer producer;
        try {
            producer = kafka.open(f.tp);
        } catch (RuntimeException e) {
            metrics.offsetMirrorFailed(group, 1);
            warn(1, "preparing the transactional producer of " + f.tp + " failed", e);
            return; // tried again at the next offer
        }
        boolean gone;
        synchronized (lock) {
            gone = f.gone;
            if (!gone) {
                f.producer = producer;
                f.generation++;
                f.readyAt = ++clock;
            }
        }
        if (gone) { // released or lost meanwhile
            producer.close(Duration.ZERO);
        }
    }

    /**
     * Mirror thread: {@code producer} can write no more (fenced, or in a fatal state): if it is still the fence's, the
     * fence gets a new one and its last offset is owed a new commit. Closes {@code producer}.
     */
    private void replaceProducer(Fence fence, FencedOffsets.Writer producer) {
        synchronized (lock) {
            if (fence.producer == producer) {
                fence.producer = null;
                fence.readyAt = Long.MAX_VALUE;
                fence.owed = true;
                if (!fence.gone && !fence.initQueued) {
                    queueInitLocked(fence);
                }
            }
        }
        producer.close(Duration.ZERO);
    }

    /** Mirror thread: writes what is pending, each partition in a transaction of its own producer. */
    private void drain() {
        Map<TopicPartition, Write> batch;
        synchronized (lock) {
            drainQueued = false;
            batch = pending;
            pending = new LinkedHashMap<>();
        }
        if (batch.isEmpty()) {
            return;
        }
        String busy = kafka.liveMembers();
        if (busy != null) {
            metrics.offsetMirrorFailed(group, batch.size());
            warn(
                    batch.size(),
                    "mirroring " + batch.size() + " offset(s) to Kafka group " + kafkaGroup + " refused: " + busy,
                    null);
            requeue(batch);
            return;
        }
        int ok = 0;
        Map<TopicPartition, Write> failed = new LinkedHashMap<>();
        RuntimeException lastFailure = null;
        for (Map.Entry<TopicPartition, Write> e : batch.entrySet()) {
            Write w = e.getValue();
            FencedOffsets.Writer producer;
            synchronized (lock) {
                producer = w.generation == w.fence.generation ? w.fence.producer : null;
                if (producer == null && !w.fence.gone) {
                    w.fence.owed = true; // its producer was replaced since: a new commit is needed
                }
            }
            if (producer == null) {
                continue; // its producer was replaced or closed since: this write may no longer be made
            }
            try {
                producer.write(w.offset);
                ok++;
            } catch (FencedOffsets.Fenced fenced) {
                // Another producer of this partition's id was initialised since: an owner after us (this write must
                // not land, and does not), or a late initialisation of an earlier owner's (then the next commit of
                // ours, if we still own the partition, is written by a new producer initialised after it).
                lastFailure = fenced.getCause() instanceof RuntimeException r ? r : fenced;
                failed.put(e.getKey(), null);
                replaceProducer(w.fence, producer);
            } catch (FencedOffsets.Failed f) {
                lastFailure = f.getCause() instanceof RuntimeException r ? r : f;
                failed.put(e.getKey(), w);
                if (!f.usable) { // a fatal state: a new producer for the next commit
                    replaceProducer(w.fence, producer);
                }
            }
        }
        if (ok > 0) {
            metrics.offsetsMirrored(group, ok);
        }
        if (!failed.isEmpty()) {
            metrics.offsetMirrorFailed(group, failed.size());
            warn(
                    failed.size(),
                    "mirroring " + failed.size() + " offset(s) to Kafka group " + kafkaGroup + " failed",
                    lastFailure);
            Map<TopicPartition, Write> retry = new LinkedHashMap<>();
            failed.forEach((tp, w) -> {
                if (w != null) {
                    retry.put(tp, w);
                }
            });
            requeue(retry);
        }
    }

    /** Failed writes wait for the next offer, unless newer offsets came or their producer is gone. */
    private void requeue(Map<TopicPartition, Write> batch) {
        synchronized (lock) {
            batch.forEach((tp, w) -> {
                if (!w.fence.gone && w.generation == w.fence.generation) {
                    pending.putIfAbsent(tp, w);
                }
            });
        }
    }

    private void closeProducer(Fence f, Duration wait) {
        FencedOffsets.Writer p;
        synchronized (lock) {
            p = f.producer;
            f.producer = null;
            f.readyAt = Long.MAX_VALUE;
        }
        if (p != null) {
            try {
                p.close(wait);
            } catch (RuntimeException e) {
                LOG.debug("closing the mirror producer of {} failed: {}", f.tp, e.toString());
            }
        }
    }

    private void warn(int partitions, String what, Throwable failure) {
        long now = nanoTime.getAsLong();
        long suppressed;
        synchronized (lock) {
            if (warned && now - lastWarnNanos < warnIntervalNanos) {
                failuresSinceWarn++;
                return;
            }
            warned = true;
            lastWarnNanos = now;
            suppressed = failuresSinceWarn;
            failuresSinceWarn = 0;
        }
        LOG.warn(
                "{} (offsets in ZooKeeper are unaffected; retried with the next commit){}{}",
                what,
                suppressed > 0 ? "; " + suppressed + " more failure(s) since the last warning" : "",
                failure == null
                        ? ""
                        : ": " + failure + (failure.getCause() != null ? " (" + failure.getCause() + ")" : ""));
    }

    /** Writes what is pending and waits up to 5 s for it; then closes the clients. Never throws. */
    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    void close(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (!pending.isEmpty() && !drainQueued) {
                drainQueued = true;
                submitLocked(this::drain);
            }
            fences.values().forEach(f -> f.gone = true);
            for (Fence f : fences.values()) {
                submitLocked(() -> closeProducer(f, Duration.ofSeconds(1)));
            }
            fences.clear();
            closed = true;
            while (tasks > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (thread instanceof ExecutorService s) {
            s.shutdownNow();
        }
        kafka.close(Duration.ofSeconds(1));
    }
}

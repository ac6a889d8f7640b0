package io.groupkeeper.kafka.internal;

import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies offsets that were committed to groupkeeper's store into Kafka's own group offset store
 * ({@code __consumer_offsets}), so Kafka's tools (kafka-consumer-groups, Burrow, lag exporters, Kafka UI) see the
 * group. ZooKeeper stays the source of truth: the mirror is written after the store's commit succeeded, never read.
 *
 * <p>How: {@code Admin.alterConsumerGroupOffsets} for the Kafka group, which Kafka accepts for a group without
 * members (ours never joins Kafka's group protocol). Asynchronous: {@link #offer} only merges the offsets into a
 * pending map and, when no request is in flight, sends one; the caller (the polling thread) never waits. At most one
 * request is in flight; offers made meanwhile are coalesced (the latest offset per partition wins) and sent when it
 * completes. A failed request is counted ({@code groupkeeper.offsets.mirror.failures}) and logged as a WARN at most
 * once per {@code warnInterval}; its offsets go back to the pending map unless newer ones arrived, or the member has
 * given the partition up since (its next owner mirrors its own), and are sent with the next offer, so a lasting
 * failure costs one request per commit, never a retry loop, and never moves Kafka's offset back behind a later owner.
 *
 * <p>Thread-safe. {@link #close} sends what is pending and waits for it, bounded, then closes the Admin client.
 */
public final class OffsetMirror implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetMirror.class);
    static final String METADATA = "groupkeeper-mirror";

    private final String group;
    private final String kafkaGroup;
    private final Map<String, Object> adminConfig;
    private final GroupMetrics metrics;
    private final Duration timeout;
    private final long warnIntervalNanos;
    private final LongSupplier nanoTime;

    private final Object lock = new Object();
    private Map<TopicPartition, Long> pending = new HashMap<>();
    /**
     * Partitions this member gave up (revoked or lost) since it last offered them: a failed send of theirs is not
     * retried, since the next owner may have mirrored a later offset meanwhile and a late retry would move Kafka's
     * offset back.
     */
    private final Set<TopicPartition> given = new java.util.HashSet<>();
    private boolean inFlight;
    private boolean closed;
    private Admin admin;
    private long lastWarnNanos;
    private boolean warned;
    private long failuresSinceWarn;

    OffsetMirror(String group, String kafkaGroup, Map<String, ?> kafkaProperties, GroupMetrics metrics,
                 Duration timeout, Duration warnInterval, LongSupplier nanoTime) {
        this.group = Objects.requireNonNull(group, "group");
        this.kafkaGroup = Objects.requireNonNull(kafkaGroup, "kafkaGroup");
        this.adminConfig = adminConfig(kafkaProperties, group);
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.warnIntervalNanos = warnInterval.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** The Admin client's share of the consumer's properties (bootstrap, security ...), with its own client id. */
    static Map<String, Object> adminConfig(Map<String, ?> kafkaProperties, String group) {
        Set<String> known = AdminClientConfig.configNames();
        Map<String, Object> config = new LinkedHashMap<>();
        kafkaProperties.forEach((k, v) -> {
            if (known.contains(k) && !k.equals(AdminClientConfig.CLIENT_ID_CONFIG)) {
                config.put(k, v);
            }
        });
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-mirror-" + group);
        return config;
    }

    String kafkaGroup() {
        return kafkaGroup;
    }

    /** Queues offsets the store has just committed (next offset to process, per partition); never blocks on Kafka. */
    void offer(Map<io.groupkeeper.TopicPartition, Long> committed) {
        if (committed.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> batch;
        synchronized (lock) {
            if (closed) {
                return;
            }
            committed.forEach((tp, o) -> {
                TopicPartition ktp = new TopicPartition(tp.topic(), tp.partition());
                pending.put(ktp, o);
                given.remove(ktp);
            });
            if (inFlight) {
                return; // sent when the request in flight completes
            }
            batch = takeLocked();
        }
        send(batch);
    }

    /**
     * The member released these partitions (after offering their final offsets): what is pending for them is sent now,
     * not with some later offer behind the next owner's own, and not retried if it fails.
     */
    void released(java.util.Collection<io.groupkeeper.TopicPartition> partitions) {
        Map<TopicPartition, Long> batch = null;
        synchronized (lock) {
            boolean due = false;
            for (io.groupkeeper.TopicPartition tp : partitions) {
                TopicPartition ktp = new TopicPartition(tp.topic(), tp.partition());
                given.add(ktp);
                due |= pending.containsKey(ktp);
            }
            if (due && !inFlight && !closed) {
                batch = takeLocked();
            }
        }
        if (batch != null) {
            send(batch);
        }
    }

    /** The member lost these partitions (no final commit): nothing pending for them is sent, nor retried. */
    void lost(java.util.Collection<io.groupkeeper.TopicPartition> partitions) {
        synchronized (lock) {
            partitions.forEach(tp -> {
                TopicPartition ktp = new TopicPartition(tp.topic(), tp.partition());
                given.add(ktp);
                pending.remove(ktp);
            });
        }
    }

    /** No request in flight (for tests that need a failure's aftermath settled). */
    boolean idle() {
        synchronized (lock) {
            return !inFlight;
        }
    }

    private Map<TopicPartition, Long> takeLocked() {
        Map<TopicPartition, Long> batch = pending;
        pending = new HashMap<>();
        inFlight = true;
        return batch;
    }

    private void send(Map<TopicPartition, Long> batch) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        batch.forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o, METADATA)));
        try {
            admin().alterConsumerGroupOffsets(kafkaGroup, offsets,
                            new AlterConsumerGroupOffsetsOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE, timeout.toMillis())))
                    .all().whenComplete((ok, failure) -> completed(batch, failure));
        } catch (RuntimeException e) { // e.g. the Admin client could not be created
            completed(batch, e);
        }
    }

    private Admin admin() {
        synchronized (lock) {
            if (admin == null) {
                admin = Admin.create(adminConfig);
            }
            return admin;
        }
    }

    private void completed(Map<TopicPartition, Long> batch, Throwable failure) {
        if (failure == null) {
            metrics.offsetsMirrored(group, batch.size());
        } else {
            metrics.offsetMirrorFailed(group, batch.size());
            warn(batch, failure);
        }
        Map<TopicPartition, Long> next = null;
        synchronized (lock) {
            inFlight = false;
            if (failure != null) {
                batch.forEach((tp, o) -> {
                    if (!given.contains(tp)) {
                        pending.putIfAbsent(tp, o); // retried with the next offer, unless newer offsets came
                    }
                });
            } else if (!pending.isEmpty() && !closed) {
                next = takeLocked();
            }
            lock.notifyAll();
        }
        if (next != null) {
            send(next);
        }
    }

    private void warn(Map<TopicPartition, Long> batch, Throwable failure) {
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
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        LOG.warn("group {}: mirroring {} offset(s) to Kafka group {} failed (offsets in ZooKeeper are unaffected; "
                        + "retried with the next commit){}: {}", group, batch.size(), kafkaGroup,
                suppressed > 0 ? "; " + suppressed + " more failure(s) since the last warning" : "", cause.toString());
    }

    /** Sends what is pending and waits up to {@code wait} for it; then closes the Admin client. Never throws. */
    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    void close(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        Map<TopicPartition, Long> last = null;
        synchronized (lock) {
            if (closed) {
                return;
            }
            waitIdle(deadline);
            if (!inFlight && !pending.isEmpty()) {
                last = takeLocked();
            }
        }
        if (last != null) {
            send(last);
        }
        Admin a;
        synchronized (lock) {
            waitIdle(deadline);
            closed = true;
            a = admin;
        }
        if (a != null) {
            try {
                a.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                LOG.debug("group {}: closing the mirror's Admin client failed: {}", group, e.toString());
            }
        }
    }

    private void waitIdle(long deadline) {
        while (inFlight) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
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

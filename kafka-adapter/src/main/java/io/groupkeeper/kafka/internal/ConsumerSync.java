package io.groupkeeper.kafka.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Keeps the {@code KafkaConsumer} fetching what {@link Positions} says — the active partitions, from their positions,
 * paused where paused — and reads back what a fetch told: the records still wanted, and each partition's lag. Also
 * answers the {@link PositionResolver}'s questions about the log. Polling thread only.
 */
final class ConsumerSync<K, V> implements PositionResolver.LogOffsets, PositionResolver.Seeker {

    private final Consumer<K, V> consumer;
    private final Positions positions;
    private final Duration kafkaTimeout;
    /** A wake-up (an event, the user's wakeup()) that a log question caught and retried past: poll must not block. */
    private boolean wakeupTaken;
    /** While a {@code poll(timeout)} runs ({@link #within}): when it began and how long it may take (nanos). */
    private boolean bounded;

    private long boundStart;
    private long boundNanos;
    /** A log question gets at least this, even at the end of a poll's time (a poll(0) must still find its starts). */
    private static final long MIN_QUESTION_NANOS = 50_000_000L;

    ConsumerSync(Consumer<K, V> consumer, Positions positions, Duration kafkaTimeout) {
        this.consumer = consumer;
        this.positions = positions;
        this.kafkaTimeout = kafkaTimeout;
    }

    /**
     * Makes the KafkaConsumer's assignment the active partitions (seeking newly assigned ones to their positions) and
     * pauses the paused ones there ({@code assign} keeps the pause of those it keeps, not of new or re-positioned ones).
     */
    void sync() {
        Map<TopicPartition, Long> want = positions.activePositions();
        Set<TopicPartition> have = consumer.assignment();
        if (!want.keySet().equals(have)) {
            consumer.assign(want.keySet());
            want.forEach((ktp, position) -> {
                if (!have.contains(ktp)) {
                    consumer.seek(ktp, position);
                }
            });
        }
        Set<TopicPartition> paused = positions.refreshViews();
        if (!paused.isEmpty()) {
            List<TopicPartition> pause = new ArrayList<>(paused);
            pause.retainAll(consumer.assignment());
            consumer.pause(pause);
        }
    }

    /** Nothing to fetch: every owned partition is unresolved or stopped, or none is owned. */
    boolean fetchesNothing() {
        return consumer.assignment().isEmpty();
    }

    /** Moves {@code p}'s position, and the consumer's if it fetches {@code p}. */
    @Override
    public void seek(OwnedPartition p, long offset) {
        positions.position(p, offset);
        if (p.active() && consumer.assignment().contains(p.ktp)) {
            consumer.seek(p.ktp, offset);
        }
    }

    /** Resumes those of {@code partitions} that were paused. */
    void resume(Collection<TopicPartition> partitions) {
        List<TopicPartition> resumed = new ArrayList<>();
        for (TopicPartition ktp : partitions) {
            if (positions.resume(ktp) && consumer.assignment().contains(ktp)) {
                resumed.add(ktp);
            }
        }
        consumer.resume(resumed);
    }

    /** Keeps the records of partitions still owned and untouched since the fetch; advances their positions. */
    ConsumerRecords<K, V> deliver(ConsumerRecords<K, V> fetched) {
        if (fetched.isEmpty()) {
            return fetched;
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (TopicPartition ktp : fetched.partitions()) {
            OwnedPartition p = positions.get(ktp);
            if (p == null || !p.active() || positions.touched(p.tp)) {
                continue; // revoked, lost, re-sought or stopped while the records were in flight
            }
            List<ConsumerRecord<K, V>> records = new ArrayList<>();
            for (ConsumerRecord<K, V> r : fetched.records(ktp)) {
                if (r.offset() >= p.position) {
                    records.add(r);
                }
            }
            if (!records.isEmpty()) {
                ConsumerRecord<K, V> last = records.get(records.size() - 1);
                p.position = last.offset() + 1;
                out.put(ktp, records);
                next.put(ktp, new OffsetAndMetadata(p.position, last.leaderEpoch(), ""));
            }
        }
        return out.isEmpty() ? ConsumerRecords.empty() : new ConsumerRecords<>(out, next);
    }

    /** Log end and lag of every owned partition, from what the last fetch told (no request). */
    void updateLags() {
        for (OwnedPartition p : positions.all()) {
            if (!p.active()) {
                continue;
            }
            try {
                OptionalLong fetchLag = consumer.currentLag(p.ktp);
                if (fetchLag.isPresent()) {
                    p.logEnd = consumer.position(p.ktp, Duration.ZERO) + fetchLag.getAsLong();
                    p.lag = Math.max(0, p.logEnd - p.position);
                }
            } catch (RuntimeException e) {
                // no position yet (just assigned or reset): known after the next fetch
            }
        }
    }

    /**
     * The log questions asked from now on until {@link #unbounded()} end within a {@code poll(timeout)} that began at
     * {@code startNanos} (and within kafkaTimeout, as always): a Kafka that cannot be reached must not hold a
     * {@code poll(500 ms)} for the 10 s of a question; what is not answered is asked again at the next poll.
     */
    void within(long startNanos, long timeoutNanos) {
        bounded = true;
        boundStart = startNanos;
        boundNanos = timeoutNanos;
    }

    void unbounded() {
        bounded = false;
    }

    private Duration questionTimeout() {
        if (!bounded) {
            return kafkaTimeout;
        }
        long left = Math.max(MIN_QUESTION_NANOS, boundNanos - (System.nanoTime() - boundStart));
        return left >= kafkaTimeout.toNanos() ? kafkaTimeout : Duration.ofNanos(left);
    }

    // ------------------------------------------------------------------ the resolver's questions

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return retryWakeups(() -> consumer.beginningOffsets(partitions, questionTimeout()));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return retryWakeups(() -> consumer.endOffsets(partitions, questionTimeout()));
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        return retryWakeups(() -> consumer.offsetsForTimes(timestamps, questionTimeout()));
    }

    /**
     * Whether a wake-up was caught since the last call: the KafkaConsumer's wake-up is used up, so the caller must
     * look at its events (and the user's wakeup()) before it blocks in a poll.
     */
    boolean takeCaughtWakeup() {
        boolean taken = wakeupTaken;
        wakeupTaken = false;
        return taken;
    }

    /** Runs a blocking KafkaConsumer call, retrying when a wake-up interrupts it (and noting that one came). */
    private <T> T retryWakeups(Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (WakeupException e) {
                wakeupTaken = true; // an event arrived, or the user's wakeup(): the polling loop serves both
            }
        }
    }
}

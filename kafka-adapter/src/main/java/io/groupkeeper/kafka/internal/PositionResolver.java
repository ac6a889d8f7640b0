package io.groupkeeper.kafka.internal;

import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a partition's position comes from when the store has none to give, or gives one outside the log: the start
 * position ({@link StartPosition}) for partitions without a stored offset, and the {@link OutOfRangePolicy} for a
 * fetch position outside the log. Polling thread only. Asks Kafka through {@link LogOffsets}; stores nothing itself
 * (resolved starts and corrections go to the {@link PositionCommitter}).
 */
final class PositionResolver {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The log offsets the resolver asks Kafka for (the polling thread's {@code KafkaConsumer}). */
    interface LogOffsets {
        Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions);

        Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions);

        Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps);
    }

    /** Moves an owned partition's position (and the {@code KafkaConsumer}'s, if it fetches it). */
    interface Seeker {
        void seek(OwnedPartition p, long offset);
    }

    /** What the out-of-range policy decided for one partition. */
    record Decision(Kind kind, long offset, String why) {
        enum Kind {
            /** The offset is inside the log after all (records were produced meanwhile): fetch from it again. */
            RETRY,
            /** Continue from {@link #offset()} and store it (earliest / latest). */
            CORRECT,
            /** Stop the partition and report it (fail). */
            FAIL
        }
    }

    /** Positions corrected by the policy, to be stored; {@code bad} and {@code why} are for the log line. */
    record Corrections(
            SortedMap<io.groupkeeper.TopicPartition, Long> corrected,
            Map<io.groupkeeper.TopicPartition, Long> bad,
            Map<io.groupkeeper.TopicPartition, String> why) {
        boolean isEmpty() {
            return corrected.isEmpty();
        }
    }

    private final String group;
    private final StartPosition start;
    private final OutOfRangePolicy policy;
    private final LogOffsets log;
    private final LongSupplier nanoTime;
    /** Failures of outOfRange=fail, thrown one per {@code poll()}. */
    private final ArrayDeque<OffsetOutOfRangePolicyException> failures = new ArrayDeque<>();
    /**
     * An attempt is due at once (new partitions, a removed offset) rather than at {@link #retryAtNanos}. A flag, not a
     * time of 0: {@code System.nanoTime()} may be negative, so only differences of its values compare.
     */
    private boolean dueNow = true;

    private long retryAtNanos;

    PositionResolver(
            String group, StartPosition start, OutOfRangePolicy policy, LogOffsets log, LongSupplier nanoTime) {
        this.group = group;
        this.start = start;
        this.policy = policy;
        this.log = log;
        this.nanoTime = nanoTime;
    }

    // ------------------------------------------------------------------ start positions

    /** Resolve at the next chance (new partitions, or a stored offset removed), not after the retry delay. */
    void resolveSoon() {
        dueNow = true;
    }

    /** Whether {@link #resolveStarts} should be tried now (not waiting out a retry delay). */
    boolean due() {
        return dueNow || nanoTime.getAsLong() - retryAtNanos >= 0;
    }

    /** How long a wait for events may last before the next attempt is due (0: now). */
    long nanosUntilDue() {
        return dueNow ? 0 : Math.max(0, retryAtNanos - nanoTime.getAsLong());
    }

    private void retryLater() {
        dueNow = false;
        retryAtNanos = nanoTime.getAsLong() + RETRY_NANOS;
    }

    /**
     * Positions the partitions that have no offset at the start position; retries in a second what Kafka could not
     * answer. Returns the partitions positioned now, whose start the caller stores at once
     * ({@link PositionCommitter#storeStarts}): the group's start position is then durable, and an heir of a partition
     * whose first owner died before its first commit repeats records rather than skipping to a later log end.
     * Each start goes through {@code seeker}: a partition the {@code KafkaConsumer} still fetches (its stored offset
     * was removed and adopted since the last sync) must be fetched from its start, not from where it was.
     */
    List<OwnedPartition> resolveStarts(Positions positions, Seeker seeker) {
        List<OwnedPartition> pending = positions.unresolved();
        if (pending.isEmpty()) {
            return List.of();
        }
        List<TopicPartition> ktps = new ArrayList<>();
        pending.forEach(p -> ktps.add(p.ktp));
        Map<TopicPartition, Long> resolved;
        try {
            resolved = startOffsets(ktps);
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            retryLater();
            LOG.warn("cannot find the start ({}) of {} yet, retrying: {}", start, ktps, e.toString());
            return List.of();
        }
        List<OwnedPartition> started = new ArrayList<>();
        for (OwnedPartition p : pending) {
            Long offset = resolved.get(p.ktp);
            if (offset != null) {
                seeker.seek(p, offset);
                started.add(p);
                LOG.debug("{} has no committed offset; starting at {} ({}), storing it", p.tp, offset, start);
            } else {
                retryLater();
            }
        }
        return started;
    }

    private Map<TopicPartition, Long> startOffsets(List<TopicPartition> ktps) {
        return switch (start.kind()) {
            case EARLIEST -> log.beginningOffsets(ktps);
            case LATEST -> log.endOffsets(ktps);
            case TIMESTAMP -> {
                long ts = start.timestampValue().orElseThrow().toEpochMilli();
                Map<TopicPartition, Long> query = new HashMap<>();
                ktps.forEach(k -> query.put(k, ts));
                Map<TopicPartition, OffsetAndTimestamp> found = log.offsetsForTimes(query);
                Map<TopicPartition, Long> resolved = new HashMap<>();
                List<TopicPartition> none = new ArrayList<>();
                for (TopicPartition k : ktps) {
                    OffsetAndTimestamp o = found.get(k);
                    if (o != null) {
                        resolved.put(k, o.offset());
                    } else {
                        none.add(k); // no record at or after the timestamp: the log end
                    }
                }
                if (!none.isEmpty()) {
                    resolved.putAll(log.endOffsets(none));
                }
                yield resolved;
            }
        };
    }

    // ------------------------------------------------------------------ out-of-range offsets

    /** The next failure of outOfRange=fail to throw from {@code poll()}, or null. */
    OffsetOutOfRangePolicyException nextFailure() {
        return failures.poll();
    }

    /**
     * The fetch position of some partitions is outside their log (a stored offset above the end or below the start,
     * or retention overtook the consumer): applies the policy to the active ones among them (seeks, stops) and
     * returns the corrections to store.
     */
    Corrections outOfRange(InvalidOffsetException e, Positions positions, Seeker seeker) {
        Map<TopicPartition, Long> bad = new HashMap<>();
        if (e instanceof OffsetOutOfRangeException oore) {
            bad.putAll(oore.offsetOutOfRangePartitions());
        }
        List<OwnedPartition> affected = new ArrayList<>();
        for (TopicPartition ktp : e.partitions()) {
            OwnedPartition p = positions.get(ktp);
            if (p != null && p.active()) {
                affected.add(p);
                bad.putIfAbsent(ktp, p.position);
            }
        }
        Corrections out = new Corrections(new TreeMap<>(), new HashMap<>(), new HashMap<>());
        if (affected.isEmpty()) {
            return out;
        }
        List<TopicPartition> ktps = new ArrayList<>();
        affected.forEach(p -> ktps.add(p.ktp));
        Map<TopicPartition, Long> starts;
        Map<TopicPartition, Long> ends;
        try {
            starts = log.beginningOffsets(ktps);
            ends = log.endOffsets(ktps);
        } catch (InterruptException ie) {
            throw ie;
        } catch (KafkaException ke) {
            LOG.warn("offsets of {} are out of range but the log bounds cannot be read: {}", ktps, ke.toString());
            return out;
        }
        for (OwnedPartition p : affected) {
            long offset = bad.get(p.ktp);
            long lo = starts.getOrDefault(p.ktp, 0L);
            long hi = ends.getOrDefault(p.ktp, lo);
            Decision d = decide(policy, offset, lo, hi);
            switch (d.kind()) {
                case RETRY -> seeker.seek(p, offset);
                case FAIL -> {
                    p.failed = true;
                    positions.touch(p.tp);
                    OffsetOutOfRangePolicyException failure =
                            new OffsetOutOfRangePolicyException(group, p.ktp, offset, lo, hi);
                    LOG.warn("{}", failure.getMessage());
                    failures.add(failure);
                }
                case CORRECT -> {
                    seeker.seek(p, d.offset());
                    out.corrected().put(p.tp, d.offset());
                    out.bad().put(p.tp, offset);
                    out.why().put(p.tp, d.why());
                }
            }
        }
        return out;
    }

    /** The policy's decision for a fetch position {@code offset} reported outside the log {@code lo..hi}. */
    static Decision decide(OutOfRangePolicy policy, long offset, long lo, long hi) {
        if (offset >= lo && offset <= hi) {
            return new Decision(Decision.Kind.RETRY, offset, "");
        }
        if (policy == OutOfRangePolicy.FAIL) {
            return new Decision(Decision.Kind.FAIL, offset, "");
        }
        long corrected = policy == OutOfRangePolicy.EARLIEST ? lo : hi;
        String why = (offset > hi ? "above the log end " + hi : "below the log start " + lo) + " (log " + lo + ".." + hi
                + ")";
        return new Decision(Decision.Kind.CORRECT, corrected, why);
    }
}

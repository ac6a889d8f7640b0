package io.groupkeeper.benchmarks.parallel;

import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The workload every contender runs and what it counts: the handler waits {@code handlerMs} (a sleep stands for a
 * database or HTTP call), then the record counts as processed. Counts every handler completion, the distinct
 * (partition, offset) pairs among them (the rest were processed twice), and order violations of the contender's lane:
 * two records of one lane (a key, a partition) in the handler at once, or a lane's record started before an earlier
 * started one of lower offset — checked only where no rebalance may replay ({@code checkOrder}).
 */
final class Tally {

    private final long handlerMs;
    private final long expected;
    private final LaneOf lane;
    private final boolean checkOrder;
    /** Null for a run's tally; for an {@link #instance()} view, the tally it passes everything on to. */
    private final Tally parent;

    private final Map<Integer, BitSet> seen = new ConcurrentHashMap<>();
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong unique = new AtomicLong();
    private final AtomicLong violations = new AtomicLong();
    private final AtomicInteger inHandler = new AtomicInteger();
    private final AtomicInteger maxInHandler = new AtomicInteger();
    volatile long firstNanos;
    volatile long lastNanos;
    /** Counted down at the first completion. */
    final CountDownLatch first = new CountDownLatch(1);
    /** Counted down when every one of {@code expected} records was processed at least once. */
    final CountDownLatch all = new CountDownLatch(1);

    /** The lane of a record whose order a contender promises: its key, its partition. */
    @FunctionalInterface
    interface LaneOf {
        String of(int partition, String key);
    }

    private static final class Lane {
        final AtomicInteger busy = new AtomicInteger();
        volatile long lastStarted = -1;
    }

    /**
     * @param lane the record's lane (key or partition) whose order the contender promises, or null for no order
     * @param checkOrder whether to count order violations (not across rebalances, which replay legitimately)
     */
    Tally(long handlerMs, long expected, LaneOf lane, boolean checkOrder) {
        this.handlerMs = handlerMs;
        this.expected = expected;
        this.lane = lane;
        this.checkOrder = checkOrder && lane != null;
        this.parent = null;
    }

    private Tally(Tally parent) {
        this.handlerMs = parent.handlerMs;
        this.expected = parent.expected;
        this.lane = null;
        this.checkOrder = false;
        this.parent = parent;
    }

    /**
     * A view for one consumer instance: its {@link #processed()} counts what that instance completed; everything
     * else is counted by this tally.
     */
    Tally instance() {
        return new Tally(this);
    }

    /** The handler every contender calls: waits {@code handlerMs}, then counts the record. */
    void handle(ConsumerRecord<String, String> r) throws InterruptedException {
        start(r.partition(), r.offset(), r.key());
        boolean done = false;
        try {
            Thread.sleep(handlerMs);
            done = true;
        } finally {
            end(r.partition(), r.offset(), r.key(), done);
        }
    }

    /** A record entered the handler (here, or in a contender's own JVM: {@link RemoteInstance}). */
    void start(int partition, long offset, String key) {
        if (parent != null) {
            parent.start(partition, offset, key);
            return;
        }
        if (checkOrder) {
            Lane l = lanes.computeIfAbsent(lane.of(partition, key), k -> new Lane());
            if (l.busy.incrementAndGet() > 1 || offset <= l.lastStarted) {
                violations.incrementAndGet();
            }
            l.lastStarted = offset;
        }
        maxInHandler.accumulateAndGet(inHandler.incrementAndGet(), Math::max);
    }

    /** A record left the handler; {@code completed}: it was processed (not interrupted). */
    void end(int partition, long offset, String key, boolean completed) {
        if (parent != null) {
            if (completed) {
                processed.incrementAndGet();
            }
            parent.end(partition, offset, key, completed);
            return;
        }
        inHandler.decrementAndGet();
        if (checkOrder) {
            lanes.get(lane.of(partition, key)).busy.decrementAndGet();
        }
        if (completed) {
            completed(partition, offset);
        }
    }

    private void completed(int partition, long offset) {
        boolean fresh;
        BitSet bits = seen.computeIfAbsent(partition, p -> new BitSet());
        synchronized (bits) {
            fresh = !bits.get((int) offset);
            bits.set((int) offset);
        }
        long n = processed.incrementAndGet();
        long t = System.nanoTime();
        if (n == 1) {
            firstNanos = t;
            first.countDown();
        }
        lastNanos = t;
        if (fresh && unique.incrementAndGet() == expected) {
            all.countDown();
        }
    }

    long processed() {
        return processed.get();
    }

    long unique() {
        return unique.get();
    }

    /** Handler completions beyond the first of each record. */
    long duplicates() {
        return processed.get() - unique.get();
    }

    long violations() {
        return violations.get();
    }

    /** The most handler calls seen running at once. */
    int maxInHandler() {
        return maxInHandler.get();
    }
}

package io.groupkeeper.kafka.container.internal.progress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The progress of every partition a member owns, under one ordering and one set of limits: which partition's progress
 * a ticket goes back to, the workers shared fairly between partitions, what a commit owes, which partitions to pause.
 * {@code P} is the partition's type (the container's {@code TopicPartition}).
 *
 * <p>A partition assigned again (a new claim) gets a new progress; tickets of the earlier one, and tickets of a
 * partition no longer owned, are dropped and counted. Not thread-safe: the polling thread calls it.
 */
public final class OwnedPartitions<P, R> {

    /** A ticket and the partition it belongs to. */
    public record Dispatched<P, R>(P partition, Ticket<R> ticket) {}

    private final Ordering ordering;
    private final ProgressLimits limits;
    private final Map<P, PartitionProgress<R>> owned = new LinkedHashMap<>();
    private int turn;
    /**
     * {@link #owned} as arrays for {@link #dispatch} over several partitions (no iterator, list or entry per call);
     * {@code keys} is null when they are to be rebuilt (a partition assigned or gone), and {@code open} the rounds'
     * scratch.
     */
    private P[] keys;

    private PartitionProgress<R>[] progress;
    private int[] open;
    private static final int ELIGIBILITY_UNKNOWN = 0;
    private static final int IN = 1;
    private static final int OUT = 2;
    private long droppedUnowned;
    private PartitionProgress<R> runnable;

    public OwnedPartitions(Ordering ordering, ProgressLimits limits) {
        this.ordering = Objects.requireNonNull(ordering, "ordering");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * {@code partition} was claimed under {@code epoch} (its fencing token); processing resumes from what its offset
     * node holds. An earlier progress of the partition is let go.
     */
    public PartitionProgress<R> assigned(P partition, long epoch, OffsetProgress resumeFrom) {
        PartitionProgress<R> p = new PartitionProgress<>(ordering, limits, epoch, resumeFrom);
        PartitionProgress<R> before = owned.put(partition, p);
        keys = null;
        if (before != null) {
            before.lost();
        }
        return p;
    }

    /** A graceful revocation begins: the partition starts nothing more; what runs may complete. */
    public Optional<PartitionProgress<R>> revoking(P partition) {
        PartitionProgress<R> p = owned.get(partition);
        if (p != null) {
            p.stopDispatching();
        }
        return Optional.ofNullable(p);
    }

    /** The partition is gone (released after its final commit, or lost): its tickets are dropped from now on. */
    public void gone(P partition) {
        PartitionProgress<R> p = owned.remove(partition);
        keys = null;
        if (p != null) {
            p.lost();
        }
    }

    public Optional<PartitionProgress<R>> get(P partition) {
        return Optional.ofNullable(owned.get(partition));
    }

    /**
     * At most {@code capacity} tickets over all partitions, one per partition in turn, starting with the next
     * partition each call, so that no partition starves the others of workers.
     */
    public List<Dispatched<P, R>> dispatch(int capacity, long now) {
        return dispatch(capacity, now, p -> true);
    }

    /** As {@link #dispatch(int, long)}, from the partitions {@code eligible} accepts only (the others are held). */
    public List<Dispatched<P, R>> dispatch(int capacity, long now, Predicate<P> eligible) {
        List<Dispatched<P, R>> out = new ArrayList<>();
        dispatch(capacity, now, eligible, (p, t) -> out.add(new Dispatched<>(p, t)));
        return out;
    }

    /**
     * As {@link #dispatch(int, long, java.util.function.Predicate)}, handing each ticket and its partition to
     * {@code to} (in the same order) instead of collecting them; returns how many. The container's path: nothing
     * allocated per ticket but the ticket.
     */
    public int dispatch(int capacity, long now, Predicate<P> eligible, BiConsumer<P, Ticket<R>> to) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        if (keys == null) {
            order();
        }
        int size = keys.length;
        if (size == 0 || capacity == 0) {
            return 0;
        }
        if (size == 1) { // (a member with one partition: all its tickets at once)
            if (!eligible.test(keys[0])) {
                return 0;
            }
            int n = 0;
            for (Ticket<R> t; n < capacity && (t = progress[0].next(now)) != null; n++) {
                to.accept(keys[0], t);
            }
            return n;
        }
        // Rounds over the partitions from the one whose turn it is, one ticket each. A partition leaves the rounds
        // (its mark in open[] set) when it is held or has nothing to start; whether it is held is asked once per call,
        // when its turn first comes (the container's inline round takes one ticket per call: one question).
        Arrays.fill(open, 0, size, ELIGIBILITY_UNKNOWN);
        int start = Math.floorMod(turn++, size);
        int n = 0;
        int left = size;
        while (n < capacity && left > 0) {
            for (int k = 0; k < size && n < capacity; k++) {
                int i = (start + k) % size;
                if (open[i] == OUT) {
                    continue;
                }
                if (open[i] == ELIGIBILITY_UNKNOWN) {
                    if (!eligible.test(keys[i])) {
                        open[i] = OUT;
                        left--;
                        continue;
                    }
                    open[i] = IN;
                }
                Ticket<R> t = progress[i].next(now);
                if (t == null) {
                    open[i] = OUT;
                    left--;
                } else {
                    to.accept(keys[i], t);
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * For a caller that makes one handler call at a time and completes it before the next (the container's inline
     * calls): the next partition in turn, from those {@code eligible} accepts, whose progress has a record to run
     * without a ticket ({@link PartitionProgress#runnable()}); null when none has. The turn moves past it, as
     * {@link #dispatch} moves it, so that partitions take turns between runs. {@link #runnableProgress()} is its
     * progress.
     */
    public P nextRunnable(Predicate<P> eligible) {
        if (keys == null) {
            order();
        }
        int size = keys.length;
        for (int k = 0; k < size; k++) {
            int i = Math.floorMod(turn + k, size);
            if (progress[i].runnable() != null && eligible.test(keys[i])) {
                turn = i + 1;
                runnable = progress[i];
                return keys[i];
            }
        }
        runnable = null;
        return null;
    }

    /** The progress of the partition {@link #nextRunnable} returned last (null when it returned null). */
    public PartitionProgress<R> runnableProgress() {
        return runnable;
    }

    /** The owned partitions as arrays, in the map's order, for {@link #dispatch} (rebuilt after a change). */
    @SuppressWarnings("unchecked")
    private void order() {
        int size = owned.size();
        keys = (P[]) new Object[size];
        progress = new PartitionProgress[size];
        open = new int[size];
        int i = 0;
        for (Map.Entry<P, PartitionProgress<R>> e : owned.entrySet()) {
            keys[i] = e.getKey();
            progress[i] = e.getValue();
            i++;
        }
    }

    /** As {@link PartitionProgress#complete}; false for a partition not owned or a stale ticket. */
    public boolean complete(P partition, Ticket<R> ticket) {
        PartitionProgress<R> p = owned.get(partition);
        if (p == null) {
            droppedUnowned++;
            return false;
        }
        return p.complete(ticket);
    }

    /** As {@link PartitionProgress#retryLater}; false for a partition not owned or a stale ticket. */
    public boolean retryLater(P partition, Ticket<R> ticket, long notBefore) {
        PartitionProgress<R> p = owned.get(partition);
        if (p == null) {
            droppedUnowned++;
            return false;
        }
        return p.retryLater(ticket, notBefore);
    }

    /** The snapshot of every owned partition whose progress changed since its last commit. */
    public Map<P, OffsetProgress> owed() {
        Map<P, OffsetProgress> m = new LinkedHashMap<>();
        owned.forEach((tp, p) -> {
            if (p.commitOwed()) {
                m.put(tp, p.snapshot());
            }
        });
        return m;
    }

    /** These snapshots (from {@link #owed()}) were written; partitions no longer owned are ignored. */
    public void committed(Map<P, OffsetProgress> written) {
        written.forEach((tp, s) -> {
            PartitionProgress<R> p = owned.get(tp);
            if (p != null) {
                p.committed(s);
            }
        });
    }

    /** For each owned partition, whether to pause its fetching now ({@link PartitionProgress#shouldPauseFetching}). */
    public Map<P, Boolean> pauses() {
        Map<P, Boolean> m = new LinkedHashMap<>();
        owned.forEach((tp, p) -> m.put(tp, p.shouldPauseFetching()));
        return m;
    }

    /** The earliest retry over all partitions (the caller's clock); empty when none waits. */
    public OptionalLong nextRetryAt() {
        return nextRetryAt(p -> true);
    }

    /** The earliest retry over the partitions {@code eligible} accepts (the caller's clock); empty when none waits. */
    public OptionalLong nextRetryAt(Predicate<P> eligible) {
        return owned.entrySet().stream()
                .filter(e -> eligible.test(e.getKey()))
                .map(e -> e.getValue().nextRetryAt())
                .filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong)
                .reduce((a, b) -> a - b <= 0 ? a : b);
    }

    /** Whether {@code ticket} is in flight in the current progress of {@code partition} (a hand-back would count). */
    public boolean isCurrent(P partition, Ticket<R> ticket) {
        PartitionProgress<R> p = owned.get(partition);
        return p != null && p.isCurrent(ticket);
    }

    /** The partitions owned (a view; the polling thread's). */
    public Set<P> partitions() {
        return Collections.unmodifiableSet(owned.keySet());
    }

    /** Records in flight over all partitions. */
    public int inFlight() {
        return owned.values().stream().mapToInt(PartitionProgress::inFlight).sum();
    }

    /** Tickets dropped: stale in a partition's progress, or of a partition no longer owned. */
    public long droppedTickets() {
        return droppedUnowned
                + owned.values().stream()
                        .mapToLong(PartitionProgress::droppedTickets)
                        .sum();
    }
}

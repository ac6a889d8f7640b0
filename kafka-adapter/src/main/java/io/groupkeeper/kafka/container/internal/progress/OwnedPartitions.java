package io.groupkeeper.kafka.container.internal.progress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

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
    public record Dispatched<P, R>(P partition, Ticket<R> ticket) {
    }

    private final Ordering ordering;
    private final ProgressLimits limits;
    private final Map<P, PartitionProgress<R>> owned = new LinkedHashMap<>();
    private int turn;
    /** A partition's tickets on their way out of {@link #dispatch} (reused: one thread). */
    private final List<Ticket<R>> scratch = new ArrayList<>();
    /**
     * {@link #owned} as arrays for {@link #dispatch} over several partitions (no iterator, list or entry per call);
     * {@code keys} is null when they are to be rebuilt (a partition assigned or gone), and {@code open} the rounds'
     * scratch.
     */
    private P[] keys;
    private PartitionProgress<R>[] progress;
    private int[] open;
    private long droppedUnowned;

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
    public List<Dispatched<P, R>> dispatch(int capacity, long now, java.util.function.Predicate<P> eligible) {
        List<Dispatched<P, R>> out = new ArrayList<>();
        dispatch(capacity, now, eligible, (p, t) -> out.add(new Dispatched<>(p, t)));
        return out;
    }

    /**
     * As {@link #dispatch(int, long, java.util.function.Predicate)}, handing each ticket and its partition to
     * {@code to} (in the same order) instead of collecting them; returns how many. The container's path: nothing
     * allocated per ticket but the ticket.
     */
    public int dispatch(int capacity, long now, java.util.function.Predicate<P> eligible,
                        java.util.function.BiConsumer<P, Ticket<R>> to) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        if (owned.size() == 1) { // (the common case of a member with one partition: no copies)
            Map.Entry<P, PartitionProgress<R>> only = owned.entrySet().iterator().next();
            if (capacity == 0 || !eligible.test(only.getKey())) {
                return 0;
            }
            scratch.clear();
            int n = only.getValue().dispatch(capacity, now, scratch);
            for (int i = 0; i < n; i++) {
                to.accept(only.getKey(), scratch.get(i));
            }
            scratch.clear();
            return n;
        }
        if (keys == null) {
            order();
        }
        int eligibleCount = 0; // open[] holds the eligible ones' indexes, in the map's order
        for (int i = 0; i < keys.length; i++) {
            if (eligible.test(keys[i])) {
                open[eligibleCount++] = i;
            }
        }
        if (eligibleCount == 0) {
            return 0;
        }
        int start = Math.floorMod(turn++, eligibleCount);
        // Rounds over the eligible partitions from the one whose turn it is, one ticket each; a partition with
        // nothing to start leaves the rounds (its slot in open[] becomes -1).
        int n = 0;
        int left = eligibleCount;
        while (n < capacity && left > 0) {
            for (int k = 0; k < eligibleCount && n < capacity; k++) {
                int at = (start + k) % eligibleCount;
                int i = open[at];
                if (i < 0) {
                    continue;
                }
                scratch.clear();
                if (progress[i].dispatch(1, now, scratch) == 0) {
                    open[at] = -1;
                    left--;
                } else {
                    to.accept(keys[i], scratch.get(0));
                    n++;
                }
            }
        }
        scratch.clear();
        return n;
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
    public OptionalLong nextRetryAt(java.util.function.Predicate<P> eligible) {
        return owned.entrySet().stream().filter(e -> eligible.test(e.getKey()))
                .map(e -> e.getValue().nextRetryAt()).filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong).reduce((a, b) -> a - b <= 0 ? a : b);
    }

    /** Whether {@code ticket} is in flight in the current progress of {@code partition} (a hand-back would count). */
    public boolean isCurrent(P partition, Ticket<R> ticket) {
        PartitionProgress<R> p = owned.get(partition);
        return p != null && p.isCurrent(ticket);
    }

    /** The partitions owned (a view; the polling thread's). */
    public java.util.Set<P> partitions() {
        return java.util.Collections.unmodifiableSet(owned.keySet());
    }

    /** Records in flight over all partitions. */
    public int inFlight() {
        return owned.values().stream().mapToInt(PartitionProgress::inFlight).sum();
    }

    /** Tickets dropped: stale in a partition's progress, or of a partition no longer owned. */
    public long droppedTickets() {
        return droppedUnowned + owned.values().stream().mapToLong(PartitionProgress::droppedTickets).sum();
    }
}

package io.groupkeeper.kafka.container.internal.progress;

import java.util.Collections;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A partition's progress as committed: the low-water mark (every record below it is done; the offset the node holds,
 * where a new owner resumes), the offsets done above it, and the failed attempts of records not done yet (so that a
 * new owner goes on counting). Immutable.
 *
 * <p>{@link #isDone} is what a new owner skips: a fetched record is processed unless it is below the low-water mark or
 * named in {@code done}.
 */
public record OffsetProgress(long lowWater, NavigableSet<Long> done, SortedMap<Long, Integer> attempts) {

    public OffsetProgress {
        if (lowWater < 0) {
            throw new IllegalArgumentException("low-water mark must be >= 0, was " + lowWater);
        }
        // (empty, as nearly every commit's are: the shared empty ones, nothing made per commit)
        done = done.isEmpty()
                ? Collections.emptyNavigableSet()
                : Collections.unmodifiableNavigableSet(new TreeSet<>(done));
        attempts = attempts.isEmpty()
                ? Collections.emptySortedMap()
                : Collections.unmodifiableSortedMap(new TreeMap<>(attempts));
        if (!done.isEmpty() && done.first() <= lowWater) {
            throw new IllegalArgumentException("done offset " + done.first() + " is not above the low-water mark "
                    + lowWater + " (everything below the low-water mark is done, the mark itself is not)");
        }
        for (var e : attempts.entrySet()) {
            if (e.getKey() < lowWater) {
                throw new IllegalArgumentException("attempts at offset " + e.getKey() + " below the low-water mark "
                        + lowWater + " (that record is done)");
            }
            if (e.getValue() < 1) {
                throw new IllegalArgumentException(
                        "attempts at offset " + e.getKey() + " must be >= 1, was " + e.getValue());
            }
            if (done.contains(e.getKey())) {
                throw new IllegalArgumentException("offset " + e.getKey() + " is both done and has attempts");
            }
        }
    }

    /** Nothing done above {@code lowWater}: what a plain offset means. */
    public static OffsetProgress at(long lowWater) {
        return new OffsetProgress(lowWater, new TreeSet<>(), new TreeMap<>());
    }

    /** Whether the record at {@code offset} is done: a new owner skips it. */
    public boolean isDone(long offset) {
        return offset < lowWater || done.contains(offset);
    }

    /** The failed attempts recorded for the record at {@code offset} (0: none). */
    public int attemptsAt(long offset) {
        return attempts.getOrDefault(offset, 0);
    }

    /** The largest done offset minus the low-water mark (0 when none): the span the done set needs. */
    public long span() {
        return done.isEmpty() ? 0 : done.last() - lowWater;
    }

    @Override
    public String toString() {
        return "progress[low-water " + lowWater + ", done above " + done.size()
                + (attempts.isEmpty() ? "" : ", attempts " + attempts) + "]";
    }
}

package io.groupkeeper.kafka.container.internal.progress;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The progress of one owned partition under one ownership: what is fetched and not dispatched, in flight, waiting to
 * be retried, done, and owed to the offset node; and which records may start now ({@link #dispatch}).
 *
 * <p>Every record has a lane ({@link Ordering#lane}); a lane runs one record at a time, in offset order. A record
 * that failed keeps its lane busy until it is retried and done, so under {@code KEY} a failing record blocks only its
 * own key, under {@code PARTITION} the partition (as today), under {@code UNORDERED} nothing.
 *
 * <p>The bound: no record at or beyond {@code lowWater + maxSpan} is dispatched. The low-water mark only grows, so
 * every done offset lies in {@code (lowWater, lowWater + maxSpan)} and the done set has fewer than {@code maxSpan}
 * entries; its encoding is at most {@link ProgressCodec#maxEncodedLength(int)} characters. Done offsets restored from
 * a node written with a larger span are dropped at resume (those records run again: at least once holds).
 *
 * <p>The low-water mark is the lowest fetched record not done, or, when every fetched record is done, the fetch
 * position; it then moves on over offsets a previous owner recorded as done. Offsets that never arrive (compacted
 * away, transaction markers) are passed by the fetch position ({@link #append}, {@link #advanceFetchPosition}).
 *
 * <p>Ownership: a progress belongs to one claim ({@code epoch}, the claim's fencing token). Tickets of another
 * epoch, tickets handed back twice, and everything after {@link #lost()} are dropped and counted.
 *
 * <p>The cost per record is kept flat (every ordering, and {@code PARTITION} is the container's default path): the held
 * records are a ring in offset order ({@link HeldRecords}) carrying each one's size, lane and ticket while in flight,
 * a lane's queue a ring of offsets, the idle lanes a priority queue by their next offset, {@code PARTITION}'s one lane
 * a field; the done set, the attempts and the retries (sorted maps) are touched only when they hold something. The
 * container's records are held as fetched, read through a {@link FetchedView}: nothing is made per record.
 * {@code PartitionProgressAllocationTest} counts it.
 *
 * <p>Not thread-safe: one thread (the container's polling thread) calls it; workers hand tickets back through it.
 */
public final class PartitionProgress<R> {

    private static final class Lane<R> {
        final Object id;
        /** The offsets of its records waiting to start, in offset order. */
        final OffsetQueue queue = new OffsetQueue();

        boolean busy;

        Lane(Object id) {
            this.id = id;
        }
    }

    private final Ordering ordering;
    private final ProgressLimits limits;
    private final long epoch;
    private final long resumeAt;

    private long lowWater;
    /** Every offset below it was fetched (or never arrives). */
    private long fetchedUntil;
    /** Done offsets above the low-water mark (restored ones included). */
    private final NavigableSet<Long> done = new TreeSet<>();
    /** Failed attempts of records not done yet (restored ones included). */
    private final TreeMap<Long, Integer> attempts = new TreeMap<>();
    /** Fetched and not done: buffered, in flight (with its ticket) or waiting to be retried. */
    private final HeldRecords<R> held = new HeldRecords<>();

    private long heldBytes;
    /** The lanes with records held (not {@code PARTITION}'s: {@link #partitionLane}). */
    private final Map<Object, Lane<R>> lanes = new HashMap<>();
    /** {@code PARTITION}'s one lane, kept while the progress lives (null until its first record). */
    private Lane<R> partitionLane;
    /**
     * The idle lanes with records, by the offset of their next record (a lane's next record does not change while it
     * waits here: records join a lane at its end).
     */
    private final PriorityQueue<Lane<R>> ready =
            new PriorityQueue<>(Comparator.comparingLong((Lane<R> l) -> l.queue.peek()));
    /** Tickets in flight (each in its record's slot of {@link #held}). */
    private int inFlight;
    /** Failed records by offset, and when they may run again. */
    private final TreeMap<Long, Long> waiting = new TreeMap<>();

    private boolean paused;
    private boolean stopped;
    private boolean lost;
    private boolean owed;
    private long droppedTickets;
    private final int droppedOnResume;

    /**
     * The progress of a partition just claimed under {@code epoch}, resuming from what the offset node holds
     * ({@link ProgressCodec#resume}). Fetching starts at {@link #resumeAt()}.
     */
    public PartitionProgress(Ordering ordering, ProgressLimits limits, long epoch, OffsetProgress resumeFrom) {
        this.ordering = Objects.requireNonNull(ordering, "ordering");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.epoch = epoch;
        this.resumeAt = resumeFrom.lowWater();
        this.lowWater = resumeAt;
        this.fetchedUntil = resumeAt;
        long limit = resumeAt + limits.maxSpan();
        done.addAll(resumeFrom.done().headSet(limit, false));
        attempts.putAll(resumeFrom.attempts().headMap(limit));
        this.droppedOnResume = resumeFrom.done().size() - done.size();
        this.owed = !snapshot().equals(resumeFrom);
    }

    // ------------------------------------------------------------------ fetching

    /**
     * Takes fetched records, in offset order, each once. Records done already (below the low-water mark, or recorded
     * as done by a previous owner) are skipped. Returns how many were skipped.
     *
     * @throws IllegalArgumentException when a record's offset is below the fetch position (fetched again, or out of
     *                                  order)
     */
    public int append(List<Fetched<R>> records) {
        int skipped = 0;
        if (lost) {
            return 0;
        }
        for (Fetched<R> f : records) {
            skipped += hold(f.offset(), f.key(), f.bytes(), f.record());
        }
        advance();
        return skipped;
    }

    /**
     * As {@link #append(List)}, reading each record (not null) in place through {@code view}: the container's path,
     * nothing made per record.
     *
     * @throws IllegalArgumentException as {@link #append(List)}, and for a size below 0
     */
    public int append(List<? extends R> records, FetchedView<R> view) {
        int skipped = 0;
        if (lost) {
            return 0;
        }
        for (R r : records) {
            long offset = view.offset(r);
            int bytes = view.bytes(r);
            if (bytes < 0) {
                throw new IllegalArgumentException(
                        "bytes of the record at offset " + offset + " must be >= 0, was " + bytes);
            }
            skipped += hold(offset, view.key(r), bytes, r);
        }
        advance();
        return skipped;
    }

    /** One fetched record: held in its lane, or skipped (returns 1) when done already. */
    private int hold(long offset, Object key, int bytes, R record) {
        if (offset < fetchedUntil) {
            throw new IllegalArgumentException("record at offset " + offset + " fetched again or out of order:"
                    + " the fetch position is " + fetchedUntil + " (records come in offset order, each once)");
        }
        fetchedUntil = offset + 1;
        if (offset < lowWater || (!done.isEmpty() && done.contains(offset))) {
            return 1;
        }
        Lane<R> lane = lane(offset, key);
        held.add(offset, Objects.requireNonNull(record, "record"), bytes, lane);
        heldBytes += bytes;
        lane.queue.add(offset);
        if (!lane.busy && lane.queue.size() == 1) {
            ready.add(lane);
        }
        return 0;
    }

    /** The consumer's position moved past offsets that hold no record (transaction markers, compacted records). */
    public void advanceFetchPosition(long position) {
        if (position < fetchedUntil) {
            throw new IllegalArgumentException(
                    "fetch position " + position + " is below " + fetchedUntil + ", where fetching already is");
        }
        if (!lost) {
            fetchedUntil = position;
            advance();
        }
    }

    /**
     * Whether to pause fetching this partition: when the held records or bytes reach their cap (resumed when both are
     * at half), or when the fetch position is at the span's end (nothing fetched now could be dispatched). A single
     * fetch may overshoot the cap by its own size; the cap stops the next.
     */
    public boolean shouldPauseFetching() {
        if (lost || stopped) {
            return true;
        }
        boolean full = held.size() >= limits.maxRecords() || heldBytes >= limits.maxBytes();
        boolean spanEnd = fetchedUntil >= lowWater + limits.maxSpan();
        if (full || spanEnd) {
            paused = true;
        } else if (paused && held.size() <= limits.maxRecords() / 2 && heldBytes <= limits.maxBytes() / 2) {
            paused = false;
        }
        return paused;
    }

    // ------------------------------------------------------------------ dispatching

    /**
     * The records to start now, at most {@code capacity}: first failed records whose wait is over ({@code now} on the
     * caller's clock, as {@link System#nanoTime()}), then the next record of each idle lane, lowest offset first, below
     * {@code lowWater + maxSpan}. Nothing once {@link #stopDispatching()} or {@link #lost()} was called.
     */
    public List<Ticket<R>> dispatch(int capacity, long now) {
        List<Ticket<R>> out = new ArrayList<>(Math.max(0, Math.min(capacity, 16)));
        dispatch(capacity, now, out);
        return out;
    }

    /** As {@link #dispatch(int, long)}, adding the tickets to {@code out}; returns how many it added. */
    public int dispatch(int capacity, long now, List<Ticket<R>> out) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        int n = 0;
        for (Ticket<R> t; n < capacity && (t = next(now)) != null; n++) {
            out.add(t);
        }
        return n;
    }

    /**
     * The next record to start, as {@link #dispatch(int, long)} orders them (a failed record whose wait is over, then
     * the next record of the idle lane lowest in offset, below the span's end); null when none may start now.
     */
    Ticket<R> next(long now) {
        if (lost || stopped) {
            return null;
        }
        if (!waiting.isEmpty()) {
            for (Iterator<Map.Entry<Long, Long>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Long> w = it.next();
                if (now - w.getValue() >= 0) {
                    long offset =
                            w.getKey(); // read before remove(): TreeMap reuses the removed entry for its successor
                    it.remove();
                    return start(held.slot(offset));
                }
            }
        }
        if (!ready.isEmpty() && ready.peek().queue.peek() < lowWater + limits.maxSpan()) {
            Lane<R> lane = ready.poll();
            lane.busy = true;
            return start(held.slot(lane.queue.poll()));
        }
        return null;
    }

    /**
     * The record to run now by a caller that makes one handler call at a time on its own thread and completes it
     * before the next (the container's inline calls, parallelism 1): under {@code PARTITION}, the lowest record held,
     * when nothing is in flight, waiting or recorded as attempted, below the span's end; null otherwise (then
     * {@link #next} and its ticket). It is the record {@link #next} would hand out, without a ticket: no other thread
     * can hand it back, so there is no stale ticket to tell apart. The caller runs it and then calls
     * {@link #completeRunnable} (handled) or {@link #next} (failed: its ticket goes the error policy's way).
     */
    public R runnable() {
        if (partitionLane == null || inFlight != 0 || lost || stopped || !waiting.isEmpty() || !attempts.isEmpty()) {
            return null;
        }
        OffsetQueue queue = partitionLane.queue;
        // Nothing in flight or waiting: the lane's records are every record held, its first the lowest (the head).
        return !queue.isEmpty() && queue.peek() < lowWater + limits.maxSpan()
                ? held.record(held.slot(queue.peek()))
                : null;
    }

    /**
     * As {@link #runnable()}, the run of up to {@code max} records from it on, in offset order, below the span's end,
     * added to {@code out} (the batch handler's call, the transactional mode's calls): the caller completes them one by
     * one from the first ({@link #completeRunnable}) as they are done. Returns how many it added (0: nothing runnable).
     */
    public int runnable(int max, List<? super R> out) {
        if (max <= 0 || runnable() == null) {
            return 0;
        }
        return held.firstRecords(max, lowWater + limits.maxSpan(), out);
    }

    /**
     * The record {@link #runnable()} returned is done (as {@link #complete} of its ticket): it leaves the lane, the
     * low-water mark moves past it.
     */
    public void completeRunnable() {
        Lane<R> lane = partitionLane;
        long offset = lane.queue.poll();
        long slot = held.slot(offset);
        heldBytes -= held.bytes(slot);
        held.remove(slot);
        if (offset != lowWater) {
            done.add(offset);
        }
        if (lane.queue.isEmpty()) {
            ready.remove(lane);
        }
        owed = true;
        advance();
    }

    private Ticket<R> start(long slot) {
        long offset = held.offset(slot);
        int attempt = attempts.isEmpty() ? 1 : attempts.getOrDefault(offset, 0) + 1;
        Ticket<R> t = new Ticket<>(epoch, offset, attempt, held.record(slot));
        held.ticket(slot, t);
        inFlight++;
        return t;
    }

    /** The lane of a fetched record ({@code PARTITION}'s one lane without a look-up). */
    private Lane<R> lane(long offset, Object key) {
        if (ordering == Ordering.PARTITION) {
            if (partitionLane == null) {
                partitionLane = new Lane<>(ordering.lane(offset, key));
            }
            return partitionLane;
        }
        return lanes.computeIfAbsent(ordering.lane(offset, key), Lane::new);
    }

    /**
     * The record of {@code ticket} is done (handled, or recovered after its last attempt): its lane moves on and the
     * low-water mark with it. Returns false, and changes nothing, for a ticket of another ownership, one handed back
     * already, or after {@link #lost()}.
     */
    public boolean complete(Ticket<R> ticket) {
        long slot = current(ticket);
        if (slot < 0) {
            return false;
        }
        long offset = ticket.offset();
        inFlight--;
        heldBytes -= held.bytes(slot);
        @SuppressWarnings("unchecked")
        Lane<R> lane = (Lane<R>) held.lane(slot); // (held while its record is: a lane with a record held stays)
        held.remove(slot);
        if (!attempts.isEmpty()) {
            attempts.remove(offset);
        }
        if (offset != lowWater) { // (the mark moves past it below: in-order completions keep the done set empty)
            done.add(offset);
        }
        lane.busy = false;
        if (lane.queue.isEmpty()) {
            if (lane != partitionLane) {
                lanes.remove(lane.id);
            }
        } else {
            ready.add(lane);
        }
        owed = true;
        advance();
        return true;
    }

    /**
     * The attempt of {@code ticket} failed and the record is to run again, not before {@code notBefore}; its lane stays
     * blocked until then, and its attempts are recorded (in the next commit too). Whether to retry at all is the error
     * policy's decision ({@link Ticket#attempt()} says how many were made). Returns false, and changes nothing, for a
     * stale ticket, as {@link #complete}.
     */
    public boolean retryLater(Ticket<R> ticket, long notBefore) {
        long slot = current(ticket);
        if (slot < 0) {
            return false;
        }
        held.ticket(slot, null);
        inFlight--;
        attempts.put(ticket.offset(), ticket.attempt());
        waiting.put(ticket.offset(), notBefore);
        owed = true;
        return true;
    }

    /** Whether {@code ticket} is in flight here: handing it back would count (nothing is changed or counted). */
    public boolean isCurrent(Ticket<R> ticket) {
        return slotOf(ticket) >= 0;
    }

    /** The slot of {@code ticket}'s record when the ticket is in flight here; else -1, counted as dropped. */
    private long current(Ticket<R> ticket) {
        long slot = slotOf(ticket);
        if (slot < 0) {
            droppedTickets++;
        }
        return slot;
    }

    private long slotOf(Ticket<R> ticket) {
        if (lost || ticket.epoch() != epoch) {
            return -1;
        }
        long slot = held.slot(ticket.offset());
        return slot >= 0 && held.ticket(slot) == ticket ? slot : -1;
    }

    private void advance() {
        long lw = held.isEmpty() ? fetchedUntil : held.firstOffset();
        lw = Math.max(lw, lowWater);
        while (!done.isEmpty() && done.contains(lw)) {
            lw++;
        }
        if (lw != lowWater) {
            lowWater = lw;
            if (!done.isEmpty() && done.first() <= lowWater) {
                done.headSet(lowWater, true).clear();
            }
            if (!attempts.isEmpty() && attempts.firstKey() < lowWater) {
                attempts.headMap(lowWater, false).clear();
            }
            owed = true;
        }
    }

    /** When the earliest failed record may run again (the caller's clock); empty when none waits. */
    public OptionalLong nextRetryAt() {
        if (waiting.isEmpty()) {
            return OptionalLong.empty();
        }
        return waiting.values().stream().mapToLong(Long::longValue).reduce((a, b) -> a - b <= 0 ? a : b);
    }

    // ------------------------------------------------------------------ committing, handover

    /** What to commit now: the low-water mark, the done offsets above it, the attempts of records not done. */
    public OffsetProgress snapshot() {
        return new OffsetProgress(lowWater, done, attempts);
    }

    /** Whether the progress changed since it was last committed (or since resume). */
    public boolean commitOwed() {
        return owed;
    }

    /** {@code written} (a {@link #snapshot()}) is in the offset node now. */
    public void committed(OffsetProgress written) {
        owed = written.lowWater() != lowWater
                || !written.done().equals(done)
                || !written.attempts().equals(attempts);
    }

    /** A graceful handover begins: nothing more starts; what is in flight may still complete. */
    public void stopDispatching() {
        stopped = true;
    }

    /** Whether nothing is in flight (after {@link #stopDispatching()}: the final commit may be written). */
    public boolean drained() {
        return inFlight == 0;
    }

    /** The partition is no longer owned: everything is let go, and tickets handed back later are dropped. */
    public void lost() {
        lost = true;
        held.clear();
        heldBytes = 0;
        lanes.clear();
        partitionLane = null;
        ready.clear();
        inFlight = 0;
        waiting.clear();
    }

    // ------------------------------------------------------------------ observing

    public Ordering ordering() {
        return ordering;
    }

    public long epoch() {
        return epoch;
    }

    /** Where fetching starts after the claim: the committed low-water mark. */
    public long resumeAt() {
        return resumeAt;
    }

    public long lowWater() {
        return lowWater;
    }

    /** Records fetched and not done (buffered, in flight, waiting to be retried). */
    public int heldRecords() {
        return held.size();
    }

    public long heldBytes() {
        return heldBytes;
    }

    public int inFlight() {
        return inFlight;
    }

    /** Failed records waiting to be retried. */
    public int waitingRetries() {
        return waiting.size();
    }

    /** Fetched records neither in flight nor waiting: buffered. */
    public int buffered() {
        return held.size() - inFlight - waiting.size();
    }

    public int doneAboveLowWater() {
        return done.size();
    }

    /** Tickets refused as stale (another ownership, handed back twice, after {@link #lost()}). */
    public long droppedTickets() {
        return droppedTickets;
    }

    /** Done offsets of the resumed progress beyond this span (their records run again). */
    public int droppedOnResume() {
        return droppedOnResume;
    }

    public boolean isLost() {
        return lost;
    }

    @Override
    public String toString() {
        return "partition progress[" + ordering + ", epoch " + epoch + ", low-water " + lowWater + ", done above "
                + done.size() + ", held " + held.size() + ", in flight " + inFlight + ", waiting "
                + waiting.size() + (lost ? ", lost" : stopped ? ", stopped" : "") + "]";
    }
}

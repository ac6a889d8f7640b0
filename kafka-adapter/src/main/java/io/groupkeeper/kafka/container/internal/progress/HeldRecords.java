package io.groupkeeper.kafka.container.internal.progress;

import java.util.Arrays;

/**
 * The records a {@link PartitionProgress} holds (fetched and not done), in offset order, each with its size, its lane
 * and its ticket while in flight: a ring of slots (parallel arrays), appended at the tail in offset order and removed
 * anywhere. A removed slot is a hole until the head passes it, so the head is always the lowest record held. Finding a
 * record is a binary search over the slots, and one comparison for the lowest one (the only one under
 * {@code PARTITION}): no boxing, no entry objects, no wrapper per record, no allocation but the ring's growth.
 *
 * <p>Not thread-safe (its progress's thread).
 */
final class HeldRecords<R> {

    private long[] offsets = new long[64];
    /** {@code R}, {@code Ticket<R>} and the progress's lanes (erased: arrays of a generic type cannot be made). */
    private Object[] records = new Object[64];

    private Object[] tickets = new Object[64];
    private Object[] lanes = new Object[64];
    private int[] bytes = new int[64];
    /** The ring's slots in use are {@code head .. tail - 1} (indexes modulo the capacity, a power of two). */
    private long head;

    private long tail;
    /** Slots holding a record (the rest are holes). */
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The lowest offset held (only when not empty). */
    long firstOffset() {
        return offsets[(int) head & (offsets.length - 1)];
    }

    /** Adds a record (not null) above every one held, with its size in bytes and its lane. */
    void add(long offset, R record, int recordBytes, Object lane) {
        if (tail - head == offsets.length) {
            grow();
        }
        int i = (int) tail & (offsets.length - 1);
        offsets[i] = offset;
        records[i] = record;
        bytes[i] = recordBytes;
        lanes[i] = lane;
        tail++;
        size++;
    }

    /** The slot of the record at {@code offset}, or -1 when it is not held. */
    long slot(long offset) {
        if (size == 0) {
            return -1;
        }
        int mask = offsets.length - 1;
        if (offsets[(int) head & mask] == offset) {
            return head; // the lowest: every completion under PARTITION
        }
        long lo = head + 1;
        long hi = tail - 1;
        while (lo <= hi) {
            long mid = (lo + hi) >>> 1;
            long o = offsets[(int) mid & mask];
            if (o < offset) {
                lo = mid + 1;
            } else if (o > offset) {
                hi = mid - 1;
            } else {
                return records[(int) mid & mask] == null ? -1 : mid;
            }
        }
        return -1;
    }

    @SuppressWarnings("unchecked")
    R record(long slot) {
        return (R) records[(int) slot & (records.length - 1)];
    }

    long offset(long slot) {
        return offsets[(int) slot & (offsets.length - 1)];
    }

    int bytes(long slot) {
        return bytes[(int) slot & (bytes.length - 1)];
    }

    Object lane(long slot) {
        return lanes[(int) slot & (lanes.length - 1)];
    }

    @SuppressWarnings("unchecked")
    Ticket<R> ticket(long slot) {
        return (Ticket<R>) tickets[(int) slot & (tickets.length - 1)];
    }

    void ticket(long slot, Ticket<R> t) {
        tickets[(int) slot & (tickets.length - 1)] = t;
    }

    /**
     * Adds to {@code out} the records held from the lowest on, in offset order, below offset {@code below}, at most
     * {@code max}; returns how many it added.
     */
    int firstRecords(int max, long below, java.util.List<? super R> out) {
        int n = 0;
        int mask = offsets.length - 1;
        for (long s = head; s < tail && n < max; s++) {
            int i = (int) s & mask;
            if (records[i] == null) {
                continue;
            }
            if (offsets[i] >= below) {
                break;
            }
            @SuppressWarnings("unchecked")
            R r = (R) records[i];
            out.add(r);
            n++;
        }
        return n;
    }

    /** Removes the record of {@code slot} (from {@link #slot}). */
    void remove(long slot) {
        int mask = records.length - 1;
        int i = (int) slot & mask;
        records[i] = null;
        tickets[i] = null;
        lanes[i] = null;
        size--;
        while (head < tail && records[(int) head & mask] == null) {
            head++;
        }
    }

    void clear() {
        Arrays.fill(records, null);
        Arrays.fill(tickets, null);
        Arrays.fill(lanes, null);
        head = tail = 0;
        size = 0;
    }

    private void grow() {
        int n = offsets.length;
        long[] o = new long[n * 2];
        Object[] r = new Object[n * 2];
        Object[] t = new Object[n * 2];
        Object[] l = new Object[n * 2];
        int[] b = new int[n * 2];
        for (long s = head; s < tail; s++) {
            int from = (int) s & (n - 1);
            int to = (int) s & (2 * n - 1);
            o[to] = offsets[from];
            r[to] = records[from];
            t[to] = tickets[from];
            l[to] = lanes[from];
            b[to] = bytes[from];
        }
        offsets = o;
        records = r;
        tickets = t;
        lanes = l;
        bytes = b;
    }
}

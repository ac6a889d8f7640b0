package io.groupkeeper.kafka.container.internal.progress;

/**
 * A first-in first-out queue of offsets: a lane's records waiting to start, as a ring of {@code long}s (no box, node
 * or wrapper per record). Not thread-safe (its progress's thread).
 */
final class OffsetQueue {

    private long[] ring = new long[16];
    /** The queue is {@code ring[head .. tail - 1]}, indexes modulo the capacity (a power of two). */
    private long head;

    private long tail;

    boolean isEmpty() {
        return head == tail;
    }

    int size() {
        return (int) (tail - head);
    }

    void add(long offset) {
        if (tail - head == ring.length) {
            grow();
        }
        ring[(int) tail++ & (ring.length - 1)] = offset;
    }

    /** The first offset (only when not empty). */
    long peek() {
        return ring[(int) head & (ring.length - 1)];
    }

    /** Removes and returns the first offset (only when not empty). */
    long poll() {
        return ring[(int) head++ & (ring.length - 1)];
    }

    void clear() {
        head = tail = 0;
    }

    private void grow() {
        int n = ring.length;
        long[] r = new long[n * 2];
        for (long s = head; s < tail; s++) {
            r[(int) s & (2 * n - 1)] = ring[(int) s & (n - 1)];
        }
        ring = r;
    }
}

package io.groupkeeper.benchmarks.throughput;

import java.util.concurrent.CountDownLatch;

/**
 * What every subject's handler does with a record: adds its value's length (so nothing is optimised away) and counts.
 * One consumer thread writes it; the first and the last record's times bound the measured window.
 */
final class Sink {
    private final long expected;
    private long count;
    long bytes;
    volatile long firstNanos;
    volatile long lastNanos;
    final CountDownLatch done = new CountDownLatch(1);

    Sink(long expected) {
        this.expected = expected;
    }

    void accept(String value) {
        bytes += value.length();
        long n = ++count;
        if (n == 1) {
            firstNanos = System.nanoTime();
        }
        if (n == expected) {
            lastNanos = System.nanoTime();
            done.countDown();
        }
    }

    /** Records per second between the first and the last record. */
    double rate() {
        return (expected - 1) / ((lastNanos - firstNanos) / 1e9);
    }
}

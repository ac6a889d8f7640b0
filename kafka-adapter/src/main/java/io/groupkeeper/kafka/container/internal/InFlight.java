package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.container.Ticker;
import org.apache.kafka.common.TopicPartition;

/**
 * The handler call a worker is in right now, for the watchdog: written by the worker at every call (cheap: a few
 * volatile writes), read by the watchdog's thread. {@code since == 0} means idle.
 */
final class InFlight {
    final Thread thread;
    private final Ticker ticker;
    volatile long since;
    volatile long call;
    volatile TopicPartition partition;
    volatile long offset;
    /** The call the watchdog reported last (so each call is reported once). */
    volatile long reportedCall = -1;

    InFlight(Thread thread, Ticker ticker) {
        this.thread = thread;
        this.ticker = ticker;
    }

    void begin(TopicPartition partition, long offset) {
        this.partition = partition;
        this.offset = offset;
        this.call++;
        long now = ticker.nanoTime();
        this.since = now == 0 ? 1 : now;
    }

    /** Returns the call's duration in nanos if the watchdog reported it (so the worker can log its end), else -1. */
    long end() {
        long started = since;
        since = 0;
        return reportedCall == call ? ticker.nanoTime() - started : -1;
    }
}

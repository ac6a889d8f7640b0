package io.groupkeeper.internal;

/**
 * Exponential retry delay for one loop (a member's rebalance step, a leader's run): starts at {@link #MIN_MS},
 * doubles on each failure up to {@link #MAX_MS}, and starts again after a success. Confined to the loop's lane.
 */
final class Backoff {

    static final long MIN_MS = 50;
    static final long MAX_MS = 2_000;

    private long next = MIN_MS;

    /** The delay before the next retry; the one after it doubles. */
    long failed() {
        long delay = next;
        next = Math.min(MAX_MS, next * 2);
        return delay;
    }

    /** The delay the next failure would get, without counting a failure. */
    long current() {
        return next;
    }

    void succeeded() {
        next = MIN_MS;
    }
}

package io.groupkeeper.internal;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The protocol's retry delays for one loop (a member's rebalance step, its leave, a leader's run): exponential with
 * decorrelated jitter, so that the members of a group that all met one ZooKeeper blip do not retry in step. After a
 * success the next delay is {@link #MIN_MS}; after each failure the next is drawn uniformly between {@link #MIN_MS} and
 * three times the last one, never above {@link #MAX_MS}. {@link #around} spreads a fixed delay the same way.
 *
 * <p>The random source is injected: a member seeds it from its group and member id, which spreads the members of a
 * group and keeps a simulated schedule reproducible. Thread-safe (a loop's retries may be scheduled from a timer).
 */
final class RetryDelays {

    static final long MIN_MS = 50;
    static final long MAX_MS = 2_000;

    private final RandomGenerator random;
    /** The delay the last failure got; 0 after a success. */
    private long last;

    RetryDelays(RandomGenerator random) {
        this.random = random;
    }

    /** Seeded from what names the loop (e.g. group and member id): different loops, different delays. */
    static RetryDelays seededBy(String... names) {
        return new RetryDelays(new SplittableRandom(String.join("/", names).hashCode()));
    }

    /** The delay before the next retry: in [{@link #MIN_MS}, min({@link #MAX_MS}, 3 × the last one)]. */
    synchronized long failed() {
        long upper = Math.min(MAX_MS, Math.max(MIN_MS, last * 3));
        last = upper > MIN_MS ? random.nextLong(MIN_MS, upper + 1) : MIN_MS;
        return last;
    }

    /** The delay the last failure got ({@link #MIN_MS} after a success), without counting a failure. */
    synchronized long current() {
        return Math.max(MIN_MS, last);
    }

    synchronized void succeeded() {
        last = 0;
    }

    /** {@code ms} spread: uniform in [ms / 2, ms]. */
    synchronized long around(long ms) {
        return ms <= 1 ? ms : random.nextLong(ms / 2, ms + 1);
    }
}

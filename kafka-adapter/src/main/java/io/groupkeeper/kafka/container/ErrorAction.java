package io.groupkeeper.kafka.container;

import java.util.Objects;

/**
 * How a failed record is treated: up to {@link #maxAttempts()} attempts in all, the backoff between them, then a
 * {@link Recovery}. Immutable.
 *
 * <pre>{@code
 * ErrorAction.retry(3, Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(2))).then(Recovery.DEAD_LETTER)
 * ErrorAction.deadLetter()        // at once, no retry
 * }</pre>
 *
 * <p><b>Attempts, not retries.</b> {@code retry(3, ...)} calls the handler at most 3 times: the first call and 2
 * retries ({@code retry(1, ...)}: no retry). Spring Kafka counts retries: its {@code FixedBackOff(interval, 3)} means
 * 3 retries, 4 calls — the same as {@code retry(4, ...)} here. The Spring starter's
 * {@code groupkeeper.listener.error.attempts} counts attempts too.
 *
 * <p><b>The worker polls between attempts.</b> A failed record that has attempts left is handed back (its partition is
 * sought back to it) and its partition paused until the backoff is over; the worker goes on polling meanwhile, so its
 * other partitions flow and a revocation is served at the next poll (the next owner starts its attempts afresh). Only
 * a zero backoff retries in place, on the worker thread; so does a test's {@code sleeper(...)} (then a rebalance waits
 * for the retries, up to the consumer's revocation timeout). docs/service.md, "Error policy".
 */
public final class ErrorAction {
    private final int maxAttempts;
    private final Backoff backoff;
    private final Recovery recovery;

    private ErrorAction(int maxAttempts, Backoff backoff, Recovery recovery) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1, was " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.recovery = Objects.requireNonNull(recovery, "recovery");
    }

    public static ErrorAction deadLetter() {
        return new ErrorAction(1, Backoff.none(), Recovery.DEAD_LETTER);
    }

    public static ErrorAction skip() {
        return new ErrorAction(1, Backoff.none(), Recovery.SKIP);
    }

    public static ErrorAction stopPartition() {
        return new ErrorAction(1, Backoff.none(), Recovery.STOP_PARTITION);
    }

    /**
     * {@code attempts} attempts in all — the first call included, so {@code attempts - 1} retries (1 = no retry) —
     * {@code backoff} between them; finish with {@link Retry#then}.
     */
    public static Retry retry(int attempts, Backoff backoff) {
        return new Retry(attempts, backoff);
    }

    /** Handler calls at most, the first one included (retries = this - 1). */
    public int maxAttempts() {
        return maxAttempts;
    }

    public Backoff backoff() {
        return backoff;
    }

    public Recovery recovery() {
        return recovery;
    }

    @Override
    public String toString() {
        return maxAttempts == 1 ? recovery.toString() : maxAttempts + " attempts (" + backoff + "), then " + recovery;
    }

    /** The first half of {@link ErrorAction#retry}. */
    public static final class Retry {
        private final int attempts;
        private final Backoff backoff;

        private Retry(int attempts, Backoff backoff) {
            if (attempts < 1) {
                throw new IllegalArgumentException("attempts must be >= 1, was " + attempts);
            }
            this.attempts = attempts;
            this.backoff = Objects.requireNonNull(backoff, "backoff");
        }

        public ErrorAction then(Recovery recovery) {
            return new ErrorAction(attempts, backoff, recovery);
        }

        public ErrorAction thenDeadLetter() {
            return then(Recovery.DEAD_LETTER);
        }

        public ErrorAction thenSkip() {
            return then(Recovery.SKIP);
        }

        public ErrorAction thenStopPartition() {
            return then(Recovery.STOP_PARTITION);
        }
    }
}

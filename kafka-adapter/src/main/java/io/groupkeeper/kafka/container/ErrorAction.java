package io.groupkeeper.kafka.container;

import java.util.Objects;

/**
 * How a failed record is treated: up to {@link #maxAttempts()} attempts in place (the worker waits the backoff between
 * them), then a {@link Recovery}. Immutable.
 *
 * <pre>{@code
 * ErrorAction.retry(3, Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(2))).then(Recovery.DEAD_LETTER)
 * ErrorAction.deadLetter()        // at once, no retry
 * }</pre>
 *
 * <p>Retries block the worker thread and with it the partitions it owns: keep {@code attempts x backoff} well below
 * the consumer's revocation timeout (default 30 s), or a rebalance waits that long for the partition.
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

    /** {@code attempts} attempts in all (1 = no retry), {@code backoff} between them; finish with {@link Retry#then}. */
    public static Retry retry(int attempts, Backoff backoff) {
        return new Retry(attempts, backoff);
    }

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
        return maxAttempts == 1 ? recovery.toString()
                : maxAttempts + " attempts (" + backoff + "), then " + recovery;
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

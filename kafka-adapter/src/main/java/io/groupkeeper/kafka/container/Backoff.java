package io.groupkeeper.kafka.container;

import java.time.Duration;
import java.util.Objects;

/** The wait between two attempts of a failed record: fixed, or exponential up to a maximum. Immutable. */
public final class Backoff {
    private final Duration initial;
    private final double multiplier;
    private final Duration max;

    private Backoff(Duration initial, double multiplier, Duration max) {
        this.initial = nonNegative("backoff", initial);
        this.max = nonNegative("maximum backoff", max);
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be >= 1, was " + multiplier);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("maximum backoff " + max + " is below the initial backoff " + initial);
        }
        this.multiplier = multiplier;
    }

    /** No wait. */
    public static Backoff none() {
        return new Backoff(Duration.ZERO, 1.0, Duration.ZERO);
    }

    public static Backoff fixed(Duration delay) {
        return new Backoff(delay, 1.0, delay);
    }

    /** {@code initial}, then times {@code multiplier} after every further failure, at most {@code max}. */
    public static Backoff exponential(Duration initial, double multiplier, Duration max) {
        return new Backoff(initial, multiplier, max);
    }

    /** The wait after the {@code failedAttempts}-th failed attempt (1 = after the first). */
    public Duration delayAfter(int failedAttempts) {
        if (failedAttempts < 1) {
            throw new IllegalArgumentException("failedAttempts must be >= 1, was " + failedAttempts);
        }
        double nanos = initial.toNanos() * Math.pow(multiplier, failedAttempts - 1);
        return nanos >= max.toNanos() ? max : Duration.ofNanos((long) nanos);
    }

    private static Duration nonNegative(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + d);
        }
        return d;
    }

    @Override
    public String toString() {
        return multiplier == 1.0
                ? "fixed " + initial.toMillis() + " ms"
                : "exponential " + initial.toMillis() + " ms x" + multiplier + " up to " + max.toMillis() + " ms";
    }
}

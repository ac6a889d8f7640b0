package io.groupkeeper.status;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A time threshold beside Burrow's rules ({@link LagEvaluator}): a partition whose lag in time (now minus the
 * timestamp of the next record to process) exceeds {@code max} is at least {@link LagStatus#WARN}. A worse status
 * judged from the commits stays, with the threshold added to its reason. Lag in time is zero for a caught-up
 * partition, however old its last record, so an idle partition never trips it. A pure function, like the evaluator.
 */
public final class LagTimeRule {

    private final Duration max;

    public LagTimeRule(Duration max) {
        Objects.requireNonNull(max, "max");
        if (max.isNegative() || max.isZero()) {
            throw new IllegalArgumentException("maximum lag time must be positive, was " + max);
        }
        this.max = max;
    }

    public Duration max() {
        return max;
    }

    /** {@code judged}, raised to WARN (or with a longer reason) when {@code lagTime} is known and above the maximum. */
    public PartitionStatus apply(PartitionStatus judged, Optional<Duration> lagTime) {
        Objects.requireNonNull(judged, "judged");
        if (lagTime.isEmpty() || lagTime.get().compareTo(max) <= 0) {
            return judged;
        }
        String why = "lag time " + format(lagTime.get()) + " exceeds the maximum " + format(max);
        if (judged.status() == LagStatus.OK) {
            return new PartitionStatus(LagStatus.WARN, judged.lag(), why);
        }
        return new PartitionStatus(judged.status(), judged.lag(), judged.reason() + "; " + why);
    }

    /** "3h2m5s", "42s", "0s": whole seconds, for operators. */
    public static String format(Duration d) {
        long s = Math.max(0, d.getSeconds());
        StringBuilder sb = new StringBuilder();
        if (s >= 86_400) {
            sb.append(s / 86_400).append('d');
        }
        if (s >= 3_600) {
            sb.append(s % 86_400 / 3_600).append('h');
        }
        if (s >= 60) {
            sb.append(s % 3_600 / 60).append('m');
        }
        sb.append(s % 60).append('s');
        return sb.toString();
    }
}

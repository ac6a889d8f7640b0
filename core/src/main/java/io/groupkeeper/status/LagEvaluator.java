package io.groupkeeper.status;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Judges a partition from a window of recent commits, as Burrow does, in this order:
 * <ol>
 *   <li>{@link LagStatus#REWIND}: an offset in the window is lower than the one before it;</li>
 *   <li>{@link LagStatus#STOP}: lag &gt; 0 and the last commit is older than the window (or there is none);</li>
 *   <li>{@link LagStatus#STALL}: lag &gt; 0 and at least two commits in the window all hold the same offset;</li>
 *   <li>{@link LagStatus#WARN}: lag &gt; 0 and the lag grew across the window (at least three commits with a known
 *   log end, never shrinking, last greater than first);</li>
 *   <li>{@link LagStatus#OK} otherwise.</li>
 * </ol>
 * Lag is the current log end minus the committed offset (given, or else the last in the history) when the current log
 * end is known, else the lag the last commit recorded. A pure function of its input: no clock, no I/O.
 */
public final class LagEvaluator {

    private final Duration window;

    public LagEvaluator(Duration window) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("status window must be positive, was " + window);
        }
        this.window = window;
    }

    public Duration window() {
        return window;
    }

    /**
     * @param history        commits, oldest first (any length; only those within the window count, except for STOP)
     * @param currentLogEnd  the log end offset now, if known
     * @param now            the time of evaluation
     */
    public PartitionStatus evaluate(List<CommitSample> history, OptionalLong currentLogEnd, Instant now) {
        return evaluate(history, OptionalLong.empty(), currentLogEnd, now);
    }

    /**
     * As {@link #evaluate(List, OptionalLong, Instant)}, with the offset committed now where it is known apart from
     * the history (an offset node's body): lag is counted from it, and a committed offset below the last one the
     * history recorded is a {@link LagStatus#REWIND} (an edit that left the history as it was, e.g. by hand).
     */
    public PartitionStatus evaluate(
            List<CommitSample> history, OptionalLong committed, OptionalLong currentLogEnd, Instant now) {
        Instant since = now.minus(window);
        List<CommitSample> recent =
                history.stream().filter(s -> !s.at().isBefore(since)).toList();
        CommitSample last = history.isEmpty() ? null : history.get(history.size() - 1);
        OptionalLong lag = committed.isPresent() && currentLogEnd.isPresent()
                ? OptionalLong.of(Math.max(0, currentLogEnd.getAsLong() - committed.getAsLong()))
                : lag(last, currentLogEnd);
        boolean behind = lag.isPresent() && lag.getAsLong() > 0;
        if (last != null && committed.isPresent() && committed.getAsLong() < last.offset()) {
            return new PartitionStatus(
                    LagStatus.REWIND,
                    lag,
                    "offset moved back from " + last.offset() + " to " + committed.getAsLong()
                            + " (not in the commit history: an edit by hand?)");
        }
        if (last == null && committed.isPresent()) {
            return behind
                    ? new PartitionStatus(
                            LagStatus.STOP,
                            lag,
                            "offset " + committed.getAsLong() + " without a commit history (set by hand?), lag "
                                    + lag.getAsLong())
                    : new PartitionStatus(
                            LagStatus.OK,
                            lag,
                            lag.isPresent()
                                    ? "caught up"
                                    : "offset " + committed.getAsLong() + " (lag unknown: no log end)");
        }

        for (int i = 1; i < recent.size(); i++) {
            if (recent.get(i).offset() < recent.get(i - 1).offset()) {
                return new PartitionStatus(
                        LagStatus.REWIND,
                        lag,
                        "offset moved back from " + recent.get(i - 1).offset() + " to "
                                + recent.get(i).offset() + " at "
                                + recent.get(i).at());
            }
        }
        if (last == null) {
            return behind
                    ? new PartitionStatus(LagStatus.STOP, lag, "never committed, lag " + lag.getAsLong())
                    : new PartitionStatus(LagStatus.OK, lag, "never committed, nothing to consume");
        }
        if (behind && recent.isEmpty()) {
            return new PartitionStatus(
                    LagStatus.STOP,
                    lag,
                    "no commit since " + last.at() + " (window " + window + "), lag " + lag.getAsLong());
        }
        if (behind
                && recent.size() >= 2
                && recent.stream().allMatch(s -> s.offset() == recent.get(0).offset())) {
            return new PartitionStatus(
                    LagStatus.STALL,
                    lag,
                    recent.size() + " commits of offset " + recent.get(0).offset() + " in the window, lag "
                            + lag.getAsLong());
        }
        if (behind) {
            List<Long> lags = recent.stream()
                    .filter(s -> s.lag().isPresent())
                    .map(s -> s.lag().getAsLong())
                    .toList();
            boolean growing = lags.size() >= 3 && lags.get(lags.size() - 1) > lags.get(0);
            for (int i = 1; growing && i < lags.size(); i++) {
                growing = lags.get(i) >= lags.get(i - 1);
            }
            if (growing) {
                return new PartitionStatus(
                        LagStatus.WARN,
                        lag,
                        "lag grew from " + lags.get(0) + " to " + lags.get(lags.size() - 1) + " over " + lags.size()
                                + " commits");
            }
        }
        if (lag.isEmpty()) {
            // No log end (work that is not a Kafka topic, or Kafka not asked): nothing says whether work is left.
            return new PartitionStatus(
                    LagStatus.OK,
                    lag,
                    recent.isEmpty()
                            ? "last commit at " + last.at() + " (lag unknown: no log end)"
                            : recent.size() + " commit(s) in the window, up to offset " + last.offset()
                                    + " (lag unknown: no log end)");
        }
        return new PartitionStatus(LagStatus.OK, lag, behind ? "committing, lag " + lag.getAsLong() : "caught up");
    }

    private static OptionalLong lag(CommitSample last, OptionalLong currentLogEnd) {
        if (currentLogEnd.isPresent()) {
            long committed = last == null ? 0 : last.offset();
            return OptionalLong.of(Math.max(0, currentLogEnd.getAsLong() - committed));
        }
        return last == null ? OptionalLong.empty() : last.lag();
    }
}

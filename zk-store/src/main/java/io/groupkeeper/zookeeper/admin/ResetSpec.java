package io.groupkeeper.zookeeper.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Where to move a group's offsets: the vocabulary of {@code kafka-consumer-groups --reset-offsets}. Every target is
 * clamped into the partition's log when its bounds are known (see {@link LogBounds}); the plan shows each clamp.
 */
public sealed interface ResetSpec {

    /** A short description, e.g. {@code --to-offset 42}. */
    String describe();

    /** Whether this spec needs the log's bounds (earliest, latest or time index) to compute its targets. */
    default boolean needsLog() {
        return false;
    }

    /** The log start. */
    record ToEarliest() implements ResetSpec {
        @Override public String describe() { return "--to-earliest"; }
        @Override public boolean needsLog() { return true; }
    }

    /** The log end (the next offset to be written). */
    record ToLatest() implements ResetSpec {
        @Override public String describe() { return "--to-latest"; }
        @Override public boolean needsLog() { return true; }
    }

    /**
     * The committed offset itself (clamped into the log: repairs out-of-range offsets, and makes every owner continue
     * from its committed offset). Partitions without one go to the log end if known, else are skipped.
     */
    record ToCurrent() implements ResetSpec {
        @Override public String describe() { return "--to-current"; }
    }

    record ToOffset(long offset) implements ResetSpec {
        public ToOffset {
            if (offset < 0) {
                throw new IllegalArgumentException("--to-offset must be >= 0, was " + offset);
            }
        }

        @Override public String describe() { return "--to-offset " + offset; }
    }

    /** The committed offset plus {@code delta} (negative moves back). Partitions without a committed offset are skipped. */
    record ShiftBy(long delta) implements ResetSpec {
        @Override public String describe() { return "--shift-by " + (delta >= 0 ? "+" : "") + delta; }
    }

    /** The first record at or after {@code timestamp}; the log end where there is none. */
    record ToDatetime(Instant timestamp) implements ResetSpec {
        public ToDatetime {
            Objects.requireNonNull(timestamp, "timestamp");
        }

        @Override public String describe() { return "--to-datetime " + timestamp; }
        @Override public boolean needsLog() { return true; }
    }

    /** As {@link ToDatetime} for {@code now - duration} (resolved when planning; the plan names the instant). */
    record ByDuration(Duration duration) implements ResetSpec {
        public ByDuration {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative()) {
                throw new IllegalArgumentException("--by-duration must not be negative, was " + duration);
            }
        }

        @Override public String describe() { return "--by-duration " + duration; }
        @Override public boolean needsLog() { return true; }
    }

    /** The offsets of a file or another system, per partition; partitions not listed are not touched. */
    record FromOffsets(SourceOffsets offsets) implements ResetSpec {
        public FromOffsets {
            Objects.requireNonNull(offsets, "offsets");
        }

        @Override public String describe() { return "--from-file " + offsets.source(); }
    }
}

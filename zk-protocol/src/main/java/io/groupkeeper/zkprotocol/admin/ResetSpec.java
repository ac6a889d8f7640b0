package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where to move a group's offsets: the vocabulary of {@code kafka-consumer-groups --reset-offsets}. Every target is
 * clamped into the partition's log when its bounds are known (see {@link LogBounds}); the plan shows each clamp.
 * Each spec computes its own requested offset from what is known of a partition ({@link #request}).
 */
public sealed interface ResetSpec {

    /** A short description, e.g. {@code --to-offset 42}. */
    String describe();

    /** Whether this spec needs the log's bounds (earliest, latest or time index) to compute its targets. */
    default boolean needsLog() {
        return false;
    }

    /** The instant whose offsets this spec needs from the log's time index, if any. */
    default Optional<Instant> time(Clock clock) {
        return Optional.empty();
    }

    /** A note for the plan on the instant {@link #time} resolved to, if it is worth one. */
    default Optional<String> describeTime(Instant at) {
        return Optional.empty();
    }

    /** The offsets this spec writes as given, if it is a list of them (its partitions are then the plan's). */
    default Optional<SourceOffsets> source() {
        return Optional.empty();
    }

    /**
     * What is known of one partition when its target is computed: the committed offset, the log's bounds, the offset
     * at the spec's {@link #time} (from the log's time index), and whether the admin has log bounds at all.
     */
    record Position(
            OptionalLong committed,
            OptionalLong logStart,
            OptionalLong logEnd,
            OptionalLong atTime,
            boolean logKnown) {}

    /** A spec's requested offset for one partition, before clamping (empty: the partition is skipped), and why. */
    record Request(OptionalLong offset, Optional<String> note) {
        static Request of(OptionalLong offset) {
            return new Request(offset, Optional.empty());
        }

        static Request of(OptionalLong offset, String note) {
            return new Request(offset, Optional.of(note));
        }
    }

    /** The offset this spec requests for partition {@code tp}, known as {@code at}. */
    Request request(TopicPartition tp, Position at);

    /** The log start. */
    record ToEarliest() implements ResetSpec {
        @Override
        public String describe() {
            return "--to-earliest";
        }

        @Override
        public boolean needsLog() {
            return true;
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            return Request.of(at.logStart());
        }
    }

    /** The log end (the next offset to be written). */
    record ToLatest() implements ResetSpec {
        @Override
        public String describe() {
            return "--to-latest";
        }

        @Override
        public boolean needsLog() {
            return true;
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            return Request.of(at.logEnd());
        }
    }

    /**
     * The committed offset itself (clamped into the log: repairs out-of-range offsets, and makes every owner continue
     * from its committed offset). Partitions without one go to the log end if known, else are skipped.
     */
    record ToCurrent() implements ResetSpec {
        @Override
        public String describe() {
            return "--to-current";
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            if (at.committed().isPresent()) {
                return Request.of(at.committed());
            }
            if (at.logEnd().isPresent()) {
                return Request.of(at.logEnd(), "no committed offset: log end");
            }
            return Request.of(
                    OptionalLong.empty(),
                    "skipped: no committed offset" + (at.logKnown() ? "" : " (log end unknown: no --bootstrap)"));
        }
    }

    record ToOffset(long offset) implements ResetSpec {
        public ToOffset {
            if (offset < 0) {
                throw new IllegalArgumentException("the offset to reset to must be >= 0, was " + offset);
            }
        }

        @Override
        public String describe() {
            return "--to-offset " + offset;
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            return Request.of(OptionalLong.of(offset));
        }
    }

    /** The committed offset plus {@code delta} (negative moves back). Partitions without a committed offset are skipped. */
    record ShiftBy(long delta) implements ResetSpec {
        @Override
        public String describe() {
            return "--shift-by " + (delta >= 0 ? "+" : "") + delta;
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            if (at.committed().isEmpty()) {
                return Request.of(OptionalLong.empty(), "skipped: no committed offset to shift");
            }
            return Request.of(OptionalLong.of(saturatedAdd(at.committed().getAsLong(), delta)));
        }

        static long saturatedAdd(long a, long b) {
            long r = a + b;
            if (((a ^ r) & (b ^ r)) < 0) {
                return b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            return r;
        }
    }

    /** The first record at or after {@code timestamp}; the log end where there is none. */
    record ToDatetime(Instant timestamp) implements ResetSpec {
        public ToDatetime {
            Objects.requireNonNull(timestamp, "timestamp");
        }

        @Override
        public String describe() {
            return "--to-datetime " + timestamp;
        }

        @Override
        public boolean needsLog() {
            return true;
        }

        @Override
        public Optional<Instant> time(Clock clock) {
            return Optional.of(timestamp);
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            return atTime(at);
        }
    }

    /** As {@link ToDatetime} for {@code now - duration} (resolved when planning; the plan names the instant). */
    record ByDuration(Duration duration) implements ResetSpec {
        public ByDuration {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative()) {
                throw new IllegalArgumentException("the duration to reset by must not be negative, was " + duration);
            }
        }

        @Override
        public String describe() {
            return "--by-duration " + duration;
        }

        @Override
        public boolean needsLog() {
            return true;
        }

        @Override
        public Optional<Instant> time(Clock clock) {
            return Optional.of(clock.instant().minus(duration));
        }

        @Override
        public Optional<String> describeTime(Instant at) {
            return Optional.of(describe() + ": records from " + at + " on");
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            return atTime(at);
        }
    }

    /** The offsets of a file or another system, per partition; partitions not listed are not touched. */
    record FromOffsets(SourceOffsets offsets) implements ResetSpec {
        public FromOffsets {
            Objects.requireNonNull(offsets, "offsets");
        }

        @Override
        public String describe() {
            return "--from-file " + offsets.source();
        }

        @Override
        public Optional<SourceOffsets> source() {
            return Optional.of(offsets);
        }

        @Override
        public Request request(TopicPartition tp, Position at) {
            Long o = offsets.offsets().get(tp);
            return Request.of(o == null ? OptionalLong.empty() : OptionalLong.of(o));
        }
    }

    private static Request atTime(Position at) {
        if (at.atTime().isPresent()) {
            return Request.of(at.atTime());
        }
        return Request.of(at.logEnd(), "no record at or after that time: log end");
    }
}

package io.groupkeeper.status;

/**
 * The health of a partition (and, as its worst partition, of a group), after Burrow's evaluator. Declared from
 * best to worst, so {@code max} by ordinal is the worst.
 */
public enum LagStatus {
    /** Committing and keeping up (or nothing to do). */
    OK,
    /** Committing, but the lag grew across the whole window: the consumer is falling behind. */
    WARN,
    /** The committed offset moved backwards within the window (an admin reset, a replay). */
    REWIND,
    /** Committing the same offset again and again while there is lag: stuck on something. */
    STALL,
    /** No commit for longer than the window while there is lag: the consumer is gone or hung. */
    STOP;

    public LagStatus worst(LagStatus other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}

package io.groupkeeper.kafka;

import java.util.Locale;
import java.util.Objects;

/**
 * What a consumer does when the offset it should fetch from is outside the partition's log: a committed offset above
 * the log end (6 when the log ends at 4, or 7000 after a bad hand edit), or below the log start (retention deleted
 * the records). Applied when a partition starts from its committed offset, after an adopted external edit, and when
 * retention overtakes a running consumer.
 *
 * <p>With {@link #EARLIEST} or {@link #LATEST} the consumer logs one WARN naming the group, the partition, the stored
 * and the corrected offset, and commits the correction at once, so it is visible (and survives) in the store. With
 * {@link #FAIL} the partition stops — the member keeps owning it, nobody consumes it — and the next
 * {@code poll()} throws one {@link OffsetOutOfRangePolicyException}; other partitions keep flowing. Setting the stored
 * offset to a valid value (an admin reset, or a hand edit in zkCli) resumes it.
 */
public enum OutOfRangePolicy {

    /**
     * Continue from the first offset in the log (the default): nothing still in the log is skipped, at the price of
     * re-reading it when the bad offset was above the end. At-least-once, like the rest of the adapter.
     */
    EARLIEST,

    /** Continue from the log end: nothing is re-read; records between the bad offset and the end are skipped. */
    LATEST,

    /** Stop the partition and report it; an operator decides. */
    FAIL;

    /** Parses {@code earliest}, {@code latest} or {@code fail}, in any case. */
    public static OutOfRangePolicy parse(String text) {
        Objects.requireNonNull(text, "outOfRange");
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("outOfRange must be earliest, latest or fail, was '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.groupkeeper.kafka.container.internal.progress;

/**
 * The bounds of one partition's progress. {@code maxSpan}: no record at or beyond low-water mark + {@code maxSpan} is
 * dispatched, so the done set lies in (low-water mark, low-water mark + maxSpan) and its encoded size is at most
 * {@link ProgressCodec#maxEncodedLength(int)}. {@code maxRecords} and {@code maxBytes}: what may be held in memory
 * (fetched and not done); at the cap the partition's fetching pauses, and it resumes at half.
 */
public record ProgressLimits(int maxSpan, int maxRecords, long maxBytes) {

    /** The largest span allowed: its worst-case done set (≈ 44 KB) fits in an offset node (64 KB) with the rest. */
    public static final int MAX_SPAN = 1 << 18;

    /**
     * The container's: a span of 10,000 records (the done value at most 2,247 bytes), at most 10,000 records or 64 MiB
     * held per partition.
     */
    public static final ProgressLimits DEFAULT = new ProgressLimits(10_000, 10_000, 64L << 20);

    public ProgressLimits {
        if (maxSpan < 1 || maxSpan > MAX_SPAN) {
            throw new IllegalArgumentException("max span must be in 1.." + MAX_SPAN + ", was " + maxSpan);
        }
        if (maxRecords < 1) {
            throw new IllegalArgumentException("max buffered records must be >= 1, was " + maxRecords);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("max buffered bytes must be >= 1, was " + maxBytes);
        }
    }
}

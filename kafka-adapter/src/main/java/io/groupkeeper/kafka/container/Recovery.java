package io.groupkeeper.kafka.container;

import java.util.Locale;

/** What happens to a record once its handler failed and the retries (if any) are used up. */
public enum Recovery {
    /**
     * Publish the raw record to the dead-letter topic (headers in {@link DeadLetterHeaders}); the position moves past it
     * only after the broker acknowledged the send. If the send fails the partition stops instead.
     */
    DEAD_LETTER,
    /** Log a WARN naming the record and the exception, and move on. */
    SKIP,
    /**
     * Stop the partition at this record: it is paused (still owned, so nobody else consumes it; nothing is fetched),
     * reported ({@link ListenerContainer#stoppedPartitions()}, {@link ContainerListener#partitionStopped}) and resumed
     * with {@link ListenerContainer#resume(org.apache.kafka.common.TopicPartition)}, which tries the record again.
     */
    STOP_PARTITION;

    /** Parses {@code dead-letter}, {@code skip}, {@code stop-partition} (case and {@code -}/{@code _} insensitive). */
    public static Recovery parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (Recovery r : values()) {
            if (r.name().equals(t)) {
                return r;
            }
        }
        throw new IllegalArgumentException(
                "unknown recovery '" + text + "': expected dead-letter, skip or stop-partition");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}

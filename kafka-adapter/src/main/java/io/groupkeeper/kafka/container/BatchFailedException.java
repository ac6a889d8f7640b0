package io.groupkeeper.kafka.container;

import java.util.Objects;

/**
 * Thrown by a {@link BatchHandler} to name the record of the batch that failed (its index in the list): the records
 * before it count as processed and the {@link ErrorPolicy} applies to that record alone, matched on {@link #getCause()}.
 */
public class BatchFailedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int index;

    public BatchFailedException(int index, Throwable cause) {
        super("record " + index + " of the batch failed: " + cause, Objects.requireNonNull(cause, "cause"));
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, was " + index);
        }
        this.index = index;
    }

    /** The failed record's index in the batch. */
    public int index() {
        return index;
    }
}

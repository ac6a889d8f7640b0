package io.groupkeeper.kafka.container.internal.progress;

/**
 * One fetched record as progress sees it: its offset, its key (value equality; {@code null} for none), its size in
 * bytes (for the buffer cap) and the record itself, carried to the worker untouched
 * ({@link PartitionProgress#append(java.util.List)}). The container does not wrap its records: it hands them to
 * progress as fetched, read through a {@link FetchedView}.
 */
public record Fetched<R>(long offset, Object key, int bytes, R record) {
    public Fetched {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        if (bytes < 0) {
            throw new IllegalArgumentException(
                    "bytes of the record at offset " + offset + " must be >= 0, was " + bytes);
        }
    }
}

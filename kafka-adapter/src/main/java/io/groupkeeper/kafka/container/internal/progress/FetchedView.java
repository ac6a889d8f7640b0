package io.groupkeeper.kafka.container.internal.progress;

/**
 * How a {@link PartitionProgress} reads a fetched record of type {@code R} in place: its offset, its key (value
 * equality; {@code null} for none) and its size in bytes (for the buffer cap). The container's records are read this
 * way ({@link PartitionProgress#append(java.util.List, FetchedView)}), so that nothing is made per record to carry
 * them; {@link Fetched} carries the same three beside a record of any type.
 */
public interface FetchedView<R> {

    long offset(R record);

    Object key(R record);

    int bytes(R record);
}

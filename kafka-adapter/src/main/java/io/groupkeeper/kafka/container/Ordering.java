package io.groupkeeper.kafka.container;

/**
 * Which records of one partition a container may process at the same time, over its
 * {@linkplain ListenerContainerBuilder#parallelism parallelism} (docs/parallel.md). Every record gets a <em>lane</em>;
 * a lane runs one record at a time, in offset order, and different lanes run in parallel. A failing record keeps its
 * lane busy while it is retried, so it blocks only its lane.
 */
public enum Ordering {
    /** One lane per partition: one record at a time, in offset order (the default; the container's behaviour before). */
    PARTITION,
    /**
     * One lane per record key: the records of one key one at a time, in offset order; different keys in parallel.
     * Records without a key share one lane.
     */
    KEY,
    /** One lane per record: no order at all. */
    UNORDERED
}

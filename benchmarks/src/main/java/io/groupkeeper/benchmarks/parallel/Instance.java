package io.groupkeeper.benchmarks.parallel;

import io.groupkeeper.zookeeper.StoreStats;

/** One running consumer instance of a contender (one process's worth: its own clients and workers). */
interface Instance extends AutoCloseable {

    /** Its ZooKeeper session's counters, or null for a contender without ZooKeeper. */
    default StoreStats stats() {
        return null;
    }

    /** The most characters of an offset node's {@code "done"} value seen while it ran, or -1 where there is none. */
    default int largestDone() {
        return -1;
    }

    @Override
    void close() throws Exception;
}

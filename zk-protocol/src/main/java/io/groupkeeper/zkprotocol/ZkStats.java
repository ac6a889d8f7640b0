package io.groupkeeper.zkprotocol;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the store's round trips by kind, so tests and benchmarks can show that a rebalance costs O(N) watch
 * events and writes (invariant I8).
 */
public final class ZkStats {

    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong watchEvents = new AtomicLong();

    /** Counts of a new client (or of a one-off reader such as the admin): all zero. */
    public ZkStats() {}

    public void read() {
        reads.incrementAndGet();
    }

    public void write(int ops) {
        writes.addAndGet(ops);
    }

    public void transaction(int ops) {
        transactions.incrementAndGet();
        writes.addAndGet(ops);
    }

    public void watchEvent() {
        watchEvents.incrementAndGet();
    }

    /** Read round trips (getData, getChildren, exists). */
    public long reads() {
        return reads.get();
    }

    /** Node writes (create, setData, delete, check), counting each operation of a transaction. */
    public long writes() {
        return writes.get();
    }

    /** Transactions ({@code multi}) sent. */
    public long transactions() {
        return transactions.get();
    }

    /** Watch notifications delivered to this store's watchers (node events only). */
    public long watchEvents() {
        return watchEvents.get();
    }
}

package io.groupkeeper.zookeeper;

/**
 * A point-in-time count of one {@link ZooKeeperStore}'s round trips by kind, so that tests and benchmarks can show
 * what an operation cost (a rebalance of N members costs O(N) watch events and writes: invariant I8). {@link #minus}
 * gives the cost of what happened between two snapshots.
 *
 * @param reads       read round trips (getData, getChildren, exists)
 * @param writes      node writes (create, setData, delete, check), each operation of a transaction counted
 * @param transactions transactions ({@code multi}) sent
 * @param watchEvents watch notifications delivered to the store's watchers (node events only)
 */
public record StoreStats(long reads, long writes, long transactions, long watchEvents) {

    public StoreStats minus(StoreStats earlier) {
        return new StoreStats(
                reads - earlier.reads,
                writes - earlier.writes,
                transactions - earlier.transactions,
                watchEvents - earlier.watchEvents);
    }
}

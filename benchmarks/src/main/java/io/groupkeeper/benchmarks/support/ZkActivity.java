package io.groupkeeper.benchmarks.support;

import io.groupkeeper.zookeeper.StoreStats;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.util.Collection;
import java.util.List;

/**
 * The summed {@link io.groupkeeper.zookeeper.StoreStats} of several stores (sessions), and a wait for quiet: no watch event and no write for a
 * few consecutive polls, so that a measured delta contains one whole rebalance and nothing else.
 */
public final class ZkActivity {

    private final List<ZooKeeperStore> stores;

    public ZkActivity(Collection<ZooKeeperStore> stores) {
        this.stores = List.copyOf(stores);
    }

    public StoreStats snapshot() {
        long r = 0;
        long w = 0;
        long t = 0;
        long e = 0;
        for (ZooKeeperStore s : stores) {
            StoreStats x = s.stats();
            r += x.reads();
            w += x.writes();
            t += x.transactions();
            e += x.watchEvents();
        }
        return new StoreStats(r, w, t, e);
    }

    /** Waits until nothing was read, written or watched for {@code quietMs}; false if that took over {@code timeoutMs}. */
    public boolean awaitQuiet(long quietMs, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        StoreStats last = snapshot();
        long quietSince = System.currentTimeMillis();
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(Math.max(10, quietMs / 5));
            StoreStats now = snapshot();
            if (!now.equals(last)) {
                last = now;
                quietSince = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - quietSince >= quietMs) {
                return true;
            }
        }
        return false;
    }
}

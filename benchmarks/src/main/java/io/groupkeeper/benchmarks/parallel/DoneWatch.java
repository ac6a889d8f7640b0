package io.groupkeeper.benchmarks.parallel;

import com.fasterxml.jackson.databind.JsonNode;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.zkprotocol.admin.AdminLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * Reads a group's offset nodes from outside, at a fixed pace ({@value #PACE_MS} ms), and keeps the longest
 * {@code "done"} value seen (its compact JSON text, the characters the store writes beside {@code offset}).
 */
final class DoneWatch implements AutoCloseable {

    static final long PACE_MS = 200;

    private final CuratorFramework zk;
    private final Thread thread;
    private final AtomicInteger longest = new AtomicInteger();
    private volatile boolean running = true;

    /** @param namespace the store's ({@code ZooKeeperStore.namespace()}): the layout's paths lie under it */
    DoneWatch(String zkConnect, String namespace, String group, String topic, int partitions) {
        zk = CuratorFrameworkFactory.builder()
                .connectString(zkConnect)
                .namespace(namespace)
                .sessionTimeoutMs(15_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100))
                .build();
        zk.start();
        thread = new Thread(
                () -> {
                    while (running) {
                        for (int p = 0; p < partitions && running; p++) {
                            sample(AdminLayout.offset(group, new TopicPartition(topic, p)));
                        }
                        try {
                            Thread.sleep(PACE_MS); // a fixed sampling pace, not synchronisation
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "done-watch-" + group);
        thread.setDaemon(true);
        thread.start();
    }

    private void sample(String path) {
        try {
            if (zk.checkExists().forPath(path) == null) {
                return;
            }
            JsonNode done = Json.mapper().readTree(zk.getData().forPath(path)).get("done");
            if (done != null && !done.isNull()) {
                longest.accumulateAndGet(done.toString().length(), Math::max); // compact JSON
            }
        } catch (Exception e) {
            // not there yet, or the session is closing: the next sample tries again
        }
    }

    /** The most characters of a done value seen so far (0: none seen). */
    int longest() {
        return longest.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
        zk.close();
    }
}

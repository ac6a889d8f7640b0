package io.groupkeeper.embedded;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

final class TestSupport {

    private TestSupport() {
    }

    /** Connects a raw ZooKeeper client, creates {@code path} with {@code value} and reads it back. */
    static String createAndRead(String connectString, String path, String value) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IOException("ZooKeeper client did not connect to " + connectString);
            }
            zk.create(path, value.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
        } finally {
            zk.close();
        }
    }

    /** Reads a node, or null if it does not exist. */
    static String read(String connectString, String path) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IOException("ZooKeeper client did not connect to " + connectString);
            }
            if (zk.exists(path, false) == null) {
                return null;
            }
            return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
        } finally {
            zk.close();
        }
    }

    static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    static void awaitPortFree(int port) {
        await().atMost(Duration.ofSeconds(10)).until(() -> Ports.isFree(port));
    }
}

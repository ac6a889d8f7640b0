package io.groupkeeper.embedded;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.fixtures.RawZk;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;

final class TestSupport {

    private TestSupport() {}

    /** Connects a raw ZooKeeper client, creates {@code path} with {@code value} and reads it back. */
    static String createAndRead(String connectString, String path, String value) throws Exception {
        try (CuratorFramework zk = RawZk.connect(connectString)) {
            zk.create().withMode(CreateMode.PERSISTENT).forPath(path, value.getBytes(StandardCharsets.UTF_8));
            return RawZk.read(zk, path);
        }
    }

    /** Reads a node, or null if it does not exist. */
    static String read(String connectString, String path) throws Exception {
        try (CuratorFramework zk = RawZk.connect(connectString)) {
            return RawZk.read(zk, path);
        }
    }

    static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .collect(Collectors.toSet());
    }

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    static void awaitPortFree(int port) {
        await().atMost(Duration.ofSeconds(10)).until(() -> Ports.isFree(port));
    }
}

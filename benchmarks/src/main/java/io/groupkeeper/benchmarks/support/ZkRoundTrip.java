package io.groupkeeper.benchmarks.support;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;

/**
 * The raw ZooKeeper write round trip measured inside a harness run, against the same server the run uses: a fresh
 * Curator client does {@code setData} of a small body on a scratch node, sequentially. The same operation as
 * {@code ZkRoundTripBenchmark.setData} (JMH), so the two can be compared; here it is measured in the same run as
 * the rebalances it is the yardstick for.
 */
public final class ZkRoundTrip {

    private static final byte[] BODY =
            "{\"offset\":1234567890,\"metadata\":\"\",\"padding\":\"xxxxxxxxxxxxx\"}".getBytes(StandardCharsets.UTF_8);

    private ZkRoundTrip() {}

    /** The harnesses' measurement: 50 unrecorded writes, then 200 recorded ones. */
    public static Stats measure(String connectString) {
        return measure(connectString, 50, 200);
    }

    /** How the harnesses print a measurement: {@code p50 <ms> ms, p95 <ms> ms}. */
    public static String describe(Stats rtt) {
        return "p50 " + Fmt.ms(rtt.p50()) + " ms, p95 " + Fmt.ms(rtt.p95()) + " ms";
    }

    /** {@code warmup} unrecorded writes, then {@code samples} recorded ones; returns their times in ms. */
    public static Stats measure(String connectString, int warmup, int samples) {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100))) {
            client.start();
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("cannot connect to ZooKeeper at " + connectString);
            }
            String path = "/bench-rtt/" + Long.toHexString(System.nanoTime());
            client.create().creatingParentsIfNeeded().forPath(path, BODY);
            for (int i = 0; i < warmup; i++) {
                client.setData().forPath(path, BODY);
            }
            List<Double> ms = new ArrayList<>(samples);
            for (int i = 0; i < samples; i++) {
                long t0 = System.nanoTime();
                client.setData().forPath(path, BODY);
                ms.add(Fmt.nanosToMs(System.nanoTime() - t0));
            }
            try {
                client.delete().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                // fine
            }
            return Stats.of(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("raw ZooKeeper round trip failed: " + e, e);
        }
    }
}

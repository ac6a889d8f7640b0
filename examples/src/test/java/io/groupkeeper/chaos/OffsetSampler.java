package io.groupkeeper.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.chaos.ChaosLedger.CommittedSample;
import io.groupkeeper.fixtures.ZkLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * Reads every committed offset of the chaos groups every {@code periodMillis} (one read-only ZooKeeper {@code multi}
 * per round) on its own client and records each change into the ledger, for the checker's "never backwards" and for
 * the committed offset at the moment a member lost a partition. Rounds that fail (a server just died) are skipped.
 */
final class OffsetSampler implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final List<String> groups;
    private final String topic;
    private final IntSupplier partitions;
    private final ChaosLedger ledger;
    private final long periodMillis;
    private final Map<String, Long> last = new HashMap<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile long rounds;
    private volatile long failedRounds;

    OffsetSampler(
            String zkConnect,
            List<String> groups,
            String topic,
            IntSupplier partitions,
            ChaosLedger ledger,
            long periodMillis) {
        this.client = CuratorFrameworkFactory.newClient(zkConnect, 10_000, 5_000, new RetryNTimes(3, 100));
        this.groups = List.copyOf(groups);
        this.topic = topic;
        this.partitions = partitions;
        this.ledger = ledger;
        this.periodMillis = periodMillis;
        this.thread = new Thread(this::run, "chaos-offset-sampler");
        this.thread.setDaemon(true);
    }

    OffsetSampler start() throws InterruptedException {
        client.start();
        client.blockUntilConnected(30, TimeUnit.SECONDS);
        thread.start();
        return this;
    }

    private void run() {
        try {
            do {
                try {
                    long readAt = System.currentTimeMillis();
                    read().forEach((key, offset) -> {
                        if (!offset.equals(last.put(key, offset))) {
                            int slash = key.lastIndexOf('/');
                            ledger.committed(new CommittedSample(
                                    key.substring(0, slash),
                                    Integer.parseInt(key.substring(slash + 1)),
                                    offset,
                                    System.currentTimeMillis(),
                                    readAt));
                        }
                    });
                    rounds++;
                } catch (Exception e) {
                    failedRounds++;
                }
            } while (!stop.await(periodMillis, TimeUnit.MILLISECONDS)); // the sampling period, not a synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** group/partition → committed offset, for every partition that has one. */
    Map<String, Long> read() throws Exception {
        List<Op> ops = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        int n = partitions.getAsInt();
        for (String g : groups) {
            for (int p = 0; p < n; p++) {
                ops.add(Op.getData(ZkLayout.GROUPS + "/" + g + "/offsets/" + topic + "/" + p));
                keys.add(g + "/" + p);
            }
        }
        List<OpResult> results = client.getZookeeperClient().getZooKeeper().multi(ops);
        Map<String, Long> out = new HashMap<>();
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.GetDataResult d) {
                OptionalLong offset = offsetOf(d.getData());
                if (offset.isPresent()) {
                    out.put(keys.get(i), offset.getAsLong());
                }
            }
        }
        return out;
    }

    static OptionalLong offsetOf(byte[] body) throws IOException {
        JsonNode n = JSON.readTree(body);
        JsonNode o = n == null ? null : n.get("offset");
        return o != null && o.canConvertToLong() ? OptionalLong.of(o.asLong()) : OptionalLong.empty();
    }

    long rounds() {
        return rounds;
    }

    long failedRounds() {
        return failedRounds;
    }

    @Override
    public void close() throws InterruptedException {
        stop.countDown();
        thread.join(10_000);
        client.close();
    }
}

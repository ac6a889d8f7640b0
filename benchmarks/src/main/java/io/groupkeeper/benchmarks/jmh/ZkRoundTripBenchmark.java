package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.embedded.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The physical floor: one raw ZooKeeper round trip through Curator against the same kind of in-process server the
 * other benchmarks and the harnesses use ({@link EmbeddedZooKeeper}, defaults: data on local disk, fsync on). A
 * write is {@code setData} of a 64-byte body; a read is {@code getData}; {@code multiCheckSet} is the shape of a
 * one-partition fenced commit without any groupkeeper code. Sampled, so JMH prints percentiles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ZkRoundTripBenchmark {

    private static final byte[] BODY =
            "{\"offset\":1234567890,\"metadata\":\"\",\"padding\":\"xxxxxxxxxxxxx\"}".getBytes(StandardCharsets.UTF_8);

    private EmbeddedZooKeeper zk;
    private CuratorFramework client;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        zk = EmbeddedZooKeeper.startDefault();
        client = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100));
        client.start();
        client.blockUntilConnected();
        client.create().creatingParentsIfNeeded().forPath("/bench/rtt", BODY);
        client.create().forPath("/bench/owner", new byte[0]);
    }

    @Benchmark
    public Stat setData() throws Exception {
        return client.setData().forPath("/bench/rtt", BODY);
    }

    @Benchmark
    public byte[] getData() throws Exception {
        return client.getData().forPath("/bench/rtt");
    }

    @Benchmark
    public List<CuratorTransactionResult> multiCheckSet() throws Exception {
        return client.transaction()
                .forOperations(
                        client.transactionOp().check().forPath("/bench/owner"),
                        client.transactionOp().setData().forPath("/bench/rtt", BODY));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (client != null) {
            client.close();
        }
        if (zk != null) {
            zk.close();
        }
    }
}

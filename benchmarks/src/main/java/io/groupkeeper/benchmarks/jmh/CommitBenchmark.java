package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.benchmarks.support.FencedCommitter;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fenced offset commit throughput through {@link GroupStore#commit} on a real in-process ZooKeeper
 * ({@link EmbeddedZooKeeper}): one member that registered and claimed 100 partitions commits batches of 1, 10 or
 * 100 of them. Each batch is one ZooKeeper transaction of {@code check owner + setData offset @version} per
 * partition (docs/zk-layout.md). The primary score is batches per second; the secondary {@code offsets} score is
 * offsets committed per second. Every commit is checked: a refused commit fails the benchmark.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CommitBenchmark {

    static final int PARTITIONS = 100;

    @Param({"1", "10", "100"})
    public int batch;

    private EmbeddedZooKeeper zk;
    private ZooKeeperStore store;
    private FencedCommitter member;
    private int cursor;

    /** Offsets committed, reported by JMH as a rate next to the batch rate. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Offsets {
        public long offsets;
    }

    @Setup(Level.Trial)
    public void setUp() {
        zk = EmbeddedZooKeeper.startDefault();
        store = ZooKeeperStore.builder().connectString(zk.connectString()).build();
        store.start();
        store.topics().ensureTopic("bench", PARTITIONS);
        GroupStore group = GroupStores.of(store, "commit-bench");
        group.ensureGroup("sticky");
        member = new FencedCommitter(group, "member-1", "bench", 0, PARTITIONS);
    }

    @Benchmark
    public CommitOutcome commit(Offsets counter) {
        CommitOutcome outcome = member.commit(cursor, batch);
        cursor = (cursor + batch) % PARTITIONS;
        counter.offsets += batch;
        return outcome;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (member != null) {
            member.close();
        }
        if (store != null) {
            store.close();
        }
        if (zk != null) {
            zk.close();
        }
    }
}

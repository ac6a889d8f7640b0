package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.spi.ClaimResult;
import io.groupkeeper.spi.CommitOutcome;
import io.groupkeeper.spi.CommitRequest;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.Registration;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
    private GroupStore group;
    private Registration registration;
    private final long[] versions = new long[PARTITIONS];
    private long session;
    private long offset;
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
        group = store.group("commit-bench");
        group.ensureGroup("sticky");
        registration = group.registerMember(new MemberInfo("member-1", Optional.empty(), "bench",
                new TreeSet<>(Set.of("bench")), Instant.now(), "sticky"));
        for (int p = 0; p < PARTITIONS; p++) {
            ClaimResult r = group.claim(new TopicPartition("bench", p), "member-1", 1, () -> { });
            if (!(r instanceof ClaimResult.Claimed claimed)) {
                throw new IllegalStateException("could not claim bench:" + p + ": " + r);
            }
            versions[p] = claimed.offset().version();
            session = claimed.lease().session();
        }
    }

    @Benchmark
    public CommitOutcome commit(Offsets counter) {
        List<CommitRequest> requests = new ArrayList<>(batch);
        offset++;
        for (int i = 0; i < batch; i++) {
            int p = (cursor + i) % PARTITIONS;
            requests.add(new CommitRequest(new TopicPartition("bench", p), offset, versions[p], session));
        }
        cursor = (cursor + batch) % PARTITIONS;
        CommitOutcome outcome = group.commit("member-1", 1, requests);
        if (!outcome.conflicted().isEmpty()) {
            throw new IllegalStateException("fenced commit refused for " + outcome.conflicted());
        }
        outcome.committed().forEach((tp, v) -> versions[tp.partition()] = v);
        counter.offsets += batch;
        return outcome;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (registration != null) {
            registration.close();
        }
        if (store != null) {
            store.close();
        }
        if (zk != null) {
            zk.close();
        }
    }
}

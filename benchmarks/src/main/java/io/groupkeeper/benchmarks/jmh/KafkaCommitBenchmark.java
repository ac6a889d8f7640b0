package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.benchmarks.support.KafkaOffsetCommitter;
import io.groupkeeper.embedded.EmbeddedKafka;
import java.util.concurrent.TimeUnit;
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
 * The comparison for {@link CommitBenchmark}: {@code KafkaConsumer.commitSync} of batches of 1, 10 or 100 partitions
 * to the in-process KRaft broker ({@link EmbeddedKafka}), by a consumer that {@code assign()}ed the 100 partitions
 * (no group membership, so no generation fencing: Kafka's simplest commit path). Same scores as
 * {@link CommitBenchmark}: batches/s and, as {@code offsets}, offsets/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class KafkaCommitBenchmark {

    @Param({"1", "10", "100"})
    public int batch;

    private EmbeddedKafka kafka;
    private KafkaOffsetCommitter consumer;
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() {
        kafka = EmbeddedKafka.startDefault();
        kafka.createTopic("bench", CommitBenchmark.PARTITIONS);
        consumer = new KafkaOffsetCommitter(
                kafka.clientProperties(), "commit-bench", "bench", 0, CommitBenchmark.PARTITIONS);
    }

    @Benchmark
    public void commitSync(CommitBenchmark.Offsets counter) {
        consumer.commit(cursor, batch);
        cursor = (cursor + batch) % CommitBenchmark.PARTITIONS;
        counter.offsets += batch;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (consumer != null) {
            consumer.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }
}

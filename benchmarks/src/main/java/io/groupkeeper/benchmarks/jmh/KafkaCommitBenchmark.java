package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.embedded.EmbeddedKafka;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
    private KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private long offset;
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() {
        kafka = EmbeddedKafka.startDefault();
        kafka.createTopic("bench", CommitBenchmark.PARTITIONS);
        Map<String, Object> props = kafka.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "commit-bench");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        consumer = new KafkaConsumer<>(props);
        for (int p = 0; p < CommitBenchmark.PARTITIONS; p++) {
            partitions.add(new TopicPartition("bench", p));
        }
        consumer.assign(partitions);
    }

    @Benchmark
    public void commitSync(CommitBenchmark.Offsets counter) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        offset++;
        for (int i = 0; i < batch; i++) {
            offsets.put(partitions.get((cursor + i) % partitions.size()), new OffsetAndMetadata(offset));
        }
        cursor = (cursor + batch) % partitions.size();
        consumer.commitSync(offsets);
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

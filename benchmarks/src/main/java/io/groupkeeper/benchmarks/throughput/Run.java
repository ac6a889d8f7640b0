package io.groupkeeper.benchmarks.throughput;

import io.groupkeeper.GroupKeeper;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One contender's run: where the servers are, its fresh group, the run's common settings, and the measuring every
 * contender shares — the footprint before it started ({@link #result} takes the one at its end, the contender still
 * open) and, for the read-process-write contenders, the instant Kafka's group offsets reach the input's log end.
 *
 * @param zkConnect ZooKeeper's connect string (for a contender that builds its own {@code GroupKeeper}, as an application does)
 * @param consumer the consumer settings every contender gets ({@link ThroughputMain#consumerSettings})
 * @param producer producer settings over the common ones ({@code --producer-properties})
 */
record Run(
        String bootstrap,
        String zkConnect,
        GroupKeeper keeper,
        Admin admin,
        String group,
        int records,
        int partitions,
        Map<String, Object> consumer,
        Map<String, Object> producer,
        Sink sink,
        Footprint before) {

    static final String IN = "in";
    static final String OUT = "out";

    /** One contender's figures. */
    record Result(double rate, long heapBytes, int threads, int producers) {}

    /** Heap reachable after a full GC, and live threads. */
    record Footprint(long heapBytes, int threads) {
        static Footprint now() {
            for (int i = 0; i < 2; i++) {
                System.gc();
            }
            return new Footprint(
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Thread.activeCount());
        }
    }

    /** The producer settings of every read-process-write contender: {@code linger.ms=5}, {@code batch.size=65536}. */
    Map<String, Object> producerProps() {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", 5);
        p.put("batch.size", 65_536);
        p.putAll(producer);
        return p;
    }

    /** The common consumer settings with the servers, the group and no auto commit. */
    Map<String, Object> consumerProps() {
        Map<String, Object> p = new HashMap<>(consumer);
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("enable.auto.commit", false);
        return p;
    }

    /** The rate from the first record to {@code endNanos}; heap, threads and producers now against {@link #before}. */
    Result result(long endNanos) {
        int producers = (int) Thread.getAllStackTraces().keySet().stream() // one sender thread per producer
                .filter(t -> t.isAlive() && t.getName().startsWith("kafka-producer-network-thread"))
                .count();
        Footprint after = Footprint.now();
        return new Result(
                (records - 1) / ((endNanos - sink.firstNanos) / 1e9),
                after.heapBytes() - before.heapBytes(),
                after.threads() - before.threads(),
                producers);
    }

    /** The consuming contenders' result: the window from the first to the last record. */
    Result consumed() throws InterruptedException {
        sink.done.await();
        return result(sink.lastNanos);
    }

    /** The transform of every read-process-write contender: the output of one input record. */
    static String transform(ConsumerRecord<String, String> r) {
        return r.partition() + "/" + r.offset() + " " + r.value().length();
    }

    /** The input's log end offsets. */
    Map<TopicPartition, Long> ends() throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(IN, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /** True once Kafka's group offsets, read stable (no transaction pending), are at {@code ends}. */
    boolean offsetsAt(Map<TopicPartition, Long> ends) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                        group, new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata()
                .get(60, TimeUnit.SECONDS);
        return ends.entrySet().stream()
                .allMatch(e -> committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() >= e.getValue());
    }

    /** Polls Kafka's group offsets (an outside state, at a fixed pace) until they reach {@code ends}; that instant. */
    long awaitOffsetsAt(Map<TopicPartition, Long> ends) throws Exception {
        while (!offsetsAt(ends)) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return System.nanoTime();
    }
}

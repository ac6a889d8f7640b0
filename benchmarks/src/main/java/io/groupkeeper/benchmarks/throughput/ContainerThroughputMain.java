package io.groupkeeper.benchmarks.throughput;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The listener container's throughput (issue 36) against a plain {@code KafkaConsumer} poll loop and Spring for Apache
 * Kafka's container, on one in-process broker in one JVM, every contender with the same settings and the same
 * record-at-a-time listener signature (a {@code ConsumerRecord<String, String>}, the handler reads the value):
 * <ul>
 *   <li>consumer settings, set explicitly on every contender: {@code max.poll.records=500},
 *   {@code fetch.min.bytes=1}, {@code fetch.max.bytes=52428800}, {@code max.partition.fetch.bytes=1048576},
 *   {@code fetch.max.wait.ms=500} (Kafka's defaults, which are also each contender's documented defaults), String
 *   deserializers, no auto commit;</li>
 *   <li>commit mode: the positions committed once a second — the plain loop {@code commitAsync()} every 1 s, the
 *   container and the {@code CoordinatedConsumer} loop their default 1 s commit interval (fenced commits to
 *   ZooKeeper), Spring {@code AckMode.TIME} with {@code ackTime=1000};</li>
 *   <li>concurrency 1 everywhere, one topic of {@code --partitions} partitions read from the start.</li>
 * </ul>
 * Contenders: {@code kafka-poll} (assign + seek, no group), {@code coordinated-poll} (groupkeeper's consumer without
 * the container), {@code container} ({@link ListenerContainer}, record handler), {@code spring-record}
 * ({@code MessageListener} on a {@code ConcurrentMessageListenerContainer}) and {@code spring-annotated}
 * ({@code @KafkaListener} taking the String payload, through Spring's messaging adapter). Records/s between each
 * contender's first and last record (the group join is outside the window); contenders rotated per round so the
 * shared machine's noise hits all alike; median and range over the counted rounds, and the median of the per-round
 * ratios against {@code kafka-poll}.
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.throughput.ContainerThroughputMain \
 *      [--records 1000000] [--partitions 4] [--rounds 7] [--warmups 2] [--value-bytes 100]
 * </pre>
 */
public final class ContainerThroughputMain {

    /** The consumer settings every contender gets (Kafka's defaults, set explicitly). */
    static final Map<String, Object> CONSUMER = Map.of(
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500,
            ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1,
            ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 52_428_800,
            ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1_048_576,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);

    private ContainerThroughputMain() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of(), Set.of("records", "partitions", "rounds", "warmups", "value-bytes"));
        int records = args.getInt("records", 1_000_000);
        int partitions = args.getInt("partitions", 4);
        int rounds = args.getInt("rounds", 7);
        int warmups = args.getInt("warmups", 2);
        int valueBytes = args.getInt("value-bytes", 100);
        System.out.println("machine: " + Machine.describe());
        System.out.println("consumer settings (every contender): " + new java.util.TreeMap<>(CONSUMER)
                + ", commit once a second, concurrency 1");
        try (EmbeddedServers servers = EmbeddedServers.builder().quietLogs(true).build().start()) {
            String topic = "throughput";
            servers.kafka().createTopic(topic, partitions);
            produce(servers.bootstrapServers(), topic, partitions, records, valueBytes);
            System.out.printf("topic %s: %d records of %d bytes on %d partitions%n", topic, records, valueBytes,
                    partitions);
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            List<String> subjects = List.of("kafka-poll", "coordinated-poll", "container", "spring-record",
                    "spring-annotated");
            subjects.forEach(s -> rates.put(s, new ArrayList<>()));
            try (GroupKeeper keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder().connectString(servers.zkConnectString()).build()).build().start()) {
                for (int round = 1 - warmups; round <= rounds; round++) { // rounds <= 0 warm the JIT up, not counted
                    List<String> order = new ArrayList<>(subjects);
                    Collections.rotate(order, Math.floorMod(round, order.size()));
                    for (String subject : order) {
                        Sink sink = new Sink(records);
                        String group = subject + "-" + round;
                        String bootstrap = servers.bootstrapServers();
                        switch (subject) {
                            case "kafka-poll" -> kafkaPoll(bootstrap, topic, partitions, group, sink);
                            case "coordinated-poll" -> coordinatedPoll(keeper, bootstrap, topic, group, sink);
                            case "container" -> container(keeper, bootstrap, topic, group, sink);
                            case "spring-record" -> SpringContainers.record(
                                    new SpringContainers.Settings(bootstrap, topic, group, CONSUMER, sink));
                            case "spring-annotated" -> SpringContainers.annotated(
                                    new SpringContainers.Settings(bootstrap, topic, group, CONSUMER, sink));
                            default -> throw new IllegalStateException(subject);
                        }
                        System.out.printf("round %d %-17s %,10.0f records/s  load %.2f%s%n", round, subject,
                                sink.rate(), Machine.loadAverage(), round <= 0 ? " (warm-up)" : "");
                        if (round > 0) {
                            rates.get(subject).add(sink.rate());
                        }
                    }
                }
            }
            System.out.println();
            System.out.println("| contender | median records/s | range (min..max) | per-round ratio to kafka-poll, median (min..max) |");
            System.out.println("|---|---|---|---|");
            for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
                List<Double> r = new ArrayList<>(e.getValue());
                List<Double> ratio = new ArrayList<>();
                for (int i = 0; i < r.size(); i++) {
                    ratio.add(r.get(i) / rates.get("kafka-poll").get(i));
                }
                Collections.sort(r);
                Collections.sort(ratio);
                System.out.printf("| %s | %,.0f | %,.0f..%,.0f | %.2f (%.2f..%.2f) |%n", e.getKey(), median(r), r.get(0),
                        r.get(r.size() - 1), median(ratio), ratio.get(0), ratio.get(ratio.size() - 1));
            }
            System.out.printf("load average at the end: %.2f%n", Machine.loadAverage());
        }
    }

    private static double median(List<Double> values) {
        List<Double> r = new ArrayList<>(values);
        Collections.sort(r);
        int n = r.size();
        return n % 2 == 1 ? r.get(n / 2) : (r.get(n / 2 - 1) + r.get(n / 2)) / 2;
    }

    private static void produce(String bootstrap, String topic, int partitions, int records, int valueBytes)
            throws Exception {
        String value = "v".repeat(valueBytes);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "1",
                "enable.idempotence", false, "linger.ms", 5, "batch.size", 262144), new StringSerializer(),
                new StringSerializer())) {
            List<java.util.concurrent.Future<?>> pending = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                pending.add(p.send(new ProducerRecord<>(topic, i % partitions, "k" + i, value)));
                if (pending.size() == 10_000) {
                    for (var f : pending) {
                        f.get();
                    }
                    pending.clear();
                }
            }
            for (var f : pending) {
                f.get();
            }
        }
    }

    /** A plain KafkaConsumer: assign everything, seek to the start, poll, commitAsync once a second. */
    private static void kafkaPoll(String bootstrap, String topic, int partitions, String group, Sink sink) {
        Map<String, Object> props = new HashMap<>(CONSUMER);
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", group);
        props.put("enable.auto.commit", false);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            long nextCommit = System.nanoTime() + 1_000_000_000L;
            while (sink.done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    sink.accept(r.value());
                }
                if (System.nanoTime() - nextCommit >= 0) {
                    c.commitAsync();
                    nextCommit = System.nanoTime() + 1_000_000_000L;
                }
            }
        }
    }

    /** A CoordinatedConsumer poll loop (one member; its default 1 s fenced commits). */
    private static void coordinatedPoll(GroupKeeper keeper, String bootstrap, String topic, String group, Sink sink) {
        try (CoordinatedConsumer<String, String> c = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group).topics(topic).kafkaProperties(CONSUMER).kafkaProperty("bootstrap.servers", bootstrap)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .startPosition(StartPosition.earliest()).build().start()) {
            while (sink.done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    sink.accept(r.value());
                }
            }
        }
    }

    /** The listener container: one worker, a record handler, the default error policy (never triggered). */
    private static void container(GroupKeeper keeper, String bootstrap, String topic, String group, Sink sink)
            throws InterruptedException {
        try (ListenerContainer<String, String> c = ListenerContainer.<String, String>builder(keeper)
                .group(group).topics(topic).kafkaProperties(CONSUMER).kafkaProperty("bootstrap.servers", bootstrap)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .createDeadLetterTopics(true)
                .consumerOptions(b -> b.startPosition(StartPosition.earliest()))
                .recordHandler(r -> sink.accept(r.value())).build().start()) {
            sink.done.await();
        }
    }
}

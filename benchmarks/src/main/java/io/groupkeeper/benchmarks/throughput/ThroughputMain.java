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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Consumer throughput on one in-process broker, one JVM, one run: the same pre-produced topic read from the start by
 * a plain {@code KafkaConsumer} poll loop, a plain {@code CoordinatedConsumer} poll loop, groupkeeper's
 * {@link ListenerContainer} (record handler, concurrency 1) and Spring Kafka's {@code @KafkaListener}; records/s
 * between each subject's first and last record; subjects interleaved per round so machine noise hits all alike.
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.throughput.ThroughputMain \
 *      [--records 500000] [--partitions 4] [--rounds 5] [--warmups 2] [--value-bytes 100]
 * </pre>
 */
public final class ThroughputMain {

    private ThroughputMain() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of(), Set.of("records", "partitions", "rounds", "warmups", "value-bytes"));
        int records = args.getInt("records", 500_000);
        int partitions = args.getInt("partitions", 4);
        int rounds = args.getInt("rounds", 5);
        int warmups = args.getInt("warmups", 2);
        int valueBytes = args.getInt("value-bytes", 100);
        System.out.println("machine: " + Machine.describe());
        try (EmbeddedServers servers = EmbeddedServers.builder().quietLogs(true).build().start()) {
            String topic = "throughput";
            servers.kafka().createTopic(topic, partitions);
            produce(servers.bootstrapServers(), topic, partitions, records, valueBytes);
            System.out.printf("topic %s: %d records of %d bytes on %d partitions%n", topic, records, valueBytes,
                    partitions);
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            List<String> subjects = List.of("kafka-poll", "coordinated-poll", "container", "spring-kafka");
            subjects.forEach(s -> rates.put(s, new ArrayList<>()));
            try (GroupKeeper keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder().connectString(servers.zkConnectString()).build()).build().start()) {
                for (int round = 1 - warmups; round <= rounds; round++) { // rounds <= 0 warm the JIT up, not counted
                    List<String> order = new ArrayList<>(subjects);
                    Collections.rotate(order, Math.floorMod(round, order.size()));
                    for (String subject : order) {
                        Sink sink = new Sink(records);
                        String group = subject + "-" + round;
                        switch (subject) {
                            case "kafka-poll" -> kafkaPoll(servers.bootstrapServers(), topic, partitions, sink);
                            case "coordinated-poll" -> coordinatedPoll(keeper, servers.bootstrapServers(), topic,
                                    group, sink);
                            case "container" -> container(keeper, servers.bootstrapServers(), topic, group, sink);
                            case "spring-kafka" -> SpringKafkaSubject.run(new SpringKafkaSubject.Settings(
                                    servers.bootstrapServers(), topic, group, sink));
                            default -> throw new IllegalStateException(subject);
                        }
                        System.out.printf("round %d %-17s %,10.0f records/s%s%n", round, subject, sink.rate(),
                                round <= 0 ? " (warm-up)" : "");
                        if (round > 0) {
                            rates.get(subject).add(sink.rate());
                        }
                    }
                }
            }
            System.out.println();
            // Paired by round (the subjects of one round ran back to back): the median of the per-round ratios is what
            // noise from other processes disturbs least.
            for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
                List<Double> r = new ArrayList<>(e.getValue());
                List<Double> vsPlain = new ArrayList<>();
                List<Double> vsCoordinated = new ArrayList<>();
                for (int i = 0; i < r.size(); i++) {
                    vsPlain.add(r.get(i) / rates.get("kafka-poll").get(i));
                    vsCoordinated.add(r.get(i) / rates.get("coordinated-poll").get(i));
                }
                Collections.sort(r);
                System.out.printf("%-17s median %,10.0f records/s  range %,.0f..%,.0f  per-round ratio (median) "
                                + "vs kafka-poll %+.1f %%  vs coordinated-poll %+.1f %%%n", e.getKey(), median(r),
                        r.get(0), r.get(r.size() - 1), (median(vsPlain) - 1) * 100, (median(vsCoordinated) - 1) * 100);
            }
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
            List<java.util.concurrent.Future<?>> last = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                last.add(p.send(new ProducerRecord<>(topic, i % partitions, "k" + i, value)));
                if (last.size() == 10_000) {
                    for (var f : last) {
                        f.get();
                    }
                    last.clear();
                }
            }
            for (var f : last) {
                f.get();
            }
        }
    }

    /** A plain KafkaConsumer: assign everything, seek to the start, poll until every record was seen. */
    private static void kafkaPoll(String bootstrap, String topic, int partitions, Sink sink) {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "enable.auto.commit", false), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            while (sink.done.getCount() > 0) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    sink.accept(r.value());
                }
            }
        }
    }

    /** A CoordinatedConsumer poll loop (one member; groupkeeper's periodic commits included). */
    private static void coordinatedPoll(GroupKeeper keeper, String bootstrap, String topic, String group, Sink sink) {
        try (CoordinatedConsumer<String, String> c = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group).topics(topic).kafkaProperty("bootstrap.servers", bootstrap)
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
                .group(group).topics(topic).kafkaProperty("bootstrap.servers", bootstrap)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .createDeadLetterTopics(true)
                .consumerOptions(b -> b.startPosition(StartPosition.earliest()))
                .recordHandler(r -> sink.accept(r.value())).build().start()) {
            sink.done.await();
        }
    }
}

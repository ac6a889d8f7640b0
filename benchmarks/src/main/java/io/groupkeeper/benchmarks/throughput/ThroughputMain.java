package io.groupkeeper.benchmarks.throughput;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.LoggerFactory;

/**
 * The one throughput harness (issues 16, 35, 36): contenders named on the command line read the same pre-produced
 * topic from the start, one consumer thread each, on one in-process ZooKeeper and KRaft broker in this JVM; contenders
 * rotated per round so the shared machine's noise hits all alike, the first {@code --warmups} rounds not counted.
 *
 * <p>Every contender gets the same consumer settings, set explicitly ({@code max.poll.records} from
 * {@code --max-poll-records}, {@code fetch.min.bytes=1}, {@code fetch.max.bytes=52428800},
 * {@code max.partition.fetch.bytes=1048576}, {@code fetch.max.wait.ms=500}: Kafka's defaults), String deserializers,
 * and a fresh group. Consuming contenders ({@link ConsumerContenders}, {@link SpringContainers},
 * {@link StarterContender}) commit once a second and are measured from their first to their last record;
 * read-process-write contenders ({@link EosContenders}, {@link SpringEos}) write one output per input (producers
 * {@code linger.ms=5}, {@code batch.size=65536}) and are measured from their first record until every output is
 * committed. Heap and threads: what a contender holds at its end, still open, above what the JVM held before it
 * started (after a full GC).
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.throughput.ThroughputMain \
 *      [--contenders consume|eos|NAME,NAME...] [--baseline NAME] [--records 1000000] [--partitions 4] \
 *      [--rounds 7] [--warmups 2] [--value-bytes 100] [--max-poll-records 500] [--producer-properties k=v,k=v]
 * </pre>
 * {@code consume} is {@value #CONSUME}, {@code eos} is {@value #EOS}; the baseline (default: the first contender) is
 * what the per-round ratios divide by.
 */
public final class ThroughputMain {

    static final String CONSUME =
            "kafka-poll,coordinated-poll,container,spring-record,spring-annotated," + "starter-annotated";
    /** Without {@code spring-eos-record}: a transaction per record, ~20 records/s; name it with a small --records. */
    static final String EOS =
            "gk-plain,gk-eos-poll,gk-eos-100ms,container-eos-poll,container-eos-100ms," + "spring-eos-batch";

    /** Every contender by name. */
    static final Map<String, Contender> CONTENDERS = Map.ofEntries(
            Map.entry("kafka-poll", ConsumerContenders::kafkaPoll),
            Map.entry("coordinated-poll", ConsumerContenders::coordinatedPoll),
            Map.entry("container", ConsumerContenders::container),
            Map.entry("spring-record", SpringContainers::record),
            Map.entry("spring-annotated", SpringContainers::annotated),
            Map.entry("starter-annotated", StarterContender::annotated),
            Map.entry("gk-plain", EosContenders::coordinatedPlain),
            Map.entry("gk-eos-poll", EosContenders.coordinatedTransactional(Duration.ofMillis(1))),
            Map.entry("gk-eos-100ms", EosContenders.coordinatedTransactional(Duration.ofMillis(100))),
            Map.entry("container-eos-poll", EosContenders.containerTransactional(Duration.ofMillis(1))),
            Map.entry("container-eos-100ms", EosContenders.containerTransactional(Duration.ofMillis(100))),
            Map.entry("spring-eos-batch", SpringEos::batch),
            Map.entry("spring-eos-record", SpringEos::record));

    private ThroughputMain() {}

    /** The consumer settings every contender gets (Kafka's defaults, set explicitly). */
    static Map<String, Object> consumerSettings(int maxPollRecords) {
        return Map.of(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords,
                ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 52_428_800,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1_048_576,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
    }

    /** {@code consume}, {@code eos} or a comma-separated list of names; an unknown name fails. */
    static List<String> contenders(String spec) {
        String names = switch (spec) {
            case "consume" -> CONSUME;
            case "eos" -> EOS;
            default -> spec;
        };
        List<String> list = Arrays.asList(names.split(","));
        for (String name : list) {
            if (!CONTENDERS.containsKey(name)) {
                throw new IllegalArgumentException("unknown contender " + name + "; known: "
                        + new TreeMap<>(CONTENDERS).keySet() + ", or consume, eos");
            }
        }
        return list;
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(
                argv,
                Set.of(),
                Set.of(
                        "contenders",
                        "baseline",
                        "records",
                        "partitions",
                        "rounds",
                        "warmups",
                        "value-bytes",
                        "max-poll-records",
                        "producer-properties"));
        List<String> contenders = contenders(args.get("contenders", "consume"));
        String baseline = args.get("baseline", contenders.get(0));
        int records = args.getInt("records", 1_000_000);
        int partitions = args.getInt("partitions", 4);
        int rounds = args.getInt("rounds", 7);
        int warmups = args.getInt("warmups", 2);
        int valueBytes = args.getInt("value-bytes", 100);
        Map<String, Object> consumer = consumerSettings(args.getInt("max-poll-records", 500));
        Map<String, Object> producer = keyValues(args.get("producer-properties", ""));
        if (!contenders.contains(baseline)) {
            throw new IllegalArgumentException("--baseline " + baseline + " is not among the contenders");
        }
        // the offset watch's UNSTABLE_OFFSET_COMMIT answers (a transaction pending) are the expected answer, not news
        ((Logger) LoggerFactory.getLogger("org.apache.kafka.clients.admin")).setLevel(Level.ERROR);
        System.out.println("machine: " + Machine.describe());
        System.out.println("consumer settings (every contender): " + new TreeMap<>(consumer) + ", concurrency 1");
        System.out.println("producer settings (every writing contender): linger.ms=5, batch.size=65536 "
                + new TreeMap<>(producer));
        try (EmbeddedServers servers =
                        EmbeddedServers.builder().quietLogs(true).build().start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
            servers.kafka().createTopic(Run.IN, partitions);
            servers.kafka().createTopic(Run.OUT, partitions);
            produce(servers.bootstrapServers(), partitions, records, valueBytes);
            System.out.printf(
                    "topic %s: %d records of %d bytes on %d partitions%n", Run.IN, records, valueBytes, partitions);
            Map<String, List<Run.Result>> results = new LinkedHashMap<>();
            contenders.forEach(c -> results.put(c, new ArrayList<>()));
            try (GroupKeeper keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString(servers.zkConnectString())
                            .build())
                    .build()
                    .start()) {
                for (int round = 1 - warmups; round <= rounds; round++) { // rounds <= 0 warm the JIT up, not counted
                    List<String> order = new ArrayList<>(contenders);
                    Collections.rotate(order, Math.floorMod(round, order.size()));
                    for (String name : order) {
                        Run run = new Run(
                                servers.bootstrapServers(),
                                servers.zkConnectString(),
                                keeper,
                                admin,
                                name + "-" + round,
                                records,
                                partitions,
                                consumer,
                                producer,
                                new Sink(records),
                                Run.Footprint.now());
                        Run.Result r = CONTENDERS.get(name).run(run);
                        System.out.printf(
                                "round %d %-19s %,10.0f records/s  heap +%,6.1f MiB  threads %+d  "
                                        + "producers %d  load %.2f%s%n",
                                round,
                                name,
                                r.rate(),
                                r.heapBytes() / 1048576.0,
                                r.threads(),
                                r.producers(),
                                Machine.loadAverage(),
                                round <= 0 ? " (warm-up)" : "");
                        if (round > 0) {
                            results.get(name).add(r);
                        }
                    }
                }
            }
            System.out.println();
            printTable(results, baseline);
            System.out.printf("load average at the end: %.2f%n", Machine.loadAverage());
        }
    }

    private static void printTable(Map<String, List<Run.Result>> results, String baseline) {
        System.out.println("| contender | records/s median (range) | per-round ratio to " + baseline
                + ", median (range) | producers | heap held, MiB (median) | threads (median) |");
        System.out.println("|---|---|---|---|---|---|");
        List<Run.Result> base = results.get(baseline);
        for (Map.Entry<String, List<Run.Result>> e : results.entrySet()) {
            List<Run.Result> rs = e.getValue();
            if (rs.isEmpty()) {
                continue;
            }
            List<Double> rates = rs.stream().map(Run.Result::rate).sorted().toList();
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < rs.size(); i++) {
                ratios.add(rs.get(i).rate() / base.get(i).rate());
            }
            Collections.sort(ratios);
            System.out.printf(
                    "| %s | %,.0f (%,.0f–%,.0f) | %.2f (%.2f–%.2f) | %d | %.1f | %.0f |%n",
                    e.getKey(),
                    median(rates),
                    rates.get(0),
                    rates.get(rates.size() - 1),
                    median(ratios),
                    ratios.get(0),
                    ratios.get(ratios.size() - 1),
                    rs.get(0).producers(),
                    median(rs.stream().map(r -> r.heapBytes() / 1048576.0).toList()),
                    median(rs.stream().map(r -> (double) r.threads()).toList()));
        }
    }

    /** {@code k=v,k=v} to a map; empty for an empty string. */
    static Map<String, Object> keyValues(String spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String kv : spec.split(",")) {
            if (kv.isBlank()) {
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--producer-properties takes k=v,k=v; got " + kv);
            }
            m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return m;
    }

    static double median(List<Double> values) {
        List<Double> r = new ArrayList<>(values);
        Collections.sort(r);
        int n = r.size();
        return n % 2 == 1 ? r.get(n / 2) : (r.get(n / 2 - 1) + r.get(n / 2)) / 2;
    }

    private static void produce(String bootstrap, int partitions, int records, int valueBytes) throws Exception {
        String value = "v".repeat(valueBytes);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        "1",
                        "enable.idempotence",
                        false,
                        "linger.ms",
                        5,
                        "batch.size",
                        262144),
                new StringSerializer(),
                new StringSerializer())) {
            List<Future<?>> pending = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                pending.add(p.send(new ProducerRecord<>(Run.IN, i % partitions, "k" + i, value)));
                if (pending.size() == 10_000) {
                    for (Future<?> f : pending) {
                        f.get();
                    }
                    pending.clear();
                }
            }
            for (Future<?> f : pending) {
                f.get();
            }
        }
    }
}

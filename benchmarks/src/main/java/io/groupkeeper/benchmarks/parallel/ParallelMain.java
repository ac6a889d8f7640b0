package io.groupkeeper.benchmarks.parallel;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.kafka.container.internal.progress.ProgressCodec;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.zookeeper.StoreStats;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.internals.AppInfoParser;

/**
 * Key-ordered parallel processing side by side (issue 46 item 7), one command, one JVM, one in-process ZooKeeper and
 * KRaft broker: records/s with a handler that waits {@code --handler-ms} (10) and {@code --workers} (64) per instance,
 * for every scenario of {@code --partitions} × {@code --keys} (1,12 × 10000,8), each contender reading its scenario's
 * pre-produced topic from the start with a fresh group, measured over {@code --seconds} from its first processed
 * record; then the scale-out during load ({@link ScaleOut}). Prints one JSON line per scenario and contender, one per
 * scale-out, and a summary line last; writes {@code parallel.json} to {@code --out}.
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.parallel.ParallelMain [--quick]
 * </pre>
 */
public final class ParallelMain {

    static final String CONTENDERS = String.join(",", Contenders.ALL.keySet());

    private ParallelMain() {}

    public static void main(String[] argv) throws Exception {
        run(argv, System.out);
    }

    /** Runs the harness, printing to {@code out}; returns the written {@code parallel.json}. */
    public static Path run(String[] argv, PrintStream out) throws Exception {
        Args args = new Args(
                argv,
                Set.of("quick"),
                Set.of(
                        "contenders",
                        "partitions",
                        "keys",
                        "workers",
                        "handler-ms",
                        "seconds",
                        "rounds",
                        "warmups",
                        "scale-out",
                        "scale-out-records",
                        "out",
                        "pc-kafka-clients"));
        boolean quick = args.flag("quick");
        String contenderSpec = args.get("contenders", CONTENDERS);
        List<String> contenders = contenderSpec.equals("none") ? List.of() : Contenders.parse(contenderSpec);
        List<Integer> partitionCounts = ints(args.get("partitions", "1,12"));
        List<Integer> keyCounts = ints(args.get("keys", "10000,8"));
        int workers = args.getInt("workers", 64);
        int handlerMs = args.getInt("handler-ms", 10);
        int seconds = args.getInt("seconds", quick ? 4 : 15);
        int rounds = args.getInt("rounds", quick ? 1 : 3);
        int warmups = args.getInt("warmups", quick ? 0 : 1);
        String scaleSpec = args.get("scale-out", quick ? "pc-key,gk-key" : "pc-key,gk-key,pc-unordered,gk-unordered");
        List<String> scaleOut = scaleSpec.equals("none") ? List.of() : Contenders.parse(scaleSpec);
        int scaleRecords = args.getInt("scale-out-records", quick ? 120_000 : 240_000);
        Path outDir = args.path("out", "target/bench-results");
        Path pcJar = args.has("pc-kafka-clients") ? args.path("pc-kafka-clients", null) : defaultPcKafkaClients();
        if (Stream.concat(contenders.stream(), scaleOut.stream()).anyMatch(c -> c.startsWith("pc-"))
                && !Files.isReadable(pcJar)) {
            throw new IllegalArgumentException("parallel-consumer runs with kafka-clients 3.9.1 in a JVM of its own; "
                    + "no jar at " + pcJar + " (the build copies it to benchmarks/target/pc-lib; or pass "
                    + "--pc-kafka-clients FILE)");
        }
        Files.createDirectories(outDir);
        Path pcLog = outDir.resolve("parallel-consumer-jvm.log");
        if (workers < 1 || handlerMs < 1 || seconds < 1 || rounds < 1 || warmups < 0 || scaleRecords < 3) {
            throw new IllegalArgumentException("--workers, --handler-ms, --seconds and --rounds must be >= 1, "
                    + "--warmups >= 0, --scale-out-records >= 3");
        }
        // The fastest a contender can go is every worker busy: workers / handler time. Enough records for that.
        long perTopic = (long) Math.ceil(workers * 1000.0 / handlerMs * (seconds + 2) * 1.2);
        ObjectWriter json = Json.mapper().writer().without(SerializationFeature.INDENT_OUTPUT); // one line each
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("machine", Machine.describe());
        doc.put("arguments", String.join(" ", argv));
        doc.put("workers", workers);
        doc.put("handlerMs", handlerMs);
        doc.put("windowSeconds", seconds);
        doc.put(
                "parallelConsumer",
                "0.5.3.3 in a JVM of its own (-Xmx512m) with " + pcJar.getFileName()
                        + " first on its class path (0.5.3.3 fails on kafka-clients 4.4), against the same broker; "
                        + "maxConcurrency = workers, commitMode PERIODIC_CONSUMER_ASYNCHRONOUS, other options its defaults");
        doc.put("kafkaClients", AppInfoParser.getVersion() + " (every other contender, in this JVM)");
        out.println("machine: " + doc.get("machine"));
        List<Map<String, Object>> lines = new ArrayList<>();
        List<Map<String, Object>> scaleLines = new ArrayList<>();
        try (EmbeddedServers servers =
                EmbeddedServers.builder().quietLogs(true).build().start()) {
            for (int partitions : contenders.isEmpty() ? List.<Integer>of() : partitionCounts) {
                for (int keys : keyCounts) {
                    String topic = "in-p" + partitions + "-k" + keys;
                    servers.kafka().createTopic(topic, partitions);
                    KeyedRecords.produce(servers.bootstrapServers(), topic, null, perTopic, keys);
                    Setup setup = new Setup(
                            servers.bootstrapServers(),
                            servers.zkConnectString(),
                            topic,
                            partitions,
                            workers,
                            handlerMs,
                            pcJar,
                            pcLog);
                    Map<String, List<Map<String, Object>>> perContender = new LinkedHashMap<>();
                    contenders.forEach(c -> perContender.put(c, new ArrayList<>()));
                    for (int round = 1 - warmups; round <= rounds; round++) {
                        List<String> order = new ArrayList<>(contenders);
                        Collections.rotate(order, Math.floorMod(round, order.size()));
                        for (String name : order) {
                            Map<String, Object> r = measure(
                                    setup, name, topic + "-" + name + "-" + round, perTopic, handlerMs, seconds);
                            out.printf(
                                    "round %d %s %-13s %,8.0f records/s  load %.2f%s%n",
                                    round,
                                    topic,
                                    name,
                                    (double) r.get("rate"),
                                    Machine.loadAverage(),
                                    round <= 0 ? " (warm-up)" : "");
                            if (round > 0) {
                                perContender.get(name).add(r);
                            }
                        }
                    }
                    for (String name : contenders) {
                        Map<String, Object> line = aggregate(name, partitions, keys, perContender.get(name));
                        lines.add(line);
                        out.println(json.writeValueAsString(line));
                    }
                }
            }
            if (!scaleOut.isEmpty()) {
                String topic = "scale-out-p12-k10000";
                servers.kafka().createTopic(topic, 12);
                KeyedRecords.produce(servers.bootstrapServers(), topic, null, scaleRecords, 10_000);
                Setup setup = new Setup(
                        servers.bootstrapServers(),
                        servers.zkConnectString(),
                        topic,
                        12,
                        workers,
                        handlerMs,
                        pcJar,
                        pcLog);
                for (String name : scaleOut) {
                    Map<String, Object> line = ScaleOut.run(setup, name, scaleRecords, handlerMs, topic + "-" + name);
                    scaleLines.add(line);
                    out.println(json.writeValueAsString(line));
                }
            }
        }
        doc.put("results", lines);
        doc.put("scaleOut", scaleLines);
        Map<String, Object> done = doneValue(lines, scaleLines);
        doc.put("doneValue", done);
        doc.put("loadAverageAtEnd", Machine.loadAverage());
        String summary = Summary.line(lines, scaleLines, done);
        doc.put("summary", summary);
        Path file = outDir.resolve("parallel.json");
        Json.write(file, doc);
        out.println(summary);
        return file;
    }

    /**
     * The largest offset-node {@code "done"} value any groupkeeper contender wrote in the run, beside its bound by
     * construction, {@code ProgressCodec.maxEncodedLength(maxSpan)} at the container's default span.
     */
    private static Map<String, Object> doneValue(List<Map<String, Object>> lines, List<Map<String, Object>> scale) {
        int maxSpan = ProgressLimits.DEFAULT.maxSpan();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(
                "largestChars",
                Stream.concat(lines.stream(), scale.stream())
                        .filter(l -> l.containsKey("largestDoneChars"))
                        .mapToInt(l -> (Integer) l.get("largestDoneChars"))
                        .max()
                        .orElse(-1));
        m.put("maxSpan", maxSpan);
        m.put("boundChars", ProgressCodec.maxEncodedLength(maxSpan));
        return m;
    }

    /** benchmarks/target/pc-lib/kafka-clients-3.9.1.jar, beside this class's jar or classes directory. */
    private static Path defaultPcKafkaClients() throws Exception {
        Path here = Path.of(ParallelMain.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return here.getParent().resolve("pc-lib").resolve("kafka-clients-3.9.1.jar");
    }

    /** One contender on one scenario, one round: records/s over the window and, for groupkeeper, ZooKeeper's part. */
    private static Map<String, Object> measure(
            Setup setup, String name, String group, long records, int handlerMs, int seconds) throws Exception {
        Tally tally = new Tally(handlerMs, records, Contenders.LANES.get(name), true);
        Map<String, Object> r = new LinkedHashMap<>();
        try (Instance instance = Contenders.ALL.get(name).start(setup, group, tally)) {
            if (!tally.first.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException(name + " processed nothing in 2 minutes on " + setup.topic()
                        + (name.startsWith("pc-") ? "; its JVM's log: " + setup.pcLog() : ""));
            }
            StoreStats before = instance.stats();
            long c0 = tally.processed();
            long t0 = System.nanoTime();
            boolean all = tally.all.await(seconds, TimeUnit.SECONDS);
            long c1 = tally.processed();
            long t1 = all ? tally.lastNanos : System.nanoTime();
            StoreStats after = instance.stats();
            double window = (t1 - t0) / 1e9;
            r.put("rate", (c1 - c0) / window);
            if (before != null) {
                StoreStats d = after.minus(before);
                r.put("zkWritesPerSec", d.writes() / window);
                r.put("zkTransactionsPerSec", d.transactions() / window);
            }
            if (instance.largestDone() >= 0) {
                r.put("largestDoneChars", instance.largestDone());
            }
            r.put("orderViolations", tally.violations());
            r.put("maxInHandler", tally.maxInHandler());
            r.put("processedTwice", tally.duplicates());
        }
        return r;
    }

    private static Map<String, Object> aggregate(
            String name, int partitions, int keys, List<Map<String, Object>> rounds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", "p" + partitions + "-k" + keys);
        m.put("contender", name);
        m.put("partitions", partitions);
        m.put("keys", keys);
        List<Double> rates = rounds.stream().map(r -> (Double) r.get("rate")).toList();
        m.put("recordsPerSec", round(median(rates)));
        m.put("rounds", rates.stream().map(ParallelMain::round).toList());
        if (rounds.get(0).containsKey("zkTransactionsPerSec")) {
            m.put(
                    "zkWritesPerSec",
                    round2(median(rounds.stream()
                            .map(r -> (Double) r.get("zkWritesPerSec"))
                            .toList())));
            m.put(
                    "zkTransactionsPerSec",
                    round2(median(rounds.stream()
                            .map(r -> (Double) r.get("zkTransactionsPerSec"))
                            .toList())));
        }
        if (rounds.get(0).containsKey("largestDoneChars")) {
            m.put(
                    "largestDoneChars",
                    rounds.stream()
                            .mapToInt(r -> (Integer) r.get("largestDoneChars"))
                            .max()
                            .orElse(0));
        }
        m.put(
                "orderViolations",
                rounds.stream().mapToLong(r -> (Long) r.get("orderViolations")).sum());
        m.put(
                "maxInHandler",
                rounds.stream()
                        .mapToInt(r -> (Integer) r.get("maxInHandler"))
                        .max()
                        .orElse(0));
        m.put(
                "processedTwice",
                rounds.stream().mapToLong(r -> (Long) r.get("processedTwice")).sum());
        return m;
    }

    static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static List<Integer> ints(String spec) {
        List<Integer> list = new ArrayList<>();
        for (String s : spec.split(",")) {
            int v = Integer.parseInt(s.trim());
            if (v < 1) {
                throw new IllegalArgumentException("counts must be >= 1, got " + spec);
            }
            list.add(v);
        }
        return list;
    }
}

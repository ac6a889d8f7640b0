package io.groupkeeper.benchmarks.capacity;

import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.FencedCommitter;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.KafkaOffsetCommitter;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.benchmarks.support.Stats;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.TestingCluster;

/**
 * Commit capacity (issue 19 item 4): how many offsets per second fenced commits sustain with 1, 10 and 100 members
 * committing at once, each its own partitions in batches, on a real 3-node ZooKeeper ensemble (curator-test
 * {@link TestingCluster}, fsync on, one disk), against {@code KafkaConsumer.commitSync} with the same concurrency on
 * the in-process single-node broker. Each member is its own session (ZooKeeper) or consumer (Kafka) on its own
 * thread, committing its {@code --partitions-per-member} partitions as one batch, back to back (a closed loop: the
 * figure is what the servers sustain, not an offered load), after one untimed commit each and the warm-up. Writes {@code capacity.json} and a Markdown table
 * ({@code capacity.md}) and prints the table.
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.capacity.CommitCapacityMain
 *   [--members 1,10,100] [--partitions-per-member 10] [--seconds 10] [--warmup-seconds 3] [--zk-nodes 3]
 *   [--systems zookeeper,kafka] [--out DIR]
 * </pre>
 */
public final class CommitCapacityMain {

    private static final String TOPIC = "capacity";

    /** One committing member: {@code commitBatch} commits its batch once (called on its own thread). */
    record Committer(Runnable commitBatch, Runnable close) {}

    /** One cell of the table. */
    public record Row(
            String system,
            int members,
            int partitionsPerMember,
            double seconds,
            long commits,
            long offsets,
            double commitsPerSecond,
            double offsetsPerSecond,
            Stats latencyMs) {}

    private CommitCapacityMain() {}

    public static void main(String[] argv) throws Exception {
        run(argv, System.out);
        System.exit(0);
    }

    public static List<Row> run(String[] argv, PrintStream out) throws Exception {
        Args args = new Args(
                argv,
                Set.of(),
                Set.of("members", "partitions-per-member", "seconds", "warmup-seconds", "zk-nodes", "systems", "out"));
        List<Integer> memberCounts = new ArrayList<>();
        for (String m : args.get("members", "1,10,100").split(",")) {
            memberCounts.add(Integer.parseInt(m.trim()));
        }
        int perMember = args.getInt("partitions-per-member", 10);
        long measureMs = args.getInt("seconds", 10) * 1000L;
        long warmupMs = args.getInt("warmup-seconds", 3) * 1000L;
        int zkNodes = args.getInt("zk-nodes", 3);
        Set<String> systems = Set.of(args.get("systems", "zookeeper,kafka").split(","));
        Path outDir = args.path("out", "target/bench-results");
        int maxMembers = memberCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        int partitions = maxMembers * perMember;

        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", "commit-capacity");
        doc.put("command", "CommitCapacityMain " + String.join(" ", argv));
        doc.put("machine", Machine.describe());
        doc.put("zkNodes", zkNodes);
        doc.put("partitionsPerMember", perMember);
        List<Row> rows = new ArrayList<>();
        out.printf(
                Locale.ROOT,
                "commit capacity: members %s, %d partitions each, %d s measured after %d s, load %.2f%n",
                memberCounts,
                perMember,
                measureMs / 1000,
                warmupMs / 1000,
                Machine.loadAverage());
        if (systems.contains("zookeeper")) {
            try (TestingCluster cluster = new TestingCluster(zkNodes)) {
                cluster.start();
                String connect = cluster.getConnectString();
                try (ZooKeeperStore setup =
                        ZooKeeperStore.builder().connectString(connect).build()) {
                    setup.start();
                    setup.topics().ensureTopic(TOPIC, partitions);
                }
                for (int n : memberCounts) {
                    String group = "capacity-" + n;
                    rows.add(measure("zookeeper-" + zkNodes, n, perMember, warmupMs, measureMs, out, m -> {
                        ZooKeeperStore store =
                                ZooKeeperStore.builder().connectString(connect).build();
                        store.start();
                        GroupStore g = GroupStores.of(store, group);
                        g.ensureGroup("sticky");
                        FencedCommitter c = new FencedCommitter(g, "member-" + m, TOPIC, m * perMember, perMember);
                        return new Committer(() -> c.commit(0, perMember), () -> {
                            c.close();
                            store.close();
                        });
                    }));
                }
            }
        }
        if (systems.contains("kafka")) {
            // A topic of 1,000 partitions takes the single broker a while to lead: allow it more than the default 30 s.
            try (EmbeddedKafka kafka = EmbeddedKafka.builder()
                    .operationTimeout(Duration.ofMinutes(5))
                    .build()
                    .start()) {
                kafka.createTopic(TOPIC, partitions);
                for (int n : memberCounts) {
                    String group = "capacity-" + n;
                    rows.add(measure("kafka", n, perMember, warmupMs, measureMs, out, m -> {
                        KafkaOffsetCommitter c = new KafkaOffsetCommitter(
                                kafka.clientProperties(), group, TOPIC, m * perMember, perMember);
                        return new Committer(() -> c.commit(0, perMember), c::close);
                    }));
                }
            }
        }
        doc.put("rows", rows);
        doc.put("loadAverageAtEnd", Machine.loadAverage());
        Json.write(outDir.resolve("capacity.json"), doc);
        String table = table(rows, zkNodes);
        Files.writeString(outDir.resolve("capacity.md"), table);
        out.println();
        out.print(table);
        return rows;
    }

    interface CommitterFactory {
        Committer create(int memberIndex) throws Exception;
    }

    /** {@code members} threads commit back to back; counts only the {@code measureMs} after {@code warmupMs}. */
    static Row measure(
            String system,
            int members,
            int perMember,
            long warmupMs,
            long measureMs,
            PrintStream out,
            CommitterFactory factory)
            throws Exception {
        List<Committer> committers = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            committers.add(factory.create(m));
        }
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        long[] commits = new long[members];
        List<List<Double>> latencies = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch primed = new CountDownLatch(members);
        CountDownLatch done = new CountDownLatch(members);
        for (int m = 0; m < members; m++) {
            int i = m;
            List<Double> lat = new ArrayList<>();
            latencies.add(lat);
            Thread t = new Thread(
                    () -> {
                        try {
                            // One untimed commit first: Kafka's first commit finds the coordinator (and creates
                            // __consumer_offsets); ZooKeeper's opens the session's path to the leader.
                            committers.get(i).commitBatch().run();
                            primed.countDown();
                            while (!stop.get()) {
                                long t0 = System.nanoTime();
                                committers.get(i).commitBatch().run();
                                if (counting.get()) {
                                    commits[i]++;
                                    lat.add((System.nanoTime() - t0) / 1e6);
                                }
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                            primed.countDown();
                        } finally {
                            done.countDown();
                        }
                    },
                    "committer-" + system + "-" + m);
            t.setDaemon(true);
            t.start();
        }
        primed.await();
        Thread.sleep(warmupMs);
        counting.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(measureMs);
        counting.set(false);
        double seconds = (System.nanoTime() - t0) / 1e9;
        stop.set(true);
        done.await();
        committers.forEach(c -> c.close().run());
        if (!failures.isEmpty()) {
            throw new IllegalStateException(
                    system + " with " + members + " members failed: " + failures.get(0), failures.get(0));
        }
        long total = Arrays.stream(commits).sum();
        List<Double> all = new ArrayList<>();
        latencies.forEach(all::addAll);
        Row row = new Row(
                system,
                members,
                perMember,
                seconds,
                total,
                total * perMember,
                total / seconds,
                total * perMember / seconds,
                Stats.of(all));
        out.printf(
                Locale.ROOT,
                "  %-12s %3d members: %8.0f commits/s, %9.0f offsets/s, commit latency p50 %.2f ms, p95 %.2f"
                        + " ms (load %.2f)%n",
                system,
                members,
                row.commitsPerSecond(),
                row.offsetsPerSecond(),
                row.latencyMs().p50(),
                row.latencyMs().p95(),
                Machine.loadAverage());
        return row;
    }

    static String table(List<Row> rows, int zkNodes) {
        StringBuilder b = new StringBuilder();
        b.append(
                "| system | members | partitions per member | commits/s | offsets/s | commit latency p50 / p95 ms |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %.0f | %.0f | %.2f / %.2f |%n",
                    r.system().startsWith("zookeeper")
                            ? "groupkeeper fenced commit, " + zkNodes + "-node ensemble"
                            : "Kafka commitSync, 1 broker",
                    r.members(),
                    r.partitionsPerMember(),
                    r.commitsPerSecond(),
                    r.offsetsPerSecond(),
                    r.latencyMs().p50(),
                    r.latencyMs().p95()));
        }
        return b.toString();
    }
}

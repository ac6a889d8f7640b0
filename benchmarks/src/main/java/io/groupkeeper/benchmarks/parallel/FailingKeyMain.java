package io.groupkeeper.benchmarks.parallel;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A key that fails forever (issue 46, "a failing key"): one partition, the container in {@code KEY} ordering with
 * {@code --workers} (64) workers and a handler that waits {@code --handler-ms} (10); the handler throws for every
 * record of key {@code k0}, on every attempt, so each of them takes the error policy's {@code --attempts} (3,
 * {@code --backoff-ms} 50 apart) and goes to the dead-letter topic.
 *
 * <ol>
 *   <li><b>Throughput</b>, for each of {@code --keys} (10000,8): the healthy keys' records/s over {@code --seconds}
 *   (20) from the first processed record, without a failing key and with {@code k0} failing (fresh group each, the
 *   same pre-produced topic), and over the window's last fifth (a failing key holds the low-water mark: once the
 *   span, {@code ProgressLimits.DEFAULT}, is full, the partition waits for it).</li>
 *   <li><b>Heap</b>: {@code --records} (1,000,000) records of {@code --heap-keys} (10000) keys with {@code k0} failing
 *   forever, the used heap after {@code System.gc()} ({@link MemoryMXBean}) at the start and after each quarter.</li>
 * </ol>
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.parallel.FailingKeyMain
 * </pre>
 * Prints one line per measurement and a summary line last.
 */
public final class FailingKeyMain {

    static final String FAILING_KEY = "k0";

    private FailingKeyMain() {}

    public static void main(String[] argv) throws Exception {
        run(argv, System.out);
    }

    public static void run(String[] argv, PrintStream out) throws Exception {
        Args args = new Args(
                argv,
                Set.of(),
                Set.of("keys", "workers", "handler-ms", "seconds", "attempts", "backoff-ms", "records", "heap-keys"));
        List<Integer> keyCounts = new ArrayList<>();
        for (String s : args.get("keys", "10000,8").split(",")) {
            keyCounts.add(Integer.parseInt(s.trim()));
        }
        int workers = args.getInt("workers", 64);
        int handlerMs = args.getInt("handler-ms", 10);
        int seconds = args.getInt("seconds", 20);
        int attempts = args.getInt("attempts", 3);
        int backoffMs = args.getInt("backoff-ms", 50);
        int records = args.getInt("records", 1_000_000);
        int heapKeys = args.getInt("heap-keys", 10_000);
        if (workers < 1
                || handlerMs < 0
                || seconds < 5
                || attempts < 1
                || backoffMs < 0
                || records < 4
                || heapKeys < 2
                || keyCounts.stream().anyMatch(k -> k < 2)) {
            throw new IllegalArgumentException("--workers, --attempts >= 1, --seconds >= 5, --records >= 4, "
                    + "--keys and --heap-keys >= 2, --handler-ms and --backoff-ms >= 0");
        }
        out.println("machine: " + Machine.describe() + "; max heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB; limits " + ProgressLimits.DEFAULT);
        Settings settings = new Settings(workers, handlerMs, attempts, backoffMs);
        List<String> summary = new ArrayList<>();
        try (EmbeddedServers servers =
                EmbeddedServers.builder().quietLogs(true).build().start()) {
            for (int keys : keyCounts) {
                String topic = "fk-k" + keys;
                servers.kafka().createTopic(topic, 1);
                long perTopic = (long) Math.ceil(workers * 1000.0 / Math.max(1, handlerMs) * (seconds + 5) * 1.3);
                KeyedRecords.produce(servers.bootstrapServers(), topic, 0, perTopic, keys);
                Window healthy = throughput(servers, settings, topic, topic + "-healthy", false, seconds);
                Window failing = throughput(servers, settings, topic, topic + "-failing", true, seconds);
                double ratio = failing.rate / healthy.rate;
                out.printf(
                        "keys %,d: healthy keys %,.0f records/s without a failing key (last fifth %,.0f), %,.0f "
                                + "with %s failing forever (last fifth %,.0f): %.2f of it; %s records failed %,d "
                                + "attempts, dead-lettered %,d; load %.2f%n",
                        keys,
                        healthy.rate,
                        healthy.lastFifth,
                        failing.rate,
                        FAILING_KEY,
                        failing.lastFifth,
                        ratio,
                        FAILING_KEY,
                        failing.failedAttempts,
                        failing.deadLettered,
                        Machine.loadAverage());
                summary.add(String.format(
                        "keys=%d healthy=%.0f failing=%.0f ratio=%.2f lastFifthRatio=%.2f",
                        keys, healthy.rate, failing.rate, ratio, failing.lastFifth / healthy.lastFifth));
            }
            String topic = "fk-heap-k" + heapKeys;
            servers.kafka().createTopic(topic, 1);
            KeyedRecords.produce(servers.bootstrapServers(), topic, 0, records, heapKeys);
            out.printf(
                    "produced %,d records of %,d keys; heap run begins; load %.2f%n",
                    records, heapKeys, Machine.loadAverage());
            List<Long> heap = heap(servers, settings, topic, records, out);
            summary.add(String.format(
                    "heap-after-%d-records=%.1fMiB (start %.1fMiB, quarters %s MiB)",
                    records,
                    heap.get(heap.size() - 1) / 1048576.0,
                    heap.get(0) / 1048576.0,
                    heap.stream()
                            .skip(1)
                            .map(b -> String.format("%.1f", b / 1048576.0))
                            .toList()));
        }
        out.println("failing-key " + String.join(" ", summary));
    }

    record Settings(int workers, int handlerMs, int attempts, int backoffMs) {}

    /** The healthy keys' rate over the window, and over its last fifth; what happened to the failing key. */
    record Window(double rate, double lastFifth, long failedAttempts, long deadLettered) {}

    /** Counts what the handler did: healthy records (by time), failed attempts, dead letters. */
    private static final class Counts {
        final AtomicLong healthy = new AtomicLong();
        final AtomicLong failedAttempts = new AtomicLong();
        final AtomicLong deadLettered = new AtomicLong();
        final AtomicLong all = new AtomicLong();
        final CountDownLatch first = new CountDownLatch(1);
    }

    private static Window throughput(
            EmbeddedServers servers, Settings s, String topic, String group, boolean fail, int seconds)
            throws Exception {
        Counts counts = new Counts();
        try (Running r = start(servers, s, topic, group, fail, counts)) {
            if (!counts.first.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException(group + " processed nothing in 2 minutes");
            }
            long h0 = counts.healthy.get();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 800L); // the measurement window (a benchmark's clock, not a synchronisation)
            long h1 = counts.healthy.get();
            long t1 = System.nanoTime();
            Thread.sleep(seconds * 200L);
            long h2 = counts.healthy.get();
            long t2 = System.nanoTime();
            return new Window(
                    (h2 - h0) / ((t2 - t0) / 1e9),
                    (h2 - h1) / ((t2 - t1) / 1e9),
                    counts.failedAttempts.get(),
                    counts.deadLettered.get());
        }
    }

    /** Used heap after a full GC at the start and after every quarter of {@code records}. */
    private static List<Long> heap(EmbeddedServers servers, Settings s, String topic, int records, PrintStream out)
            throws Exception {
        Counts counts = new Counts();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        List<Long> used = new ArrayList<>();
        long t0 = System.nanoTime();
        try (Running r = start(servers, s, topic, topic + "-heap", true, counts)) {
            if (!counts.first.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the heap run processed nothing in 2 minutes");
            }
            for (int q = 0; q <= 4; q++) {
                long target = (long) records * q / 4;
                while (counts.all.get() < target) {
                    Thread.sleep(200); // polling a counter for the next checkpoint (a benchmark, not a test)
                    if (System.nanoTime() - t0 > TimeUnit.MINUTES.toNanos(60)) {
                        throw new IllegalStateException(
                                "only " + counts.all.get() + " of " + records + " records in 60 minutes");
                    }
                }
                System.gc();
                long bytes = memory.getHeapMemoryUsage().getUsed();
                used.add(bytes);
                out.printf(
                        "heap after %,d of %,d records (%s failed %,d attempts, dead-lettered %,d): %.1f MiB used "
                                + "after System.gc(); %.0f s; load %.2f%n",
                        counts.all.get(),
                        records,
                        FAILING_KEY,
                        counts.failedAttempts.get(),
                        counts.deadLettered.get(),
                        bytes / 1048576.0,
                        (System.nanoTime() - t0) / 1e9,
                        Machine.loadAverage());
            }
        }
        return used;
    }

    private interface Running extends AutoCloseable {
        @Override
        void close() throws Exception;
    }

    private static Running start(
            EmbeddedServers servers, Settings s, String topic, String group, boolean fail, Counts counts) {
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(servers.zkConnectString())
                .build();
        GroupKeeper keeper = GroupKeeper.builder().store(store).build().start();
        ListenerContainer<String, String> container;
        try {
            container = ListenerContainer.<String, String>builder(keeper)
                    .group(group)
                    .topics(topic)
                    .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .createDeadLetterTopics(true)
                    .consumerOptions(b -> b.startPosition(StartPosition.earliest()))
                    .ordering(Ordering.KEY)
                    .parallelism(s.workers())
                    .errorPolicy(ErrorPolicy.builder()
                            .otherwise(ErrorAction.retry(s.attempts(), Backoff.fixed(Duration.ofMillis(s.backoffMs())))
                                    .thenDeadLetter())
                            .build())
                    .listener(new io.groupkeeper.kafka.container.ContainerListener() {
                        @Override
                        public void deadLettered(
                                org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r,
                                String deadLetterTopic,
                                Throwable cause) {
                            counts.deadLettered.incrementAndGet();
                            counts.all.incrementAndGet();
                        }
                    })
                    .recordHandler(r -> {
                        if (s.handlerMs() > 0) {
                            Thread.sleep(s.handlerMs()); // the handler's work
                        }
                        counts.first.countDown();
                        if (fail && FAILING_KEY.equals(r.key())) {
                            counts.failedAttempts.incrementAndGet();
                            throw new IllegalStateException("key " + FAILING_KEY + " fails forever");
                        }
                        counts.healthy.incrementAndGet();
                        counts.all.incrementAndGet();
                    })
                    .build()
                    .start();
        } catch (RuntimeException e) {
            keeper.close();
            throw e;
        }
        return () -> {
            try {
                container.close();
            } finally {
                keeper.close();
            }
        };
    }
}

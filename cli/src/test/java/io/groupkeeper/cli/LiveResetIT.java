package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Invariant I4 through the CLI: {@code offsets reset --execute} on a group whose members are consuming real Kafka
 * records and committing every 20 ms. Each member is a small consumer loop (a {@code KafkaConsumer} with
 * {@code assign()}/{@code seek()} driven by a real {@link GroupMember}), recording everything it does in one global
 * order. After the reset returns:
 * <ul>
 *   <li>no commit that started after the reset writes a position from before it: every successful commit follows the
 *   member's adoption of the reset offset and is a position reached by consuming from there;</li>
 *   <li>each owner adopts the new offset no later than its first commit after the reset (within one commit interval)
 *   and consumes the record at exactly that offset next.</li>
 * </ul>
 * Backwards (rewind) and forwards (skip) resets are both checked.
 */
class LiveResetIT extends CliTestSupport {

    private static final int PARTITIONS = 4;
    private static final int RECORDS = 5000;
    private static final long COMMIT_INTERVAL_MS = 20;
    private static String topic;

    enum Kind {
        ASSIGNED,
        CONSUMED,
        COMMITTED,
        ADOPTED,
        REVOKED,
        LOST
    }

    /** One thing a member did; {@code startedSeq} is the sequence number taken before the call that produced it. */
    record Event(long seq, String member, Kind kind, TopicPartition tp, long offset, long startedSeq, long nanos) {}

    private static final AtomicLong SEQ = new AtomicLong();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final List<Runner> runners = new ArrayList<>();

    @BeforeAll
    static void data() {
        topic = unique("live");
        topic(topic, PARTITIONS);
        long now = System.currentTimeMillis();
        for (int p = 0; p < PARTITIONS; p++) {
            produce(topic, p, RECORDS, i -> now, 512);
        }
    }

    @AfterEach
    void stop() {
        runners.forEach(Runner::close);
    }

    private void record(String member, Kind kind, TopicPartition tp, long offset, long startedSeq) {
        events.add(new Event(SEQ.incrementAndGet(), member, kind, tp, offset, startedSeq, System.nanoTime()));
    }

    /** A member consuming its partitions from Kafka, committing every {@link #COMMIT_INTERVAL_MS}. */
    private final class Runner implements RebalanceListener, AutoCloseable {
        final String name;
        final GroupKeeper keeper;
        final GroupMember member;
        final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        final Thread thread;
        volatile boolean running = true;
        // Confined to the thread:
        KafkaConsumer<String, String> consumer;
        final Map<TopicPartition, Long> positions = new HashMap<>();

        Runner(String group, String name) {
            this.name = name;
            this.keeper = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString(zk())
                            .sessionTimeout(Duration.ofSeconds(10))
                            .build())
                    .build()
                    .start();
            this.member = keeper.member(group).topics(topic).listener(this).build();
            this.thread = new Thread(this::loop, "consumer-" + name);
            thread.start();
            member.start();
        }

        @Override
        public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
            tasks.add(() -> {
                partitions.forEach((tp, o) -> {
                    positions.put(tp, o.orElse(0));
                    record(name, Kind.ASSIGNED, tp, o.orElse(0), 0);
                });
                reassign();
            });
        }

        @Override
        public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
            CountDownLatch done = new CountDownLatch(1);
            tasks.add(() -> {
                commit();
                partitions.forEach(tp -> {
                    positions.remove(tp);
                    record(name, Kind.REVOKED, tp, -1, 0);
                });
                reassign();
                done.countDown();
            });
            try {
                done.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
            tasks.add(() -> {
                partitions.forEach(tp -> {
                    positions.remove(tp);
                    record(name, Kind.LOST, tp, -1, 0);
                });
                reassign();
            });
        }

        @Override
        public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
            tasks.add(() -> {
                long started = SEQ.incrementAndGet();
                SortedSet<TopicPartition> owned = new TreeSet<>(partitions);
                owned.retainAll(positions.keySet());
                handle(member.refresh(owned), started);
            });
        }

        private void loop() {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            // Small fetches (the producer wrote small batches), so a member's partitions advance side by side instead
            // of
            // one partition's whole buffered log being drained before the next one's.
            p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "512");
            consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
            long lastCommit = System.nanoTime();
            try {
                while (running) {
                    Runnable task;
                    while ((task = tasks.poll()) != null) {
                        task.run();
                    }
                    if (positions.isEmpty()) {
                        sleep(10);
                        continue;
                    }
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(10))) {
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        if (positions.containsKey(tp)) {
                            record(name, Kind.CONSUMED, tp, r.offset(), 0);
                            positions.put(tp, r.offset() + 1);
                        }
                    }
                    sleep(15); // "processing"
                    if (System.nanoTime() - lastCommit >= TimeUnit.MILLISECONDS.toNanos(COMMIT_INTERVAL_MS)) {
                        commit();
                        lastCommit = System.nanoTime();
                    }
                }
            } finally {
                consumer.close();
            }
        }

        private void commit() {
            if (positions.isEmpty()) {
                return;
            }
            long started = SEQ.incrementAndGet();
            handle(member.commit(new HashMap<>(positions)), started);
        }

        private void handle(CommitResult result, long started) {
            result.statuses().forEach((tp, status) -> {
                switch (status) {
                    case COMMITTED -> record(name, Kind.COMMITTED, tp, positions.get(tp), started);
                    case ADOPTED -> {
                        long o = result.adoptedOffsets().get(tp).orElse(0);
                        positions.put(tp, o);
                        consumer.seek(kafka(tp), o);
                        record(name, Kind.ADOPTED, tp, o, started);
                    }
                    case NOT_OWNED -> {
                        positions.remove(tp);
                        reassign();
                    }
                    default -> {}
                }
            });
        }

        private void reassign() {
            consumer.assign(positions.keySet().stream().map(LiveResetIT::kafka).toList());
            positions.forEach((tp, o) -> consumer.seek(kafka(tp), o));
        }

        @Override
        public void close() {
            try {
                member.close(); // revocation runs on our thread: final commit, then release
            } finally {
                running = false;
                try {
                    thread.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                keeper.close();
            }
        }
    }

    /** Paces the consumer loop (simulated processing time), not a wait for a condition. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static org.apache.kafka.common.TopicPartition kafka(TopicPartition tp) {
        return new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
    }

    private List<Event> of(TopicPartition tp) {
        return events.stream()
                .filter(e -> e.tp().equals(tp))
                .sorted((a, b) -> Long.compare(a.seq(), b.seq()))
                .toList();
    }

    private long lastCommitted(TopicPartition tp) {
        return of(tp).stream()
                .filter(e -> e.kind() == Kind.COMMITTED)
                .mapToLong(Event::offset)
                .reduce((a, b) -> b)
                .orElse(-1);
    }

    private static List<TopicPartition> partitions() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(topic, p));
        }
        return all;
    }

    /** Resets through the CLI while members run; checks I4 for every partition; returns the CLI output. */
    private String resetAndCheck(String group, long target) throws Exception {
        long before = SEQ.incrementAndGet();
        String out = gkb(
                        "offsets",
                        "reset",
                        "--group",
                        group,
                        "--all-topics",
                        "--to-offset",
                        String.valueOf(target),
                        "--execute")
                .ok();
        long after = SEQ.incrementAndGet();
        long returnedAt = System.nanoTime();
        assertThat(out).contains("Wrote " + PARTITIONS + " offset(s) in one ZooKeeper transaction");

        // Members move on from the new offset.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (TopicPartition tp : partitions()) {
                assertThat(of(tp))
                        .as("%s committed from the new offset", tp)
                        .anyMatch(
                                e -> e.kind() == Kind.COMMITTED && e.startedSeq() > after && e.offset() > target + 20);
            }
        });

        for (TopicPartition tp : partitions()) {
            List<Event> evs = of(tp);
            // The owner's adoption of the reset: the first ADOPTED after the reset began, at exactly the target.
            Event adopted = evs.stream()
                    .filter(e -> e.kind() == Kind.ADOPTED && e.seq() > before)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(tp + ": the owner never adopted the reset"));
            assertThat(adopted.offset()).as("%s adopted offset", tp).isEqualTo(target);
            assertThat(TimeUnit.NANOSECONDS.toMillis(adopted.nanos() - returnedAt))
                    .as("%s adopted within a moment", tp)
                    .isLessThan(5_000);

            // From the adoption on, the owner consumes target, target+1, ... without a gap or a leftover of its old
            // position.
            List<Long> consumed = evs.stream()
                    .filter(e -> e.kind() == Kind.CONSUMED
                            && e.seq() > adopted.seq()
                            && e.member().equals(adopted.member()))
                    .map(Event::offset)
                    .toList();
            assertThat(consumed).as("%s consumed after adoption", tp).isNotEmpty();
            for (int i = 0; i < consumed.size(); i++) {
                assertThat(consumed.get(i))
                        .as("%s: record %d consumed after adopting %d", tp, i, target)
                        .isEqualTo(target + i);
            }

            // Every commit after the adoption is a position reached by consuming from the target: never an older
            // in-memory position (such as a commit in flight when the reset landed). And every commit that began after
            // the reset returned came after the adoption: the owner adopted within one commit interval.
            for (Event c : evs) {
                if (c.kind() != Kind.COMMITTED) {
                    continue;
                }
                if (c.startedSeq() > after) {
                    assertThat(c.seq())
                            .as("%s: a commit begun after the reset succeeded before the owner adopted it: %s", tp, c)
                            .isGreaterThan(adopted.seq());
                }
                if (c.seq() < adopted.seq()) {
                    continue;
                }
                assertThat(c.member()).isEqualTo(adopted.member());
                long reachedBefore = evs.stream()
                        .filter(e -> e.kind() == Kind.CONSUMED
                                && e.seq() > adopted.seq()
                                && e.seq() < c.seq()
                                && e.member().equals(c.member()))
                        .mapToLong(e -> e.offset() + 1)
                        .max()
                        .orElse(target);
                assertThat(c.offset())
                        .as(
                                "%s: commit after adopting the reset is not a position consumed from %d (an "
                                        + "older in-memory position overwrote the reset?)",
                                tp, target)
                        .isBetween(target, reachedBefore);
            }
        }
        return out;
    }

    @Test
    void resetWhileMembersConsumeAndCommitIsAdoptedNeverOverwritten() throws Exception {
        String group = unique("live");
        runners.add(new Runner(group, "a"));
        runners.add(new Runner(group, "b"));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Map<String, Long> owners = runners.stream()
                    .flatMap(r -> r.member.assignment().stream().map(tp -> r.name))
                    .collect(Collectors.groupingBy(n -> n, Collectors.counting()));
            assertThat(owners).as("both members own partitions").containsOnlyKeys("a", "b");
            for (TopicPartition tp : partitions()) {
                assertThat(lastCommitted(tp)).as("%s progress", tp).isGreaterThan(200);
            }
        });
        long rebalanceEvents = events.stream()
                .filter(e -> e.kind() == Kind.REVOKED || e.kind() == Kind.LOST)
                .count();

        // Rewind: members are past offset 200; the reset moves them back to 50.
        String back = resetAndCheck(group, 50);
        assertThat(back).contains("note: 4 partition(s) have a live owner");

        // Skip ahead: to 4000 while they are a few hundred records in.
        resetAndCheck(group, 4000);
        for (TopicPartition tp : partitions()) {
            assertThat(stored(group, tp).getAsLong()).as("%s stored offset", tp).isGreaterThanOrEqualTo(4000);
        }
        assertThat(events.stream()
                        .filter(e -> e.kind() == Kind.REVOKED || e.kind() == Kind.LOST)
                        .count())
                .as("no rebalance during the resets")
                .isEqualTo(rebalanceEvents);
    }
}

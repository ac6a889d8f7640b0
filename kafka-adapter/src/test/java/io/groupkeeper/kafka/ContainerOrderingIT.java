package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The orderings on a real broker and real ZooKeeper (docs/parallel.md): many workers on one partition, per-key order,
 * everything completed, the low-water mark committed, a failing key blocking only itself, the asynchronous handler, and
 * a graceful handover between two members under {@code KEY}.
 */
class ContainerOrderingIT extends ContainerTestSupport {

    /** Per key: the offsets started, and whether one of its records was running when another started. */
    private static final class PerKey {
        final Map<String, List<Long>> started = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger concurrent = new AtomicInteger();
        final AtomicInteger maxConcurrent = new AtomicInteger();
        final AtomicInteger done = new AtomicInteger();

        void begin(ConsumerRecord<String, String> r) {
            if (running.computeIfAbsent(r.key(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            started.computeIfAbsent(r.key(), k -> new CopyOnWriteArrayList<>()).add(r.offset());
        }

        void end(ConsumerRecord<String, String> r) {
            concurrent.decrementAndGet();
            running.get(r.key()).decrementAndGet();
            done.incrementAndGet();
        }
    }

    private static void produceKeyed(String topic, int partition, int count, int keys) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, partition, "key" + (i % keys), "v" + i)));
        }
        for (var f : sent) {
            f.get();
        }
    }

    @Test
    void keyOrderingKeepsEachKeysOrderWithManyWorkersAndRandomHandlerDelays() throws Exception {
        String topic = newTopic(1);
        produceKeyed(topic, 0, 1_000, 20);
        GroupKeeper keeper = newKeeper();
        PerKey seen = new PerKey();
        String group = newName("key-order");
        started(container(keeper, group, topic)
                .ordering(Ordering.KEY)
                .parallelism(16)
                .recordHandler(r -> {
                    seen.begin(r);
                    // Pacing the handler's processing time (random: completions come in random order), not a wait.
                    TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(3_000));
                    seen.end(r);
                })
                .build());
        await().atMost(WAIT).until(() -> seen.done.get() >= 1_000);
        awaitStored(group, topic, 0, 1_000);
        assertThat(seen.overlaps.get())
                .as("two records of one key at the same time")
                .isZero();
        assertThat(seen.maxConcurrent.get()).as("keys ran in parallel").isGreaterThan(4);
        seen.started.forEach((key, offsets) -> {
            int k = Integer.parseInt(key.substring(3));
            List<Long> expected = new ArrayList<>();
            for (long o = k; o < 1_000; o += 20) {
                expected.add(o);
            }
            assertThat(offsets).as("%s in offset order, each once", key).isEqualTo(expected);
        });
    }

    @Test
    void unorderedCompletesEveryRecordOfEveryPartitionAndCommitsTheirEnds() throws Exception {
        String topic = newTopic(3);
        for (int p = 0; p < 3; p++) {
            produceKeyed(topic, p, 300, 1); // one key: only UNORDERED runs them in parallel
        }
        GroupKeeper keeper = newKeeper();
        Map<String, Integer> times = new ConcurrentHashMap<>();
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        String group = newName("unordered");
        started(container(keeper, group, topic)
                .ordering(Ordering.UNORDERED)
                .parallelism(8)
                .recordHandler(r -> {
                    maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                    TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(1_000)); // pacing, not a wait
                    times.merge(r.partition() + "/" + r.offset(), 1, Integer::sum);
                    concurrent.decrementAndGet();
                })
                .build());
        await().atMost(WAIT).until(() -> times.size() == 900);
        for (int p = 0; p < 3; p++) {
            awaitStored(group, topic, p, 300);
        }
        assertThat(times.values()).as("each once").containsOnly(1);
        assertThat(maxConcurrent.get()).as("records of one key ran in parallel").isGreaterThan(1);
    }

    @Test
    void aFailingKeyBlocksOnlyItsOwnKeyAndHoldsTheCommittedOffsetAtItsFirstRecord() throws Exception {
        String topic = newTopic(1);
        produceKeyed(topic, 0, 200, 10); // key3 at offsets 3, 13, 23, ...
        GroupKeeper keeper = newKeeper();
        Map<Long, Integer> handled = new ConcurrentHashMap<>();
        AtomicInteger badAttempts = new AtomicInteger();
        List<Long> badOffsets = new CopyOnWriteArrayList<>();
        String group = newName("failing-key");
        started(container(keeper, group, topic)
                .ordering(Ordering.KEY)
                .parallelism(4)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1_000_000, Backoff.fixed(Duration.ofMillis(20)))
                                .thenSkip())
                        .build())
                .recordHandler(r -> {
                    if (r.key().equals("key3")) {
                        badAttempts.incrementAndGet();
                        badOffsets.add(r.offset());
                        throw new IllegalStateException("key3 is down");
                    }
                    handled.merge(r.offset(), 1, Integer::sum);
                })
                .build());
        await().atMost(WAIT).until(() -> handled.size() == 180 && badAttempts.get() >= 5);
        awaitStored(group, topic, 0, 3);
        await().during(Duration.ofMillis(500))
                .atMost(WAIT)
                .until(() -> storedOffset(group, topic, 0).equals(OptionalLong.of(3)));
        assertThat(badOffsets)
                .as("the failing key's later records wait behind it")
                .containsOnly(3L);
        assertThat(handled.values()).containsOnly(1);
    }

    @Test
    void theAsynchronousHandlerCompletesOutOfOrderKeepsKeyOrderAndCommitsTheEnd() throws Exception {
        String topic = newTopic(1);
        produceKeyed(topic, 0, 600, 6);
        GroupKeeper keeper = newKeeper();
        ScheduledExecutorService later = Executors.newScheduledThreadPool(2);
        toClose.add(later::shutdownNow);
        PerKey seen = new PerKey();
        String group = newName("async");
        started(container(keeper, group, topic)
                .ordering(Ordering.KEY)
                .parallelism(64)
                .asyncHandler(r -> {
                    seen.begin(r);
                    CompletableFuture<Void> f = new CompletableFuture<>();
                    later.schedule(
                            () -> {
                                seen.end(r);
                                f.complete(null);
                            },
                            ThreadLocalRandom.current().nextInt(3),
                            TimeUnit.MILLISECONDS);
                    return f;
                })
                .build());
        await().atMost(WAIT).until(() -> seen.done.get() >= 600);
        awaitStored(group, topic, 0, 600);
        assertThat(seen.overlaps.get()).isZero();
        assertThat(seen.maxConcurrent.get())
                .as("keys in flight at once, on two threads")
                .isGreaterThan(2);
        seen.started.forEach((key, offsets) -> assertThat(offsets).isSorted().doesNotHaveDuplicates());
        assertThat(seen.started.values().stream().mapToInt(List::size).sum()).isEqualTo(600);
    }

    @Test
    void aGracefulHandoverBetweenTwoMembersUnderKeyReplaysNothing() throws Exception {
        // Two partitions of three keys each, eight workers: the keys of a partition run at once and drift apart (random
        // handler times), so at every handover records of one key are done above the next waiting record of another:
        // the done set must travel with the release, or they run again.
        String topic = newTopic(2);
        int perPartition = 900;
        for (int p = 0; p < 2; p++) {
            produceKeyed(topic, p, perPartition, 3);
        }
        String group = newName("handover");
        Map<String, Integer> times = new ConcurrentHashMap<>();
        AtomicInteger handled = new AtomicInteger();
        io.groupkeeper.kafka.container.RecordHandler<String, String> handler = r -> {
            TimeUnit.MICROSECONDS.sleep(2_000 + ThreadLocalRandom.current().nextInt(4_000)); // pacing, not a wait
            times.merge(r.partition() + "/" + r.offset(), 1, Integer::sum);
            handled.incrementAndGet();
        };
        ListenerContainer<String, String> first = started(container(newKeeper(), group, topic)
                .ordering(Ordering.KEY)
                .parallelism(8)
                .recordHandler(handler)
                .build());
        await().atMost(WAIT).until(() -> handled.get() >= 300);
        ListenerContainer<String, String> second = started(container(newKeeper(), group, topic)
                .ordering(Ordering.KEY)
                .parallelism(8)
                .recordHandler(handler)
                .build());
        await().atMost(WAIT).until(() -> !second.workers().get(0).owned().isEmpty());
        int atSecondHandover = handled.get() + 300;
        await().atMost(WAIT).until(() -> handled.get() >= atSecondHandover);
        assertThat(times.size()).as("the second handover happens under load").isLessThan(2 * perPartition);
        assertThat(first.stop(Duration.ofSeconds(30))).isTrue(); // a second graceful handover: all to the second
        await().atMost(WAIT).until(() -> times.size() == 2 * perPartition);
        for (int p = 0; p < 2; p++) {
            awaitStored(group, topic, p, perPartition);
        }
        long duplicates = times.values().stream().filter(n -> n > 1).count();
        assertThat(duplicates).as("records handled twice").isZero();
    }
}

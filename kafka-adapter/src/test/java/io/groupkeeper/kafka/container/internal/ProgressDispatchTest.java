package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.AsyncRecordHandler;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerMetrics;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.kafka.container.Ticker;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The container's record path without a broker: {@link ProgressDispatch} fed with fetched records, its handler calls
 * on the polling thread or a pool, outcomes through its queue, the error policy per record, handovers and losses, and
 * the low-water marks it hands to the commit. Each test names the behaviour that would break it.
 */
class ProgressDispatchTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final Predicate<TopicPartition> NONE_HELD = tp -> false;

    private final Control control = new Control();
    private final List<ExecutorService> pools = new ArrayList<>();

    @AfterEach
    void stopPools() {
        pools.forEach(ExecutorService::shutdownNow);
    }

    // ------------------------------------------------------------------ orderings

    @Test
    void partitionOrderingWithParallelismOneRunsEachRecordOnThePollingThreadInOffsetOrder() throws Exception {
        List<Long> seen = new ArrayList<>();
        Set<Thread> threads = new HashSet<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                1,
                r -> {
                    seen.add(r.offset());
                    threads.add(Thread.currentThread());
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a", "b", "a", "c", "b"));
        d.pump(NONE_HELD);
        assertThat(seen).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(threads).containsExactly(Thread.currentThread());
        assertThat(control.commits.get(P0)).isEqualTo(5L);
        assertThat(d.outstanding()).isZero();
    }

    @Test
    void inlineCallsStopAtTheBudgetSoThePollingThreadPollsAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ProgressDispatch<String, String> d =
                dispatch(Ordering.PARTITION, 1, r -> calls.incrementAndGet(), ErrorPolicy.defaults(), null);
        String[] keys = new String[ProgressDispatch.INLINE_BUDGET + 10];
        java.util.Arrays.fill(keys, "k");
        d.fetched(records(P0, 0, keys));
        d.pump(NONE_HELD);
        assertThat(calls.get()).isEqualTo(ProgressDispatch.INLINE_BUDGET);
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD))
                .as("records are ready: the poll must not wait")
                .isEqualTo(Duration.ZERO);
        d.leftPoll();
        d.pump(NONE_HELD);
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD)).isEqualTo(Duration.ofSeconds(5));
        d.leftPoll();
        assertThat(calls.get()).isEqualTo(keys.length);
    }

    @Test
    void inlineRunsStopAtAPartitionAHandlerHoldsAndTakeTheOtherPartitionsInTurn() throws Exception {
        Set<TopicPartition> paused = new HashSet<>();
        List<String> seen = new ArrayList<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                1,
                r -> {
                    seen.add(r.partition() + "@" + r.offset());
                    if (r.partition() == 0 && r.offset() == 1) {
                        paused.add(P0); // as ListenerContainer.pause(tp) from the handler
                    }
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a", "b", "c", "d"));
        d.fetched(records(P1, 0, "a", "b"));
        d.pump(paused::contains);
        assertThat(seen)
                .as("P0 held after its handler paused it; P1 goes on")
                .containsExactly("0@0", "0@1", "1@0", "1@1");
        assertThat(control.commits).containsEntry(P0, 2L).containsEntry(P1, 2L);
        paused.clear();
        d.pump(paused::contains);
        assertThat(seen).endsWith("0@2", "0@3");
        assertThat(control.commits).containsEntry(P0, 4L);
        assertThat(control.outcomes).containsOnlyKeys(0L, 1L, 2L, 3L);
    }

    @Test
    void aRecordThatFailsInAnInlineRunGoesTheErrorPolicysWayAndTheRunGoesOnAfterIt() throws Exception {
        List<Long> handled = new ArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config(
                        Ordering.PARTITION,
                        1,
                        r -> {
                            if (r.offset() == 2 && attempts.incrementAndGet() < 3) {
                                throw new IllegalStateException("not yet");
                            }
                            handled.add(r.offset());
                        },
                        null,
                        ErrorPolicy.builder()
                                .deserializationFailure(Recovery.SKIP)
                                .otherwise(ErrorAction.retry(3, Backoff.none()).thenSkip())
                                .build(),
                        ProgressLimits.DEFAULT,
                        null),
                null,
                new StringDeserializer(),
                new Deserializer<>() {
                    @Override
                    public String deserialize(String topic, byte[] data) {
                        String s = new String(data, StandardCharsets.UTF_8);
                        if (s.contains("x")) {
                            throw new IllegalArgumentException("not a value: " + s);
                        }
                        return s;
                    }
                },
                control,
                null,
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>());
        d.fetched(records(P0, 0, "a", "x", "b", "c"));
        pumpUntil(d, () -> Long.valueOf(4).equals(control.commits.get(P0)));
        assertThat(handled).containsExactly(0L, 2L, 3L);
        assertThat(attempts.get()).as("the third attempt at offset 2 passed").isEqualTo(3);
        assertThat(control.outcomes.get(1L)).contains("not a value");
        assertThat(control.outcomes.get(2L)).isEqualTo("handled");
        assertThat(d.outstanding()).isZero();
    }

    @Test
    void keyOrderingKeepsEachKeysRecordsInOffsetOrderOneAtATimeWithManyWorkersAndRandomDelays() throws Exception {
        Map<String, List<Long>> started = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.KEY,
                8,
                r -> {
                    if (running.computeIfAbsent(r.key(), k -> new AtomicInteger())
                                    .incrementAndGet()
                            > 1) {
                        overlaps.incrementAndGet();
                    }
                    maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                    started.computeIfAbsent(r.key(), k -> new CopyOnWriteArrayList<>())
                            .add(r.offset());
                    // Pacing the handler's processing time (random, so that completions come in random order): not a
                    // wait.
                    TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(2_000));
                    concurrent.decrementAndGet();
                    running.get(r.key()).decrementAndGet();
                },
                ErrorPolicy.defaults(),
                null);
        String[] keys = new String[400];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "k" + (i * 7 % 11);
        }
        d.fetched(records(P0, 0, keys));
        pumpUntil(d, () -> Long.valueOf(400).equals(control.commits.get(P0)));
        assertThat(control.marks.get(P0)).as("the committed mark only grows").isSorted();
        assertThat(overlaps.get())
                .as("records of one key running at the same time")
                .isZero();
        assertThat(maxConcurrent.get()).as("keys in parallel").isGreaterThan(1);
        for (var e : started.entrySet()) {
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) {
                if (keys[i].equals(e.getKey())) {
                    expected.add((long) i);
                }
            }
            assertThat(e.getValue())
                    .as("key %s in offset order, each once", e.getKey())
                    .isEqualTo(expected);
        }
    }

    @Test
    void unorderedRunsRecordsOfOneKeyInParallel() throws Exception {
        CountDownLatch allIn = new CountDownLatch(4);
        ProgressDispatch<String, String> d = dispatch(
                Ordering.UNORDERED,
                4,
                r -> {
                    allIn.countDown();
                    if (!allIn.await(
                            10, TimeUnit.SECONDS)) { // four records of one key at the same time, or none passes
                        throw new IllegalStateException("not four at once");
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1, Backoff.none()).thenSkip())
                        .build(),
                null);
        d.fetched(records(P0, 0, "same", "same", "same", "same"));
        pumpUntil(d, () -> Long.valueOf(4).equals(control.commits.get(P0)));
        assertThat(control.outcomes.values()).containsOnly("handled");
    }

    @Test
    void partitionOrderingWithParallelismRunsDifferentPartitionsInParallelAndEachInOrder() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        Map<Integer, List<Long>> seen = new ConcurrentHashMap<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                2,
                r -> {
                    seen.computeIfAbsent(r.partition(), p -> new CopyOnWriteArrayList<>())
                            .add(r.offset());
                    both.countDown();
                    if (!both.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("partitions not in parallel");
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1, Backoff.none()).thenSkip())
                        .build(),
                null);
        d.fetched(records(P0, 0, "a", "b", "c"));
        d.fetched(records(P1, 0, "a", "b", "c"));
        pumpUntil(
                d,
                () -> Long.valueOf(3).equals(control.commits.get(P0))
                        && Long.valueOf(3).equals(control.commits.get(P1)));
        assertThat(control.outcomes.values()).containsOnly("handled");
        assertThat(seen.get(0)).containsExactly(0L, 1L, 2L);
        assertThat(seen.get(1)).containsExactly(0L, 1L, 2L);
    }

    // ------------------------------------------------------------------ failures

    @Test
    void underKeyAFailingRecordBlocksOnlyItsKeyAndHoldsTheLowWaterMark() throws Exception {
        List<Long> handled = new CopyOnWriteArrayList<>();
        List<Long> failed = new CopyOnWriteArrayList<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.KEY,
                4,
                r -> {
                    if (r.key().equals("bad")) {
                        failed.add(r.offset());
                        throw new IllegalStateException("bad key");
                    }
                    handled.add(r.offset());
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1_000, Backoff.fixed(Duration.ofHours(1)))
                                .thenSkip())
                        .build(),
                null);
        d.fetched(records(P0, 0, "a", "bad", "b", "bad", "a", "c"));
        pumpUntil(d, () -> handled.size() == 4);
        assertThat(handled).containsExactlyInAnyOrder(0L, 2L, 4L, 5L);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
        assertThat(failed).containsExactly(1L); // offset 3 (same key) never started
    }

    @Test
    void underPartitionAFailingRecordBlocksThePartition() throws Exception {
        List<Long> handled = new CopyOnWriteArrayList<>();
        List<Long> failed = new CopyOnWriteArrayList<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                4,
                r -> {
                    if (r.key().equals("bad")) {
                        failed.add(r.offset());
                        throw new IllegalStateException("bad key");
                    }
                    handled.add(r.offset());
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(1_000, Backoff.fixed(Duration.ofHours(1)))
                                .thenSkip())
                        .build(),
                null);
        d.fetched(records(P0, 0, "a", "bad", "b", "c"));
        pumpUntil(d, () -> failed.size() == 1);
        d.pump(NONE_HELD);
        assertThat(handled).containsExactly(0L);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
    }

    @Test
    void aFailedRecordIsRetriedAfterItsBackoffAndTheMarkMovesOnWhenItSucceeds() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        long[] clock = {0};
        ProgressDispatch<String, String> d = dispatch(
                Ordering.KEY,
                1,
                r -> {
                    if (r.offset() == 0 && attempts.incrementAndGet() < 3) {
                        throw new IllegalStateException("not yet");
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(5, Backoff.fixed(Duration.ofSeconds(1)))
                                .thenSkip())
                        .build(),
                () -> clock[0]);
        d.fetched(records(P0, 0, "a", "b"));
        d.pump(NONE_HELD);
        assertThat(attempts.get()).isEqualTo(1);
        assertThat(control.commits.get(P0)).isEqualTo(0L); // b is done, a is not: the mark stays at a
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD)).isEqualTo(Duration.ofSeconds(1));
        d.leftPoll();
        clock[0] += Duration.ofMillis(999).toNanos();
        d.pump(NONE_HELD);
        assertThat(attempts.get()).as("not before its backoff").isEqualTo(1);
        clock[0] += Duration.ofMillis(1).toNanos();
        d.pump(NONE_HELD);
        clock[0] += Duration.ofSeconds(1).toNanos();
        d.pump(NONE_HELD);
        assertThat(attempts.get()).isEqualTo(3);
        assertThat(control.commits.get(P0)).isEqualTo(2L);
        assertThat(control.outcomes).containsEntry(0L, "handled");
    }

    @Test
    void afterTheLastAttemptASkippedRecordIsDoneWithItsFailure() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.UNORDERED,
                1,
                r -> {
                    calls.incrementAndGet();
                    throw new IllegalArgumentException("never");
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.none()).thenSkip())
                        .build(),
                null);
        d.fetched(records(P0, 0, "a"));
        d.pump(NONE_HELD);
        assertThat(calls.get()).isEqualTo(3);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
        assertThat(control.outcomes).containsEntry(0L, "java.lang.IllegalArgumentException: never");
    }

    @Test
    void aStoppedPartitionWaitsUntilResumedThenItsRecordGetsTheFullAttemptsAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                1,
                r -> {
                    if (r.offset() == 1) {
                        calls.incrementAndGet();
                        throw new IllegalStateException("down");
                    }
                },
                ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.none()).thenStopPartition())
                        .build(),
                null);
        d.fetched(records(P0, 0, "a", "b", "c"));
        Predicate<TopicPartition> held = control.stopped::contains; // as the worker holds a stopped partition
        d.pump(held);
        assertThat(calls.get()).isEqualTo(2);
        assertThat(control.stopped).containsExactly(P0);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
        d.pump(held);
        assertThat(calls.get()).as("held while stopped").isEqualTo(2);
        control.stopped.clear(); // resumed
        d.pump(held);
        assertThat(calls.get()).as("two attempts again, then stopped again").isEqualTo(4);
        assertThat(control.stopped).containsExactly(P0);
    }

    @Test
    void aRecordThatDoesNotDeserializeGoesToTheDeserializationRecovery() throws Exception {
        List<Long> handled = new ArrayList<>();
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config(
                        Ordering.KEY,
                        1,
                        r -> handled.add(r.offset()),
                        null,
                        ErrorPolicy.builder()
                                .deserializationFailure(Recovery.SKIP)
                                .build(),
                        ProgressLimits.DEFAULT,
                        null),
                null,
                new StringDeserializer(),
                new Deserializer<>() {
                    @Override
                    public String deserialize(String topic, byte[] data) {
                        String s = new String(data, StandardCharsets.UTF_8);
                        if (s.contains("x")) {
                            throw new IllegalArgumentException("not a value: " + s);
                        }
                        return s;
                    }
                },
                control,
                null,
                null,
                new ThreadLocal<>());
        d.fetched(records(P0, 0, "a", "x", "b"));
        d.pump(NONE_HELD);
        assertThat(handled).containsExactly(0L, 2L);
        assertThat(control.commits.get(P0)).isEqualTo(3L);
        assertThat(control.outcomes.get(1L)).contains("not a value");
    }

    @Test
    void anErrorFromTheHandlerFailsThePollingThread() throws Exception {
        ProgressDispatch<String, String> d = dispatch(
                Ordering.KEY,
                2,
                r -> {
                    throw new AssertionError("broken");
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a"));
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
            try {
                d.pump(NONE_HELD);
                return false;
            } catch (AssertionError e) {
                return e.getMessage().equals("broken");
            }
        });
        assertThat(control.commits.getOrDefault(P0, 0L)).isEqualTo(0L);
    }

    // ------------------------------------------------------------------ ownership

    @Test
    void aRevocationDrainsTheMovedPartitionWhileTheOthersGoOnThenHandsOverItsMark() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger p1Done = new AtomicInteger();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.KEY,
                2,
                r -> {
                    if (r.partition() == 0) {
                        release.await(); // held until the other partition has gone on during the drain
                    } else {
                        p1Done.incrementAndGet();
                    }
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a"));
        d.pump(NONE_HELD);
        d.fetched(records(P0, 1, "b"));
        d.fetched(records(P1, 0, "a", "a", "a", "a"));
        Thread releaser = new Thread(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> p1Done.get() == 4); // the partition that stays goes on
            release.countDown();
        });
        releaser.start();
        d.revoking(List.of(P0), Duration.ofSeconds(20), NONE_HELD);
        releaser.join();
        assertThat(p1Done.get()).isEqualTo(4);
        assertThat(control.commits.get(P0))
                .as("the drained record is in the final mark; the one not started is not")
                .isEqualTo(1L);
        d.fetched(records(P0, 5, "later")); // a new claim later starts afresh where its fetch starts
        pumpUntil(d, () -> Long.valueOf(6).equals(control.commits.get(P0)));
    }

    @Test
    void aRevocationThatTimesOutReleasesAtTheRecordInFlightAndItsLateOutcomeIsDropped() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ProgressDispatch<String, String> d = dispatch(
                Ordering.UNORDERED,
                2,
                r -> {
                    if (r.offset() == 1) {
                        release.await();
                    }
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a", "b", "c"));
        pumpUntil(d, () -> d.outstanding() == 1);
        d.revoking(List.of(P0), Duration.ofMillis(50), NONE_HELD);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
        int commits = control.commitCalls.get();
        release.countDown();
        pumpUntil(d, () -> d.outstanding() == 0);
        assertThat(control.commitCalls.get())
                .as("nothing of a released partition is committed")
                .isEqualTo(commits);
        assertThat(control.outcomes).doesNotContainKey(1L);
    }

    @Test
    void completionsAfterTheLossOfThePartitionAreDropped() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ProgressDispatch<String, String> d =
                dispatch(Ordering.KEY, 2, r -> release.await(), ErrorPolicy.defaults(), null);
        d.fetched(records(P0, 0, "a", "b"));
        d.pump(NONE_HELD);
        d.forget(P0); // lost
        release.countDown();
        pumpUntil(d, () -> d.outstanding() == 0);
        assertThat(control.outcomes).isEmpty();
        assertThat(control.commits.get(P0)).isEqualTo(0L);
    }

    @Test
    void aPartitionClaimedAgainAfterALossStartsNothingUntilTheCallsOfTheProgressLetGoAreBack() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> started = new CopyOnWriteArrayList<>(); // P0's
        List<Long> others = new CopyOnWriteArrayList<>(); // P1's
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                4,
                r -> {
                    if (r.partition() != 0) {
                        others.add(r.offset());
                        return;
                    }
                    if (running.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    started.add(r.offset());
                    try {
                        if (r.offset() == 5 && started.size() == 1) {
                            release.await(); // the first call of 5: still running when the partition is lost
                        }
                    } finally {
                        running.decrementAndGet();
                    }
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 5, "a", "b"));
        d.pump(NONE_HELD);
        await().atMost(Duration.ofSeconds(20)).until(() -> started.contains(5L));
        d.forget(P0); // lost (a connection in doubt), then claimed again at once from the stored 5
        control.resume.put(P0, io.groupkeeper.kafka.container.internal.progress.OffsetProgress.at(5));
        d.assigned(P0);
        d.fetched(records(P0, 5, "a", "b"));
        d.fetched(records(P1, 0, "x"));
        assertThat(d.waitsForStale(P0)).isTrue();
        assertThat(d.waitsForStale(P1)).as("a partition not let go").isFalse();
        pumpUntil(d, () -> others.contains(0L) && d.outstanding() == 1); // P1 goes on
        assertThat(started)
                .as("nothing of P0 while the lost progress's call runs")
                .containsExactly(5L);

        release.countDown();
        pumpUntil(d, () -> Long.valueOf(7).equals(control.commits.get(P0)));
        assertThat(started)
                .as("5 again under the new claim, after the first call returned")
                .containsExactly(5L, 5L, 6L);
        assertThat(overlaps.get()).isZero();
        assertThat(d.waitsForStale(P0)).isFalse();
    }

    @Test
    void stoppingDrainsWhatIsInFlightAndStartsNothingMore() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Long> handled = new CopyOnWriteArrayList<>();
        ProgressDispatch<String, String> d = dispatch(
                Ordering.PARTITION,
                2,
                r -> {
                    release.await();
                    handled.add(r.offset());
                },
                ErrorPolicy.defaults(),
                null);
        d.fetched(records(P0, 0, "a", "b"));
        d.pump(NONE_HELD);
        new Thread(release::countDown).start();
        assertThat(d.drain(Duration.ofSeconds(10))).isTrue();
        assertThat(handled).containsExactly(0L);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
    }

    @Test
    void theSameOffsetsFetchedAgainAfterASeekRestartTheProgressThere() throws Exception {
        List<Long> handled = new ArrayList<>();
        ProgressDispatch<String, String> d =
                dispatch(Ordering.PARTITION, 1, r -> handled.add(r.offset()), ErrorPolicy.defaults(), null);
        d.fetched(records(P0, 0, "a", "b"));
        d.pump(NONE_HELD);
        d.fetched(records(P0, 1, "b"));
        d.pump(NONE_HELD);
        assertThat(handled).containsExactly(0L, 1L, 1L);
    }

    // ------------------------------------------------------------------ the done set: resume and handover

    @Test
    void aClaimResumesFromTheStoredDoneSetSkipsWhatIsDoneAndCommitsItAtOnce() throws Exception {
        List<Long> handled = new ArrayList<>();
        ProgressDispatch<String, String> d =
                dispatch(Ordering.KEY, 1, r -> handled.add(r.offset()), ErrorPolicy.defaults(), null);
        control.resume.put(
                P0,
                new io.groupkeeper.kafka.container.internal.progress.OffsetProgress(
                        2, new java.util.TreeSet<>(List.of(4L, 5L)), new java.util.TreeMap<>()));
        d.assigned(P0);
        assertThat(control.progress.get(P0).done())
                .as("written from the claim on, before any fetch")
                .containsExactly(4L, 5L);
        d.fetched(records(P0, 2, "a", "b", "c", "d", "e", "f"));
        d.pump(NONE_HELD);
        assertThat(handled).containsExactly(2L, 3L, 6L, 7L);
        assertThat(control.commits.get(P0)).isEqualTo(8L);
        assertThat(control.progress.get(P0).done()).isEmpty();
    }

    @Test
    void aPartitionWithoutAStoredOffsetStartsAtItsFirstRecordAndIsCommittedFromThen() throws Exception {
        ProgressDispatch<String, String> d = dispatch(Ordering.KEY, 2, r -> {}, ErrorPolicy.defaults(), null);
        d.assigned(P0); // nothing stored: no progress, the position is committed until the first fetch
        assertThat(control.commits).doesNotContainKey(P0);
        d.fetched(records(P0, 40, "a"));
        assertThat(control.commits.get(P0))
                .as("at once: the position runs ahead of what is done")
                .isEqualTo(40L);
        pumpUntil(d, () -> Long.valueOf(41).equals(control.commits.get(P0)));
    }

    @Test
    void aGracefulHandoverUnderKeyCarriesTheDoneSetAndTheNextOwnerReplaysNothing() throws Exception {
        Map<Long, Integer> times = new ConcurrentHashMap<>();
        CountDownLatch slowKey = new CountDownLatch(1);
        RecordHandler<String, String> handler = r -> {
            if (r.offset() <= 1) {
                slowKey.await(); // the two lowest finish last, key k1 waits behind offset 1: done records above the
                // mark
            }
            times.merge(r.offset(), 1, Integer::sum);
        };
        String[] keys = new String[60];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i == 0 ? "slow" : "k" + (i % 5);
        }
        ProgressDispatch<String, String> first = dispatch(Ordering.KEY, 4, handler, ErrorPolicy.defaults(), null);
        first.fetched(records(P0, 0, keys));
        pumpUntil(first, () -> times.size() >= 30);
        new Thread(slowKey::countDown).start();
        first.revoking(List.of(P0), Duration.ofSeconds(10), NONE_HELD);
        var handedOver = control.progress.get(P0);
        assertThat(handedOver.done())
                .as("done above the mark travels with the release")
                .isNotEmpty();

        Control next = new Control();
        next.resume.put(
                P0,
                io.groupkeeper.kafka.container.internal.progress.ProgressCodec.resume(
                        handedOver.lowWater(),
                        io.groupkeeper.kafka.container.internal.progress.ProgressCodec.encode(handedOver)));
        ProgressDispatch<String, String> second = new ProgressDispatch<>(
                config(Ordering.KEY, 4, handler, null, ErrorPolicy.defaults(), ProgressLimits.DEFAULT, null),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                next,
                pool(4),
                null,
                new ThreadLocal<>());
        second.assigned(P0);
        String[] rest = java.util.Arrays.copyOfRange(keys, (int) handedOver.lowWater(), keys.length);
        second.fetched(records(P0, handedOver.lowWater(), rest));
        pumpUntil(second, () -> Long.valueOf(60).equals(next.commits.get(P0)));
        assertThat(times).hasSize(60);
        assertThat(times.values()).as("no record handled twice").containsOnly(1);
    }

    // ------------------------------------------------------------------ memory, wake-ups, asynchronous handler

    @Test
    void aFullBufferPausesFetchingOfThatPartitionOnlyAndResumesAtHalf() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config(
                        Ordering.KEY,
                        1,
                        r -> {
                            if (r.key().equals("slow")) {
                                release.await();
                            }
                        },
                        null,
                        ErrorPolicy.defaults(),
                        new ProgressLimits(100, 4, 1 << 20),
                        null),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                control,
                pool(1),
                null,
                new ThreadLocal<>());
        d.fetched(records(P0, 0, "slow", "slow", "slow", "slow"));
        d.fetched(records(P1, 0, "fast"));
        d.pump(NONE_HELD);
        assertThat(d.pauses()).containsExactly(P0);
        release.countDown();
        pumpUntil(d, () -> Long.valueOf(4).equals(control.commits.get(P0)));
        assertThat(d.pauses()).isEmpty();
    }

    @Test
    void anOutcomeDuringAPollWakesItOnceAndOneWaitingMakesThePollNotWait() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ProgressDispatch<String, String> d =
                dispatch(Ordering.UNORDERED, 2, r -> release.await(), ErrorPolicy.defaults(), null);
        d.fetched(records(P0, 0, "a"));
        d.pump(NONE_HELD);
        assertThat(control.wakeups.get()).as("no wake-up outside a poll").isZero();
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD)).isEqualTo(Duration.ofSeconds(5));
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> control.wakeups.get() == 1);
        d.leftPoll();
        assertThat(d.enterPoll(Duration.ofSeconds(5), NONE_HELD)).isEqualTo(Duration.ZERO);
        d.leftPoll();
        d.pump(NONE_HELD);
        assertThat(control.commits.get(P0)).isEqualTo(1L);
    }

    @Test
    void theAsynchronousHandlerKeepsParallelismRecordsInFlightWithoutThreadsAndCompletesOutOfOrder() throws Exception {
        List<CompletableFuture<Void>> stages = Collections.synchronizedList(new ArrayList<>());
        List<OptionalLong> tokens = new ArrayList<>();
        AsyncRecordHandler<String, String> handler = r -> {
            tokens.add(HandlerContext.fencingToken());
            CompletableFuture<Void> f = new CompletableFuture<>();
            stages.add(f);
            return f;
        };
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config(Ordering.UNORDERED, 16, null, handler, ErrorPolicy.defaults(), ProgressLimits.DEFAULT, null),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                control,
                pool(1),
                null,
                new ThreadLocal<>());
        String[] keys = new String[40];
        java.util.Arrays.fill(keys, "k");
        d.fetched(records(P0, 0, keys));
        d.pump(NONE_HELD);
        assertThat(stages).hasSize(16);
        assertThat(d.outstanding()).isEqualTo(16);
        assertThat(tokens).allMatch(t -> t.equals(OptionalLong.of(7)));
        for (int i = 15; i >= 1; i--) {
            stages.get(i).complete(null); // all but the first: the mark stays at 0
        }
        d.pump(NONE_HELD);
        assertThat(control.commits.get(P0)).isEqualTo(0L);
        assertThat(stages).hasSize(31);
        stages.get(0).complete(null);
        d.pump(NONE_HELD);
        assertThat(control.commits.get(P0)).isEqualTo(16L); // 16..30 in flight
        while (control.commits.get(P0) < 40) {
            List<CompletableFuture<Void>> now = List.copyOf(stages);
            now.forEach(f -> f.complete(null));
            d.pump(NONE_HELD);
        }
        assertThat(stages).hasSize(40);
    }

    @Test
    void aFailedAsynchronousStageGoesToTheErrorPolicy() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AsyncRecordHandler<String, String> handler = r -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new IllegalStateException("async failure"));
        };
        ProgressDispatch<String, String> d = new ProgressDispatch<>(
                config(
                        Ordering.KEY,
                        4,
                        null,
                        handler,
                        ErrorPolicy.builder()
                                .otherwise(ErrorAction.retry(3, Backoff.none()).thenSkip())
                                .build(),
                        ProgressLimits.DEFAULT,
                        null),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                control,
                pool(1),
                null,
                new ThreadLocal<>());
        d.fetched(records(P0, 0, "a"));
        pumpUntil(d, () -> Long.valueOf(1).equals(control.commits.get(P0)));
        assertThat(calls.get()).isEqualTo(3);
        assertThat(control.outcomes.get(0L)).contains("async failure");
    }

    // ------------------------------------------------------------------ helpers

    private ProgressDispatch<String, String> dispatch(
            Ordering ordering,
            int parallelism,
            RecordHandler<String, String> handler,
            ErrorPolicy policy,
            Ticker ticker) {
        return new ProgressDispatch<>(
                config(ordering, parallelism, handler, null, policy, ProgressLimits.DEFAULT, ticker),
                null,
                new StringDeserializer(),
                new StringDeserializer(),
                control,
                parallelism == 1 ? null : pool(parallelism),
                new InFlight(Thread.currentThread()),
                new ThreadLocal<>());
    }

    private ExecutorService pool(int n) {
        ExecutorService p = Executors.newFixedThreadPool(n);
        pools.add(p);
        return p;
    }

    private static ContainerConfig<String, String> config(
            Ordering ordering,
            int parallelism,
            RecordHandler<String, String> handler,
            AsyncRecordHandler<String, String> async,
            ErrorPolicy policy,
            ProgressLimits limits,
            Ticker ticker) {
        return config(ordering, parallelism, handler, null, async, policy, limits, ticker);
    }

    /** A container's options for these tests (also {@link ProgressDispatchSerialTest}'s): one of the three handlers. */
    static ContainerConfig<String, String> config(
            Ordering ordering,
            int parallelism,
            RecordHandler<String, String> handler,
            io.groupkeeper.kafka.container.BatchHandler<String, String> batch,
            AsyncRecordHandler<String, String> async,
            ErrorPolicy policy,
            ProgressLimits limits,
            Ticker ticker) {
        Supplier<StringDeserializer> sd = StringDeserializer::new;
        return new ContainerConfig<>(
                null,
                "g",
                Set.of("t"),
                Map.of(),
                Map.of(),
                sd,
                sd,
                false,
                "g",
                null,
                1,
                handler,
                batch,
                policy,
                t -> t + "-dlt",
                false,
                true,
                Duration.ofSeconds(30),
                Duration.ofMillis(500),
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                null,
                ticker == null ? Ticker.system() : ticker,
                ContainerMetrics.NONE,
                new ContainerListener() {},
                b -> {},
                null,
                null,
                null,
                Map.of(),
                io.groupkeeper.kafka.KafkaClientListener.NONE,
                ordering,
                parallelism,
                async,
                limits,
                false);
    }

    /** Pumps as the polling thread does until {@code done}. */
    private static void pumpUntil(ProgressDispatch<?, ?> d, java.util.concurrent.Callable<Boolean> done) {
        await().atMost(Duration.ofSeconds(20))
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    d.pump(NONE_HELD);
                    return done.call();
                });
    }

    /** Fetched records of {@code tp} from offset {@code from}, one per key, each valued {@code "v" + key}. */
    static ConsumerRecords<ByteBuffer, ByteBuffer> records(TopicPartition tp, long from, String... keys) {
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> list = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            ByteBuffer k = ByteBuffer.wrap(keys[i].getBytes(StandardCharsets.UTF_8));
            ByteBuffer v = ByteBuffer.wrap(("v" + keys[i]).getBytes(StandardCharsets.UTF_8));
            list.add(new ConsumerRecord<>(tp.topic(), tp.partition(), from + i, k, v));
        }
        Map<TopicPartition, List<ConsumerRecord<ByteBuffer, ByteBuffer>>> m = new LinkedHashMap<>();
        m.put(tp, list);
        return new ConsumerRecords<>(m, Map.of());
    }

    /** The worker's side, recorded (also {@link ProgressDispatchSerialTest}'s). */
    static class Control implements ProgressDispatch.Control {
        final Map<TopicPartition, Long> commits = new ConcurrentHashMap<>();
        final AtomicInteger commitCalls = new AtomicInteger();
        final Map<TopicPartition, List<Long>> marks = new ConcurrentHashMap<>();
        final Set<TopicPartition> stopped = ConcurrentHashMap.newKeySet();
        final Map<Long, String> outcomes = new ConcurrentHashMap<>();
        final AtomicInteger wakeups = new AtomicInteger();

        final Map<TopicPartition, io.groupkeeper.kafka.container.internal.progress.OffsetProgress> progress =
                new ConcurrentHashMap<>();
        final Map<TopicPartition, io.groupkeeper.kafka.container.internal.progress.OffsetProgress> resume =
                new ConcurrentHashMap<>();

        @Override
        public void commit(TopicPartition tp, io.groupkeeper.kafka.container.internal.progress.OffsetProgress p) {
            commitCalls.incrementAndGet();
            progress.put(tp, p);
            commits.put(tp, p.lowWater());
            marks.computeIfAbsent(tp, x -> new CopyOnWriteArrayList<>()).add(p.lowWater());
        }

        @Override
        public io.groupkeeper.kafka.container.internal.progress.OffsetProgress resumeFrom(TopicPartition tp) {
            return resume.get(tp);
        }

        @Override
        public void stopPartition(TopicPartition tp, long offset, String reason) {
            stopped.add(tp);
        }

        @Override
        public void outcome(TopicPartition tp, long offset, Throwable failure) {
            outcomes.put(offset, failure == null ? "handled" : failure.toString());
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
        }

        @Override
        public long token(TopicPartition tp) {
            return 7;
        }
    }
}

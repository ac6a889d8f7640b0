package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.MicrometerContainerMetrics;
import io.groupkeeper.kafka.container.StuckHandler;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Concurrency, pause/resume across a rebalance, the watchdog and a graceful stop, on real ZooKeeper + Kafka. */
class ContainerLifecycleIT extends ContainerTestSupport {

    @Test
    void workersSplitThePartitionsAndEveryRecordIsHandledOnce() {
        String topic = newTopic(4);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .concurrency(2)
                .recordHandler(seen.records::add)
                .build());
        await().atMost(WAIT)
                .until(() -> c.workers().stream().allMatch(w -> w.owned().size() == 2));
        List<String> values = produce(topic, 4, 200);

        await().atMost(WAIT).until(() -> seen.records.size() >= 200);
        assertThat(seen.values()).containsExactlyInAnyOrderElementsOf(values);
        Set<String> threads =
                seen.records.stream().map(r -> r.topic() + r.partition()).collect(Collectors.toSet());
        assertThat(threads).hasSize(4);
        Set<String> members = c.workers().stream().map(WorkerStatus::member).collect(Collectors.toSet());
        assertThat(members).hasSize(2);
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
    }

    @Test
    void pausedPartitionsFetchNothingStayPausedWhileOwnedAcrossARebalanceAndMovedOnesAreConsumedByTheNewOwner() {
        String topic = newTopic(4);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seenA = new Seen();
        Seen seenB = new Seen();
        ListenerContainer<String, String> a = started(container(keeper, group, topic)
                .recordHandler(seenA.records::add)
                .build());
        await().atMost(WAIT).until(() -> a.workers().get(0).owned().size() == 4);
        List<String> first = produce(topic, 4, 40);
        await().atMost(WAIT).until(() -> seenA.records.size() == 40);

        a.pause();
        await().atMost(WAIT).until(() -> a.pausedPartitions().size() == 4);
        List<String> second = produce(topic, 4, 40); // nothing of these reaches A while paused

        ListenerContainer<String, String> b = started(container(newKeeper(), group, topic)
                .recordHandler(seenB.records::add)
                .build());
        await().atMost(WAIT)
                .until(() -> a.workers().get(0).owned().size() == 2
                        && b.workers().get(0).owned().size() == 2);
        Set<TopicPartition> keptByA = a.workers().get(0).owned();
        // B reads the moved partitions' records from where A stopped; A keeps its two paused and fetches nothing.
        await().atMost(WAIT).until(() -> seenB.records.size() == 20);
        assertThat(a.pausedPartitions()).isEqualTo(keptByA);
        assertThat(seenA.records).hasSize(40);
        assertThat(seenB.records)
                .allSatisfy(r -> assertThat(keptByA).doesNotContain(new TopicPartition(r.topic(), r.partition())));

        a.resume();
        await().atMost(WAIT).until(() -> seenA.records.size() == 60);
        assertThat(a.pausedPartitions()).isEmpty();
        List<String> all = new java.util.ArrayList<>(seenA.values());
        all.addAll(seenB.values());
        List<String> expected = new java.util.ArrayList<>(first);
        expected.addAll(second);
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected); // each exactly once
    }

    @Test
    void onePausedPartitionHandsBackItsFetchedRecordsAndResumesWhereItStopped() {
        String topic = newTopic(2);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(
                container(keeper, group, topic).recordHandler(seen.records::add).build());
        await().atMost(WAIT).until(() -> c.workers().get(0).owned().size() == 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        assertThat(c.pause(p0)).isTrue();
        assertThat(c.pause(new TopicPartition(topic, 7))).isFalse();
        await().atMost(WAIT).until(() -> c.pausedPartitions().equals(Set.of(p0)));
        produce(topic, 2, 20); // 10 each
        await().atMost(WAIT).until(() -> seen.records.size() == 10);
        assertThat(seen.records).allSatisfy(r -> assertThat(r.partition()).isEqualTo(1));

        c.resume(p0);
        await().atMost(WAIT).until(() -> seen.records.size() == 20);
        assertThat(seen.records.stream()
                        .map(r -> r.topic() + r.partition() + "@" + r.offset())
                        .distinct())
                .hasSize(20);
    }

    @Test
    void theWatchdogReportsAStuckHandlerWithItsStackAndNeverEvictsIt() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<StuckHandler> reported = new AtomicReference<>();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .watchdog(Duration.ofMillis(300))
                .metrics(new MicrometerContainerMetrics(registry))
                .listener(new ContainerListener() {
                    @Override
                    public void handlerStuck(StuckHandler stuck) {
                        reported.set(stuck);
                    }
                })
                .recordHandler(r -> {
                    if (r.value().endsWith("slow")) {
                        slowHandler(release);
                    }
                    seen.records.add(r);
                })
                .build());
        await().atMost(WAIT).until(() -> c.workers().get(0).owned().size() == 1);
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, "k", "slow"))
                .get();

        await().atMost(WAIT).until(() -> reported.get() != null);
        StuckHandler stuck = reported.get();
        assertThat(stuck.partition()).isEqualTo(new TopicPartition(topic, 0));
        assertThat(stuck.offset()).isZero();
        assertThat(stuck.running()).isGreaterThan(Duration.ofMillis(300));
        assertThat(stuck.stack()).anySatisfy(e -> assertThat(e.getMethodName()).isEqualTo("slowHandler"));
        assertThat(registry.get("groupkeeper.container.handlers.stuck")
                        .tags("group", group)
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(registry.get("groupkeeper.container.handler.stuck").counter().count())
                .isEqualTo(1.0);
        assertThat(c.stuckHandlers()).hasSize(1);
        assertThat(c.workers().get(0).owned()).containsExactly(new TopicPartition(topic, 0)); // not evicted

        release.countDown();
        produce(topic, 1, 3);
        await().atMost(WAIT).until(() -> seen.records.size() == 4);
        assertThat(seen.count("slow")).isEqualTo(1);
        // The worker counts a partition's records once their batch returned, a moment after the handler saw the last.
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(registry.get("groupkeeper.container.handlers.stuck")
                            .gauge()
                            .value())
                    .isZero();
            assertThat(registry.get("groupkeeper.container.records")
                            .tags("group", group)
                            .counter()
                            .count())
                    .isEqualTo(4.0);
        });
    }

    private static void slowHandler(CountDownLatch release) throws InterruptedException {
        release.await(60, TimeUnit.SECONDS);
    }

    @Test
    void aGracefulStopWithRecordsInFlightCommitsExactlyWhatWasHandledAndTheNextOwnerGetsTheRest() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        Seen first = new Seen();
        AtomicInteger calls = new AtomicInteger(); // two workers: a check of first.records' size could skip 50
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> values = produce(topic, 2, 400);
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .concurrency(2)
                .recordHandler(r -> {
                    if (calls.incrementAndGet() == 51) { // exactly one call holds its worker, after 50 handled
                        inHandler.countDown();
                        release.await(60, TimeUnit.SECONDS);
                    }
                    first.records.add(r);
                })
                .build());
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(() -> c.stop(Duration.ofSeconds(30)));
        await().atMost(WAIT).until(() -> c.state() == ContainerState.STOPPING);
        release.countDown();
        assertThat(stopped.get(60, TimeUnit.SECONDS)).isTrue();
        assertThat(c.state()).isEqualTo(ContainerState.STOPPED);
        assertThat(first.records.size()).isLessThan(400); // stopped mid-stream

        // What was committed is exactly what was handled, per partition: nothing lost, nothing to repeat.
        Map<Integer, Long> handledPerPartition =
                first.records.stream().collect(Collectors.groupingBy(r -> r.partition(), Collectors.counting()));
        for (int p = 0; p < 2; p++) {
            assertThat(storedOffset(group, topic, p))
                    .isEqualTo(OptionalLong.of(handledPerPartition.getOrDefault(p, 0L)));
        }
        Seen second = new Seen();
        started(container(newKeeper(), group, topic)
                .recordHandler(second.records::add)
                .build());
        await().atMost(WAIT).until(() -> first.records.size() + second.records.size() >= 400);
        Set<String> union = new HashSet<>(first.values());
        union.addAll(second.values());
        assertThat(union).containsExactlyInAnyOrderElementsOf(values);
        assertThat(first.records.size() + second.records.size()).isEqualTo(400);
    }

    /** An Error the handler path does not treat (the policy sees only Exceptions): the worker dies of it. */
    static final class FatalError extends Error {
        private static final long serialVersionUID = 1L;

        FatalError(String message) {
            super(message);
        }
    }

    @Test
    void aWorkerKilledByAnErrorFailsTheContainerAndCommitsNothingPastWhatItHandled() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        send(topic, 0, "a", "b", "fatal", "c", "d");
        AtomicReference<Throwable> reported = new AtomicReference<>();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .listener(new ContainerListener() {
                    @Override
                    public void workerFailed(String member, Throwable failure) {
                        reported.set(failure);
                    }
                })
                .recordHandler(r -> {
                    if (r.value().equals("fatal")) {
                        throw new FatalError("handler died on " + r.value());
                    }
                    seen.records.add(r);
                })
                .build());

        await().atMost(WAIT).until(() -> c.state() == ContainerState.FAILED);
        assertThat(c.failure()).containsInstanceOf(FatalError.class);
        // The state moves first, then the listener hears of it and the worker's thread ends.
        await().atMost(WAIT).until(() -> reported.get() != null);
        assertThat(reported.get()).isSameAs(c.failure().orElseThrow());
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(c.workers())
                        .singleElement()
                        .satisfies(w -> assertThat(w.running()).isFalse()));
        assertThat(seen.values()).containsExactly("a", "b");
        // The dead worker's consumer closed (final commit, partition released) before the state moved: the fatal
        // record and the ones fetched after it were not done, so the commit stops before them.
        assertThat(storedOffset(group, topic, 0)).isEqualTo(OptionalLong.of(2));
        assertThat(ownerExists(group, topic, 0)).isFalse();
        assertThat(c.stop(Duration.ofSeconds(5))).isTrue();
        assertThat(c.state()).isEqualTo(ContainerState.FAILED); // a stop does not hide the failure

        Seen next = new Seen();
        started(container(newKeeper(), group, topic)
                .recordHandler(next.records::add)
                .build());
        awaitStored(group, topic, 0, 5);
        assertThat(next.values()).containsExactly("fatal", "c", "d"); // nothing lost, nothing repeated
    }

    @Test
    void aStopWhoseDeadlineAHandlerOverrunsReturnsFalseAtTheDeadlineAndTheWorkerLeavesWhenTheHandlerReturns()
            throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        send(topic, 0, "r0", "r1", "r2", "stuck", "r4", "r5", "r6");
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .recordHandler(r -> {
                    if (r.value().equals("stuck")) {
                        inHandler.countDown();
                        overrunningHandler(release);
                    }
                    seen.records.add(r);
                })
                .build());
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
        var warnings = captureWarnings(io.groupkeeper.kafka.container.internal.DefaultListenerContainer.class);
        try {
            long t0 = System.nanoTime();
            boolean finished = c.stop(Duration.ofMillis(1500));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);

            assertThat(finished).isFalse();
            assertThat(took).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(10));
            assertThat(warnings(warnings))
                    .singleElement()
                    .satisfies(w -> assertThat(w)
                            .contains("did not finish within the stop deadline of 1500 ms")
                            .contains("overrunningHandler"));
        } finally {
            stopCapture(warnings, io.groupkeeper.kafka.container.internal.DefaultListenerContainer.class);
        }
        // Meanwhile: still STOPPING, the partition still owned by the busy worker, nothing committed past r2.
        assertThat(c.state()).isEqualTo(ContainerState.STOPPING);
        assertThat(ownerExists(group, topic, 0)).isTrue();
        assertThat(c.workers())
                .singleElement()
                .satisfies(w -> assertThat(w.running()).isTrue());
        assertThat(storedOffset(group, topic, 0).orElse(0)).isLessThanOrEqualTo(3);

        release.countDown(); // the handler returns: the worker hands back r4.., commits and leaves
        await().atMost(WAIT).until(() -> c.state() == ContainerState.STOPPED);
        assertThat(storedOffset(group, topic, 0)).isEqualTo(OptionalLong.of(4));
        assertThat(ownerExists(group, topic, 0)).isFalse();
        assertThat(seen.values()).containsExactly("r0", "r1", "r2", "stuck");

        Seen next = new Seen();
        started(container(newKeeper(), group, topic)
                .recordHandler(next.records::add)
                .build());
        awaitStored(group, topic, 0, 7);
        assertThat(next.values()).containsExactly("r4", "r5", "r6");
    }

    /** A stop() that returned true while start() was on its way (here: checking the dead-letter topics) wins. */
    @Test
    void aStopWhileTheContainerIsStartingLeavesItStoppedWithNoWorker() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        send(topic, 0, "a", "b");
        CountDownLatch inStart = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Seen seen = new Seen();
        Thread testThread = Thread.currentThread();
        ListenerContainer<String, String> c = container(newKeeper(), group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.deadLetter())
                        .build())
                .deadLetterTopics(source -> {
                    // build() checks the names on this thread; start() names them again, on its own, before it starts
                    // any worker: that call is held.
                    if (Thread.currentThread() != testThread) {
                        inStart.countDown();
                        awaitQuietly(proceed);
                    }
                    return source + ".DLT";
                })
                .recordHandler(seen.records::add)
                .build();
        toClose.add(c);
        CompletableFuture<ListenerContainer<String, String>> starting = CompletableFuture.supplyAsync(c::start);
        assertThat(inStart.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(c.state()).isEqualTo(ContainerState.STARTING);

        assertThat(c.stop(Duration.ofSeconds(5))).as("nothing to wait for yet").isTrue();
        proceed.countDown();
        starting.get(60, TimeUnit.SECONDS);

        assertThat(c.state()).isEqualTo(ContainerState.STOPPED);
        assertThat(c.workers()).isEmpty();
        assertThat(ownerExists(group, topic, 0)).isFalse();
        assertThat(seen.records).isEmpty();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void overrunningHandler(CountDownLatch release) throws InterruptedException {
        release.await(60, TimeUnit.SECONDS);
    }
}

package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One partition's progress, example by example (no servers, no threads): dispatching per ordering, the low-water mark,
 * the span bound, retries and their attempts, resuming from a committed progress, stale tickets, the buffer caps and
 * the handover. The random completion orders are in {@link PartitionProgressPropertiesTest}.
 */
class PartitionProgressTest {

    private static final ProgressLimits ROOMY = new ProgressLimits(1_000, 10_000, 1L << 30);

    /** Records {@code from..to} (inclusive), keys in turn from {@code keys}, 10 bytes each; the value names both. */
    private static List<Fetched<String>> records(long from, long to, String... keys) {
        List<Fetched<String>> l = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            String key = keys.length == 0 ? null : keys[(int) ((o - from) % keys.length)];
            l.add(new Fetched<>(o, key, 10, key + "@" + o));
        }
        return l;
    }

    private static Fetched<String> record(long offset, String key) {
        return new Fetched<>(offset, key, 10, key + "@" + offset);
    }

    private static List<Long> offsets(List<Ticket<String>> tickets) {
        return tickets.stream().map(Ticket::offset).toList();
    }

    private static <R> PartitionProgress<R> fresh(Ordering o, ProgressLimits limits, long from) {
        return new PartitionProgress<>(o, limits, 7, OffsetProgress.at(from));
    }

    private static Ticket<String> only(List<Ticket<String>> tickets) {
        assertThat(tickets).hasSize(1);
        return tickets.get(0);
    }

    // ------------------------------------------------------------------ orderings

    @Test
    void partitionOrderingRunsOneRecordAtATimeInOffsetOrderWhateverTheCapacity() {
        PartitionProgress<String> p = fresh(Ordering.PARTITION, ROOMY, 100);
        p.append(records(100, 104, "a", "b", "c"));
        List<Long> started = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Ticket<String> t = only(p.dispatch(64, 0));
            assertThat(p.dispatch(64, 0)).as("nothing else while %s runs", t).isEmpty();
            started.add(t.offset());
            assertThat(p.complete(t)).isTrue();
        }
        assertThat(started).containsExactly(100L, 101L, 102L, 103L, 104L);
        assertThat(p.lowWater()).isEqualTo(105);
        assertThat(p.snapshot()).isEqualTo(OffsetProgress.at(105));
    }

    @Test
    void keyOrderingRunsDifferentKeysInParallelAndEachKeyInOffsetOrder() {
        PartitionProgress<String> p = fresh(Ordering.KEY, ROOMY, 0);
        p.append(List.of(
                record(0, "a"), record(1, "a"), record(2, "b"), record(3, "c"), record(4, "b"), record(5, "a")));
        List<Ticket<String>> first = p.dispatch(64, 0);
        assertThat(offsets(first)).containsExactly(0L, 2L, 3L); // the first record of each key
        assertThat(p.dispatch(64, 0)).isEmpty();
        // b@2 completes: b@4 may start; a@1 still waits for a@0
        assertThat(p.complete(first.get(1))).isTrue();
        assertThat(offsets(p.dispatch(64, 0))).containsExactly(4L);
        assertThat(p.complete(first.get(0))).isTrue();
        Ticket<String> a1 = only(p.dispatch(64, 0));
        assertThat(a1.offset()).isEqualTo(1);
        assertThat(a1.record()).isEqualTo("a@1");
        assertThat(p.complete(a1)).isTrue();
        assertThat(offsets(p.dispatch(64, 0))).containsExactly(5L);
    }

    @Test
    void keyOrderingGivesRecordsWithoutAKeyOneLaneOfTheirOwn() {
        PartitionProgress<String> p = fresh(Ordering.KEY, ROOMY, 0);
        p.append(List.of(record(0, null), record(1, null), record(2, "a")));
        assertThat(offsets(p.dispatch(64, 0))).containsExactly(0L, 2L);
    }

    @Test
    void unorderedStartsEveryRecordUpToTheCapacityLowestOffsetFirst() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 0);
        p.append(records(0, 9, "a"));
        assertThat(offsets(p.dispatch(4, 0))).containsExactly(0L, 1L, 2L, 3L);
        assertThat(offsets(p.dispatch(4, 0))).containsExactly(4L, 5L, 6L, 7L);
        assertThat(offsets(p.dispatch(4, 0))).containsExactly(8L, 9L);
        assertThat(p.inFlight()).isEqualTo(10);
        assertThat(p.dispatch(0, 0)).isEmpty();
        assertThatThrownBy(() -> p.dispatch(-1, 0)).hasMessageContaining("capacity must be >= 0, was -1");
    }

    // ------------------------------------------------------------------ low-water mark, span

    @Test
    void theLowWaterMarkMovesOnlyOverRecordsAllDoneAndTheDoneSetHoldsTheRestAboveIt() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 100);
        p.append(records(100, 105, "k"));
        Map<Long, Ticket<String>> t = new TreeMap<>();
        p.dispatch(64, 0).forEach(x -> t.put(x.offset(), x));
        p.complete(t.get(102L));
        p.complete(t.get(104L));
        assertThat(p.lowWater()).isEqualTo(100);
        assertThat(p.snapshot().done()).containsExactly(102L, 104L);
        p.complete(t.get(100L));
        assertThat(p.lowWater()).isEqualTo(101);
        p.complete(t.get(101L));
        assertThat(p.lowWater()).isEqualTo(103);
        assertThat(p.snapshot().done()).containsExactly(104L);
        p.complete(t.get(103L));
        p.complete(t.get(105L));
        assertThat(p.snapshot()).isEqualTo(OffsetProgress.at(106));
    }

    @Test
    void offsetsThatNeverArriveArePassedByTheFetchPosition() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 100);
        p.append(List.of(record(100, "k"), record(103, "k"))); // 101, 102: compacted away
        List<Ticket<String>> t = p.dispatch(64, 0);
        p.complete(t.get(1));
        assertThat(p.lowWater()).isEqualTo(100);
        p.complete(t.get(0));
        assertThat(p.lowWater()).isEqualTo(104);
        p.advanceFetchPosition(110); // a transaction marker at 104..109
        assertThat(p.lowWater()).isEqualTo(110);
        assertThat(p.snapshot()).isEqualTo(OffsetProgress.at(110));
        assertThatThrownBy(() -> p.advanceFetchPosition(109)).hasMessageContaining("fetch position 109 is below 110");
    }

    @Test
    void nothingIsDispatchedAtOrBeyondTheLowWaterMarkPlusTheSpan() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, new ProgressLimits(4, 100, 1 << 20), 100);
        p.append(records(100, 111, "k"));
        List<Ticket<String>> first = p.dispatch(64, 0);
        assertThat(offsets(first)).containsExactly(100L, 101L, 102L, 103L);
        first.subList(1, 4).forEach(p::complete); // 101..103 done, 100 still running
        assertThat(p.dispatch(64, 0)).as("104 is beyond 100 + 4").isEmpty();
        assertThat(p.snapshot().done()).containsExactly(101L, 102L, 103L);
        p.complete(first.get(0));
        assertThat(p.lowWater()).isEqualTo(104);
        assertThat(offsets(p.dispatch(64, 0))).containsExactly(104L, 105L, 106L, 107L);
    }

    // ------------------------------------------------------------------ failures

    @Test
    void aFailingRecordBlocksOnlyItsOwnKeyAndRunsAgainAfterItsWaitWithTheNextAttempt() {
        PartitionProgress<String> p = fresh(Ordering.KEY, ROOMY, 0);
        p.append(List.of(record(0, "bad"), record(1, "good"), record(2, "bad"), record(3, "good")));
        List<Ticket<String>> t = p.dispatch(64, 0);
        assertThat(offsets(t)).containsExactly(0L, 1L);
        assertThat(t.get(0).attempt()).isEqualTo(1);
        assertThat(p.retryLater(t.get(0), 1_000)).isTrue();
        assertThat(p.nextRetryAt()).hasValue(1_000);
        assertThat(p.complete(t.get(1))).isTrue();
        assertThat(offsets(p.dispatch(64, 999)))
                .as("good@3 goes on; bad@2 waits behind bad@0")
                .containsExactly(3L);
        assertThat(p.snapshot().attempts()).containsEntry(0L, 1);
        Ticket<String> again = only(p.dispatch(64, 1_000));
        assertThat(again.offset()).isZero();
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(p.nextRetryAt()).isEmpty();
        assertThat(p.complete(t.get(0)))
                .as("the first attempt's ticket is stale now")
                .isFalse();
        assertThat(p.complete(again)).isTrue();
        assertThat(p.snapshot().attempts()).isEmpty();
        assertThat(offsets(p.dispatch(64, 1_000))).containsExactly(2L);
    }

    @Test
    void aFailingRecordBlocksThePartitionUnderPartitionOrderingAndNothingUnderUnordered() {
        PartitionProgress<String> byPartition = fresh(Ordering.PARTITION, ROOMY, 0);
        byPartition.append(records(0, 3, "a", "b"));
        byPartition.retryLater(only(byPartition.dispatch(64, 0)), 50);
        assertThat(byPartition.dispatch(64, 10)).isEmpty();
        assertThat(offsets(byPartition.dispatch(64, 50))).containsExactly(0L);

        PartitionProgress<String> unordered = fresh(Ordering.UNORDERED, ROOMY, 0);
        unordered.append(records(0, 3, "a"));
        unordered.retryLater(unordered.dispatch(1, 0).get(0), 50);
        assertThat(offsets(unordered.dispatch(64, 10))).containsExactly(1L, 2L, 3L);
        assertThat(unordered.waitingRetries()).isEqualTo(1);
    }

    @Test
    void dueRetriesStartBeforeNewRecordsAndCountAgainstTheCapacity() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 0);
        p.append(records(0, 5, "a"));
        List<Ticket<String>> t = p.dispatch(2, 0);
        p.retryLater(t.get(1), 5);
        p.retryLater(t.get(0), 7);
        assertThat(p.nextRetryAt()).hasValue(5);
        assertThat(offsets(p.dispatch(2, 7))).containsExactly(0L, 1L);
        assertThat(offsets(p.dispatch(2, 7))).containsExactly(2L, 3L);
    }

    @Test
    void severalRetriesDueAtOnceEachStartOnce() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 0);
        p.append(records(0, 2, "k"));
        List<Ticket<String>> t = p.dispatch(64, 0);
        p.retryLater(t.get(0), 100);
        p.retryLater(t.get(1), 5);
        p.retryLater(t.get(2), 5);
        // found by the random completion orders: TreeMap's iterator reuses a removed entry for its successor
        assertThat(offsets(p.dispatch(64, 5))).containsExactly(1L, 2L);
        assertThat(p.inFlight()).isEqualTo(2);
        assertThat(p.waitingRetries()).isEqualTo(1);
    }

    @Test
    void attemptsSurviveAHandoverThroughTheCommittedProgress() {
        PartitionProgress<String> a = fresh(Ordering.KEY, ROOMY, 40);
        a.append(records(40, 42, "x", "y", "z"));
        List<Ticket<String>> t = a.dispatch(64, 0);
        a.retryLater(t.get(0), 0);
        Ticket<String> second = only(a.dispatch(64, 0));
        a.retryLater(second, 0);
        a.complete(t.get(2));
        a.stopDispatching();
        a.complete(t.get(1));
        assertThat(a.drained()).isTrue();
        OffsetProgress handedOver = a.snapshot();
        assertThat(handedOver.attempts()).containsExactly(Map.entry(40L, 2));
        assertThat(handedOver.done()).containsExactly(41L, 42L);

        String node = ProgressCodec.encode(handedOver).orElseThrow();
        PartitionProgress<String> b =
                new PartitionProgress<>(Ordering.KEY, ROOMY, 8, ProgressCodec.resume(40, Optional.of(node)));
        assertThat(b.append(records(40, 43, "x", "y", "z", "w")))
                .as("41 and 42 are done")
                .isEqualTo(2);
        List<Ticket<String>> tb = b.dispatch(64, 0);
        assertThat(offsets(tb)).containsExactly(40L, 43L);
        assertThat(tb.get(0).attempt())
                .as("the third attempt, counted across owners")
                .isEqualTo(3);
        assertThat(tb.get(0).epoch()).isEqualTo(8);
    }

    // ------------------------------------------------------------------ resume

    @Test
    void aNewOwnerResumesAtTheLowWaterMarkAndSkipsWhatIsRecordedAsDone() {
        OffsetProgress committed = new OffsetProgress(100, new TreeSet<>(Set.of(102L, 103L, 105L)), new TreeMap<>());
        PartitionProgress<String> p = new PartitionProgress<>(Ordering.UNORDERED, ROOMY, 9, committed);
        assertThat(p.resumeAt()).isEqualTo(100);
        assertThat(p.commitOwed()).isFalse();
        assertThat(p.snapshot())
                .as("nothing fetched yet: the done set is kept, not dropped")
                .isEqualTo(committed);
        assertThat(p.append(records(100, 106, "k"))).isEqualTo(3);
        List<Ticket<String>> t = p.dispatch(64, 0);
        assertThat(offsets(t)).containsExactly(100L, 101L, 104L, 106L);
        p.complete(t.get(0));
        p.complete(t.get(1));
        assertThat(p.lowWater()).isEqualTo(104);
        assertThat(p.snapshot().done()).containsExactly(105L);
        assertThat(p.commitOwed()).isTrue();
    }

    @Test
    void theLowWaterMarkMovesOnOverRecordedDoneOffsetsBeforeTheyAreFetchedAgain() {
        OffsetProgress committed = new OffsetProgress(100, new TreeSet<>(Set.of(101L, 102L)), new TreeMap<>());
        PartitionProgress<String> p = new PartitionProgress<>(Ordering.UNORDERED, ROOMY, 9, committed);
        p.append(records(100, 100, "k"));
        p.complete(only(p.dispatch(64, 0)));
        assertThat(p.snapshot()).isEqualTo(OffsetProgress.at(103));
        assertThat(p.append(records(101, 103, "k"))).isEqualTo(2);
        assertThat(offsets(p.dispatch(64, 0))).containsExactly(103L);
    }

    @Test
    void doneOffsetsRecordedBeyondThisOwnersSpanAreDroppedAndRunAgain() {
        OffsetProgress committed = new OffsetProgress(0, new TreeSet<>(Set.of(3L, 9L)), new TreeMap<>(Map.of(8L, 2)));
        PartitionProgress<String> p =
                new PartitionProgress<>(Ordering.UNORDERED, new ProgressLimits(5, 100, 1000), 1, committed);
        assertThat(p.droppedOnResume()).isEqualTo(1);
        assertThat(p.snapshot()).isEqualTo(new OffsetProgress(0, new TreeSet<>(Set.of(3L)), new TreeMap<>()));
        assertThat(p.commitOwed()).isTrue();
    }

    // ------------------------------------------------------------------ ownership

    @Test
    void ticketsOfAnEarlierOwnershipHandedBackTwiceOrAfterTheLossAreDropped() {
        PartitionProgress<String> old = fresh(Ordering.UNORDERED, ROOMY, 0);
        old.append(records(0, 2, "k"));
        List<Ticket<String>> oldTickets = old.dispatch(64, 0);
        assertThat(old.complete(oldTickets.get(0))).isTrue();
        assertThat(old.complete(oldTickets.get(0))).as("twice").isFalse();
        old.lost();
        assertThat(old.complete(oldTickets.get(1))).as("after the loss").isFalse();
        assertThat(old.retryLater(oldTickets.get(2), 0)).isFalse();
        assertThat(old.droppedTickets()).isEqualTo(3);
        assertThat(old.heldRecords()).isZero();
        assertThat(old.dispatch(64, 0)).isEmpty();
        assertThat(old.shouldPauseFetching()).isTrue();

        PartitionProgress<String> next = new PartitionProgress<>(Ordering.UNORDERED, ROOMY, 8, OffsetProgress.at(1));
        next.append(records(1, 2, "k"));
        List<Ticket<String>> nextTickets = next.dispatch(64, 0);
        assertThat(next.complete(oldTickets.get(1)))
                .as("same offset, earlier epoch")
                .isFalse();
        assertThat(next.lowWater()).isEqualTo(1);
        assertThat(next.complete(nextTickets.get(0))).isTrue();
        assertThat(next.lowWater()).isEqualTo(2);
    }

    @Test
    void aGracefulHandoverStopsNewWorkDrainsWhatRunsAndHandsOverEverythingDone() {
        PartitionProgress<String> p = fresh(Ordering.KEY, ROOMY, 0);
        p.append(records(0, 7, "a", "b", "c", "d"));
        List<Ticket<String>> t = p.dispatch(64, 0);
        assertThat(offsets(t)).containsExactly(0L, 1L, 2L, 3L);
        p.complete(t.get(1));
        p.stopDispatching();
        assertThat(p.dispatch(64, 0)).as("b@5 may not start any more").isEmpty();
        assertThat(p.drained()).isFalse();
        p.complete(t.get(3));
        p.complete(t.get(2));
        assertThat(p.drained()).isFalse();
        p.complete(t.get(0));
        assertThat(p.drained()).isTrue();
        assertThat(p.snapshot()).isEqualTo(OffsetProgress.at(4));
        assertThat(p.shouldPauseFetching()).isTrue();
    }

    @Test
    void commitOwedFollowsChangesAndWhatWasWritten() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 0);
        assertThat(p.commitOwed()).isFalse();
        p.append(records(0, 1, "k"));
        List<Ticket<String>> t = p.dispatch(64, 0);
        assertThat(p.commitOwed()).isFalse();
        p.complete(t.get(1));
        assertThat(p.commitOwed()).isTrue();
        OffsetProgress written = p.snapshot();
        p.complete(t.get(0));
        p.committed(written);
        assertThat(p.commitOwed()).as("completed after the snapshot was taken").isTrue();
        p.committed(p.snapshot());
        assertThat(p.commitOwed()).isFalse();
    }

    // ------------------------------------------------------------------ memory

    @Test
    void fetchingPausesWhenTheRecordsHeldReachTheirCapAndResumesAtHalf() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, new ProgressLimits(1_000, 4, 1 << 20), 0);
        assertThat(p.shouldPauseFetching()).isFalse();
        p.append(records(0, 3, "k"));
        assertThat(p.shouldPauseFetching()).isTrue();
        List<Ticket<String>> t = p.dispatch(64, 0);
        p.complete(t.get(0));
        assertThat(p.shouldPauseFetching()).as("3 held: above half").isTrue();
        p.complete(t.get(3));
        assertThat(p.heldRecords()).isEqualTo(2);
        assertThat(p.shouldPauseFetching()).isFalse();
    }

    @Test
    void fetchingPausesWhenTheBytesHeldReachTheirCap() {
        PartitionProgress<String> p = fresh(Ordering.PARTITION, new ProgressLimits(1_000, 1_000, 100), 0);
        p.append(List.of(new Fetched<>(0, "k", 60, "a"), new Fetched<>(1, "k", 40, "b")));
        assertThat(p.heldBytes()).isEqualTo(100);
        assertThat(p.shouldPauseFetching()).isTrue();
        p.complete(only(p.dispatch(1, 0)));
        assertThat(p.heldBytes()).isEqualTo(40);
        assertThat(p.shouldPauseFetching()).isFalse();
    }

    @Test
    void fetchingPausesAtTheEndOfTheSpanWhereNothingFetchedCouldStart() {
        PartitionProgress<String> p = fresh(Ordering.KEY, new ProgressLimits(8, 1_000, 1 << 20), 0);
        p.append(records(0, 7, "a", "b"));
        assertThat(p.shouldPauseFetching()).isTrue();
        List<Ticket<String>> t = p.dispatch(64, 0);
        p.complete(t.get(0));
        assertThat(p.shouldPauseFetching())
                .as("one more offset fits the span now")
                .isFalse();
    }

    @Test
    void aRecordThatFailsForeverHoldsNoMoreThanTheCapHowEverLongItFails() {
        ProgressLimits limits = new ProgressLimits(100, 10, 1 << 20);
        PartitionProgress<String> p = fresh(Ordering.KEY, limits, 0);
        long next = 0;
        for (long now = 0; now < 10_000; now++) {
            if (!p.shouldPauseFetching()) {
                p.append(List.of(record(next, next % 3 == 0 ? "poison" : "k" + next)));
                next++;
            }
            for (Ticket<String> t : p.dispatch(4, now)) {
                if (t.record().startsWith("poison")) {
                    p.retryLater(t, now + 1);
                } else {
                    p.complete(t);
                }
            }
            assertThat(p.heldRecords()).isLessThanOrEqualTo(limits.maxRecords());
        }
        assertThat(p.lowWater()).isZero();
        assertThat(p.snapshot().attempts().get(0L)).isGreaterThan(1_000);
        assertThat(p.snapshot().done()).allMatch(o -> o % 3 != 0);
    }

    // ------------------------------------------------------------------ input

    @Test
    void recordsMustComeInOffsetOrderEachOnce() {
        PartitionProgress<String> p = fresh(Ordering.UNORDERED, ROOMY, 10);
        p.append(records(10, 12, "k"));
        assertThatThrownBy(() -> p.append(records(12, 12, "k")))
                .hasMessageContaining("record at offset 12 fetched again or out of order: the fetch position is 13");
        assertThatThrownBy(() -> new ProgressLimits(0, 1, 1))
                .hasMessageContaining("max span must be in 1..262144, was 0");
        assertThatThrownBy(() -> new ProgressLimits(ProgressLimits.MAX_SPAN + 1, 1, 1))
                .hasMessageContaining("was 262145");
        assertThatThrownBy(() -> new ProgressLimits(1, 0, 1)).hasMessageContaining("max buffered records must be >= 1");
        assertThatThrownBy(() -> new ProgressLimits(1, 1, 0)).hasMessageContaining("max buffered bytes must be >= 1");
        assertThatThrownBy(() -> new Fetched<>(-1, null, 0, "x")).hasMessageContaining("offset must be >= 0, was -1");
    }

    @Test
    void theStateReadsBackForMetricsAndLogs() {
        PartitionProgress<String> p = fresh(Ordering.KEY, ROOMY, 0);
        p.append(records(0, 4, "a", "b"));
        List<Ticket<String>> t = p.dispatch(64, 0);
        p.retryLater(t.get(1), 9);
        assertThat(p.inFlight()).isEqualTo(1);
        assertThat(p.waitingRetries()).isEqualTo(1);
        assertThat(p.buffered()).isEqualTo(3);
        assertThat(p.heldRecords()).isEqualTo(5);
        assertThat(p.toString()).contains("KEY", "epoch 7", "low-water 0", "held 5", "in flight 1", "waiting 1");
        assertThat(Set.copyOf(List.of(Ordering.values())).stream()
                        .map(Enum::name)
                        .collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("PARTITION", "KEY", "UNORDERED");
    }

    // ------------------------------------------------------------------ records read in place

    /** Reads the tests' {@code Fetched} as the container reads its records: in place, through a view. */
    private static final FetchedView<Fetched<String>> VIEW = new FetchedView<>() {
        @Override
        public long offset(Fetched<String> r) {
            return r.offset();
        }

        @Override
        public Object key(Fetched<String> r) {
            return r.key();
        }

        @Override
        public int bytes(Fetched<String> r) {
            return r.bytes();
        }
    };

    @Test
    void recordsReadThroughAViewAreHeldDispatchedAndCompletedAsFetchedOnesAre() {
        for (Ordering ordering : Ordering.values()) {
            PartitionProgress<String> fetched = fresh(ordering, ROOMY, 3);
            PartitionProgress<Fetched<String>> viewed = fresh(ordering, ROOMY, 3);
            assertThat(fetched.append(records(3, 9, "a", "b", "a")))
                    .isEqualTo(viewed.append(records(3, 9, "a", "b", "a"), VIEW));
            assertThat(viewed.heldBytes()).isEqualTo(fetched.heldBytes()).isEqualTo(70);
            List<Ticket<String>> a = fetched.dispatch(3, 0);
            List<Ticket<Fetched<String>>> b = viewed.dispatch(3, 0);
            assertThat(b.stream().map(t -> t.record().record()).toList())
                    .as(ordering.name())
                    .isEqualTo(a.stream().map(Ticket::record).toList());
            assertThat(b.stream().map(Ticket::offset).toList()).isEqualTo(offsets(a));
            for (int i = a.size() - 1; i >= 0; i--) { // out of order: the done set and the lanes move as well
                assertThat(fetched.complete(a.get(i))).isTrue();
                assertThat(viewed.complete(b.get(i))).isTrue();
            }
            assertThat(viewed.snapshot()).as(ordering.name()).isEqualTo(fetched.snapshot());
            assertThat(viewed.heldBytes()).isEqualTo(fetched.heldBytes());
            assertThat(offsets(fetched.dispatch(10, 0)))
                    .isEqualTo(
                            viewed.dispatch(10, 0).stream().map(Ticket::offset).toList());
        }
    }

    @Test
    void aRecordReadThroughAViewWithANegativeSizeOrFetchedAgainIsRefused() {
        PartitionProgress<Fetched<String>> p = fresh(Ordering.KEY, ROOMY, 0);
        FetchedView<Fetched<String>> negative = new FetchedView<>() {
            @Override
            public long offset(Fetched<String> r) {
                return r.offset();
            }

            @Override
            public Object key(Fetched<String> r) {
                return r.key();
            }

            @Override
            public int bytes(Fetched<String> r) {
                return -1;
            }
        };
        assertThatThrownBy(() -> p.append(records(0, 0, "a"), negative))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes of the record at offset 0 must be >= 0, was -1");
        p.append(records(0, 1, "a"), VIEW);
        assertThatThrownBy(() -> p.append(records(1, 1, "a"), VIEW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("record at offset 1 fetched again or out of order");
    }

    // ------------------------------------------------------------------ inline runs (no tickets)

    @Test
    void aRunnableRecordIsTheOneNextWouldHandOutAndCompletingItMovesTheMarkAsItsTicketWould() {
        PartitionProgress<String> runs = fresh(Ordering.PARTITION, ROOMY, 10);
        PartitionProgress<String> tickets = fresh(Ordering.PARTITION, ROOMY, 10);
        runs.append(records(10, 14, "a", "b"));
        tickets.append(records(10, 14, "a", "b"));
        for (int i = 0; i < 5; i++) {
            String r = runs.runnable();
            Ticket<String> t = only(tickets.dispatch(1, 0));
            assertThat(r).isEqualTo(t.record()).endsWith("@" + t.offset());
            runs.completeRunnable();
            assertThat(tickets.complete(t)).isTrue();
            assertThat(runs.snapshot()).isEqualTo(tickets.snapshot());
            assertThat(runs.heldRecords()).isEqualTo(tickets.heldRecords());
            assertThat(runs.heldBytes()).isEqualTo(tickets.heldBytes());
            assertThat(runs.commitOwed()).isTrue();
        }
        assertThat(runs.runnable()).isNull();
        assertThat(runs.lowWater()).isEqualTo(15);
        runs.append(records(15, 16, "a"));
        assertThat(runs.runnable())
                .as("the lane is idle again after its queue emptied")
                .isEqualTo("a@15");
        assertThat(offsets(runs.dispatch(5, 0)))
                .as("and tickets still work after runs")
                .containsExactly(15L);
    }

    @Test
    void nothingIsRunnableWhileARecordIsInFlightWaitsOrWasAttemptedOrUnderAnotherOrdering() {
        PartitionProgress<String> p = fresh(Ordering.PARTITION, new ProgressLimits(2, 100, 1 << 20), 0);
        assertThat(p.runnable()).as("nothing fetched").isNull();
        p.append(records(0, 3, "a"));
        Ticket<String> t = only(p.dispatch(1, 0));
        assertThat(p.runnable()).as("in flight").isNull();
        assertThat(p.retryLater(t, 100)).isTrue();
        assertThat(p.runnable()).as("waiting to be retried").isNull();
        Ticket<String> again = only(p.dispatch(1, 100));
        assertThat(p.runnable()).as("its retry in flight").isNull();
        assertThat(p.complete(again)).isTrue();
        assertThat(p.runnable()).isEqualTo("a@1");
        p.completeRunnable();
        p.completeRunnable();
        assertThat(p.runnable()).isEqualTo("a@3");
        p.stopDispatching();
        assertThat(p.runnable()).as("stopped for a handover").isNull();

        PartitionProgress<String> attempted = new PartitionProgress<>(
                Ordering.PARTITION, ROOMY, 7, new OffsetProgress(0, new TreeSet<>(), new TreeMap<>(Map.of(0L, 2))));
        attempted.append(records(0, 1, "a"));
        assertThat(attempted.runnable())
                .as("attempts recorded by a previous owner: its ticket counts them")
                .isNull();
        assertThat(only(attempted.dispatch(1, 0)).attempt()).isEqualTo(3);

        PartitionProgress<String> key = fresh(Ordering.KEY, ROOMY, 0);
        key.append(records(0, 1, "a"));
        assertThat(key.runnable()).as("KEY and UNORDERED go by tickets").isNull();
        PartitionProgress<String> lost = fresh(Ordering.PARTITION, ROOMY, 0);
        lost.append(records(0, 1, "a"));
        lost.lost();
        assertThat(lost.runnable()).isNull();
    }
}

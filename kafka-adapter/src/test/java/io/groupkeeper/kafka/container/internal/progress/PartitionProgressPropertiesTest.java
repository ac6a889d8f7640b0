package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Properties of per-partition progress under random completion orders, failures, fetch sizes and handovers, checked
 * after every step against what the simulated handlers actually did: per-key (per-lane) order, no record lost, the
 * done set never naming an offset that did not complete, the span and size bounds, the buffer cap, stale tickets
 * dropped; a graceful handover replaying nothing and a crash replaying only what completed since the last commit.
 */
class PartitionProgressPropertiesTest {

    // ------------------------------------------------------------------ the encoding

    @Property(tries = 300)
    void everyProgressWithinItsSpanEncodesWithinTheBoundAndReadsBackTheSame(
            @ForAll @IntRange(min = 1, max = 20_000) int span,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long from,
            @ForAll @IntRange(min = 0, max = 100) int densityPercent,
            @ForAll @IntRange(min = 0, max = 3) int pattern,
            @ForAll @IntRange(min = 0, max = 24) int failing,
            @ForAll long seed) {
        Random r = new Random(seed);
        NavigableSet<Long> done = new TreeSet<>();
        int runLength = 1 + r.nextInt(50);
        for (long i = 1; i < span; i++) {
            boolean in = switch (pattern) {
                case 0 -> r.nextInt(100) < densityPercent;
                case 1 -> i % 2 == 0;
                case 2 -> (i / runLength) % 2 == 0;
                default -> i < span * (long) densityPercent / 100;
            };
            if (in) {
                done.add(from + i);
            }
        }
        TreeMap<Long, Integer> attempts = new TreeMap<>();
        for (int k = 0; k < failing; k++) {
            long o = from + r.nextInt(span);
            if (!done.contains(o)) {
                attempts.put(o, 1 + r.nextInt(Integer.MAX_VALUE));
            }
        }
        OffsetProgress p = new OffsetProgress(from, done, attempts);
        Optional<String> text = ProgressCodec.encode(p);
        assertThat(text.map(String::length).orElse(0)).isLessThanOrEqualTo(ProgressCodec.maxEncodedLength(span));
        OffsetProgress back = ProgressCodec.resume(from, text);
        assertThat(back.done()).isEqualTo(done);
        assertThat(back.attempts())
                .isEqualTo(
                        attempts.isEmpty()
                                ? attempts
                                : attempts.headMap(
                                        attempts.keySet().stream()
                                                .skip(ProgressCodec.MAX_RECORDED_ATTEMPTS - 1)
                                                .findFirst()
                                                .orElse(Long.MAX_VALUE),
                                        true));
    }

    // ------------------------------------------------------------------ one owner, random completion orders

    @Property(tries = 250)
    void randomCompletionOrdersKeepOrderLoseNothingAndStayWithinTheBounds(
            @ForAll Ordering ordering,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 300) int records,
            @ForAll @IntRange(min = 1, max = 12) int keys,
            @ForAll @IntRange(min = 1, max = 64) int span,
            @ForAll @IntRange(min = 1, max = 40) int maxRecords,
            @ForAll @IntRange(min = 1, max = 16) int capacity,
            @ForAll @IntRange(min = 0, max = 30) int failPercent) {
        Random r = new Random(seed);
        Log log = Log.random(r, records, keys);
        Run run = new Run(
                ordering,
                new ProgressLimits(span, maxRecords, Long.MAX_VALUE),
                1,
                OffsetProgress.at(log.start),
                log,
                r,
                capacity,
                failPercent);
        run.toEnd();
        assertThat(run.progress.lowWater()).isEqualTo(log.end);
        assertThat(run.progress.snapshot()).isEqualTo(OffsetProgress.at(log.end));
        for (long o : log.offsets()) {
            assertThat(run.completions.getOrDefault(o, 0))
                    .as("offset %d completes exactly once", o)
                    .isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ handover

    @Property(tries = 250)
    void aGracefulHandoverReplaysNothingAndACrashOnlyWhatCompletedSinceTheLastCommit(
            @ForAll Ordering ordering,
            @ForAll long seed,
            @ForAll boolean graceful,
            @ForAll @IntRange(min = 1, max = 300) int records,
            @ForAll @IntRange(min = 1, max = 12) int keys,
            @ForAll @IntRange(min = 1, max = 64) int span,
            @ForAll @IntRange(min = 1, max = 16) int capacity,
            @ForAll @IntRange(min = 0, max = 30) int failPercent,
            @ForAll @IntRange(min = 0, max = 400) int steps,
            @ForAll @IntRange(min = 1, max = 50) int commitEvery) {
        Random r = new Random(seed);
        Log log = Log.random(r, records, keys);
        ProgressLimits limits = new ProgressLimits(span, 1_000, Long.MAX_VALUE);
        Run a = new Run(ordering, limits, 1, OffsetProgress.at(log.start), log, r, capacity, failPercent);
        long nodeOffset = log.start;
        Optional<String> nodeDone = Optional.empty();
        Set<Long> completedSinceCommit = new HashSet<>();
        for (int i = 0; i < steps && !a.finished(); i++) {
            a.step();
            a.lastCompleted.ifPresent(completedSinceCommit::add);
            if (i % commitEvery == commitEvery - 1) {
                OffsetProgress s = a.progress.snapshot();
                nodeOffset = s.lowWater();
                nodeDone = ProgressCodec.encode(s);
                a.progress.committed(s);
                completedSinceCommit.clear();
            }
        }
        List<Ticket<String>> late = new ArrayList<>(a.running);
        if (graceful) {
            a.progress.stopDispatching();
            a.drain();
            assertThat(a.progress.drained()).isTrue();
            OffsetProgress last = a.progress.snapshot();
            nodeOffset = last.lowWater();
            nodeDone = ProgressCodec.encode(last);
            completedSinceCommit.clear();
        } else {
            a.progress.lost();
            for (Ticket<String> t : late) {
                assertThat(a.progress.complete(t))
                        .as("completed after the loss: dropped")
                        .isFalse();
            }
        }
        OffsetProgress handedOver = ProgressCodec.resume(nodeOffset, nodeDone);
        assertThat(handedOver.done())
                .as("the node names only completed offsets")
                .allMatch(a.completions::containsKey);
        for (long o : log.offsets()) {
            if (o < handedOver.lowWater()) {
                assertThat(a.completions)
                        .as("below the handed-over low-water mark")
                        .containsKey(o);
            }
        }

        Run b = new Run(ordering, limits, 2, handedOver, log.from(handedOver.lowWater()), r, capacity, failPercent);
        b.failedBefore.putAll(a.failedBefore);
        b.toEnd();
        for (long o : log.offsets()) {
            int times = a.completions.getOrDefault(o, 0) + b.completions.getOrDefault(o, 0);
            assertThat(times).as("offset %d completes at least once", o).isGreaterThanOrEqualTo(1);
            if (times > 1) {
                assertThat(graceful)
                        .as("offset %d replayed after a graceful handover", o)
                        .isFalse();
                assertThat(completedSinceCommit)
                        .as("offset %d replayed but committed before the crash", o)
                        .contains(o);
            }
        }
        for (var e : b.firstAttempt.entrySet()) {
            long o = e.getKey();
            int failedWithA = a.failedBefore.getOrDefault(o, 0);
            if (handedOver.attempts().containsKey(o)) {
                assertThat(e.getValue())
                        .as("attempts at %d go on across the handover", o)
                        .isEqualTo(handedOver.attemptsAt(o) + 1);
            } else {
                assertThat(e.getValue()).isEqualTo(1);
            }
            assertThat(e.getValue()).isLessThanOrEqualTo(failedWithA + 1);
        }
    }

    // ------------------------------------------------------------------ the simulated partition and handlers

    /** A partition's log: offsets with gaps (compacted records, transaction markers), keys, and its end. */
    record Log(long start, long end, TreeMap<Long, String> keys) {

        static Log random(Random r, int records, int keyCount) {
            long start = r.nextInt(1_000);
            TreeMap<Long, String> keys = new TreeMap<>();
            long o = start;
            for (int i = 0; i < records; i++) {
                o += r.nextInt(10) == 0 ? 1 + r.nextInt(3) : 0; // a gap now and then
                keys.put(o, "k" + r.nextInt(keyCount));
                o++;
            }
            return new Log(start, o + (r.nextBoolean() ? r.nextInt(3) : 0), keys);
        }

        Log from(long offset) {
            return new Log(offset, end, new TreeMap<>(keys.tailMap(offset, true)));
        }

        Set<Long> offsets() {
            return keys.keySet();
        }
    }

    /** One owner: fetches in random chunks, starts what progress dispatches, completes or fails it in random order. */
    static final class Run {
        final PartitionProgress<String> progress;
        final ProgressLimits limits;
        final Ordering ordering;
        final Log log;
        final Random r;
        final int capacity;
        final int failPercent;
        final List<Ticket<String>> running = new ArrayList<>();
        final Set<Long> waiting = new HashSet<>();
        final Map<Long, Integer> completions = new HashMap<>();
        final Map<Long, Integer> failedBefore = new HashMap<>();
        final Map<Long, Integer> firstAttempt = new HashMap<>();
        final Set<Long> restored;
        OptionalLong lastCompleted = OptionalLong.empty();
        long fetchNext;
        long checkedBelow;
        long now;
        int steps;

        Run(
                Ordering ordering,
                ProgressLimits limits,
                long epoch,
                OffsetProgress resume,
                Log log,
                Random r,
                int capacity,
                int failPercent) {
            this.progress = new PartitionProgress<>(ordering, limits, epoch, resume);
            this.ordering = ordering;
            this.limits = limits;
            this.log = log;
            this.r = r;
            this.capacity = capacity;
            this.failPercent = failPercent;
            this.fetchNext = progress.resumeAt();
            this.checkedBelow = progress.resumeAt();
            this.restored = Set.copyOf(resume.done());
        }

        boolean finished() {
            return progress.lowWater() >= log.end && running.isEmpty();
        }

        void toEnd() {
            while (!finished()) {
                step();
                assertThat(steps).as("no progress: %s", progress).isLessThan(200_000);
            }
        }

        void step() {
            steps++;
            now++;
            lastCompleted = OptionalLong.empty();
            fetch();
            for (Ticket<String> t : progress.dispatch(capacity - running.size(), now)) {
                started(t);
            }
            if (!running.isEmpty()) {
                Ticket<String> t = running.remove(r.nextInt(running.size()));
                if (r.nextInt(100) < failPercent && failedBefore.getOrDefault(t.offset(), 0) < 5) {
                    assertThat(progress.retryLater(t, now + r.nextInt(4))).isTrue();
                    failedBefore.merge(t.offset(), 1, Integer::sum);
                    waiting.add(t.offset());
                } else {
                    assertThat(progress.complete(t)).isTrue();
                    completions.merge(t.offset(), 1, Integer::sum);
                    lastCompleted = OptionalLong.of(t.offset());
                }
            }
            check();
        }

        void drain() {
            while (!running.isEmpty()) {
                Ticket<String> t = running.remove(r.nextInt(running.size()));
                assertThat(progress.complete(t)).isTrue();
                completions.merge(t.offset(), 1, Integer::sum);
                check();
            }
            assertThat(progress.dispatch(capacity, Long.MAX_VALUE)).isEmpty();
        }

        private void fetch() {
            if (progress.shouldPauseFetching() || fetchNext >= log.end) {
                return;
            }
            List<Fetched<String>> chunk = new ArrayList<>();
            var next = log.keys.tailMap(fetchNext, true).entrySet().iterator();
            int n = 1 + r.nextInt(5);
            while (next.hasNext() && chunk.size() < n) {
                var e = next.next();
                chunk.add(new Fetched<>(e.getKey(), e.getValue(), 1, e.getValue() + "@" + e.getKey()));
            }
            progress.append(chunk);
            fetchNext = chunk.isEmpty() ? log.end : chunk.get(chunk.size() - 1).offset() + 1;
            if (!next.hasNext() && chunk.size() < n) {
                fetchNext = log.end;
                progress.advanceFetchPosition(log.end); // the tail holds no records
            }
        }

        private void started(Ticket<String> t) {
            long o = t.offset();
            assertThat(o)
                    .as("dispatched beyond low-water mark + span")
                    .isLessThan(progress.lowWater() + limits.maxSpan());
            assertThat(completions).as("a completed record dispatched again").doesNotContainKey(o);
            String key = log.keys.get(o);
            Object lane = ordering.lane(o, key);
            for (Ticket<String> other : running) {
                assertThat(ordering.lane(other.offset(), log.keys.get(other.offset())))
                        .as("two records of one lane at once: %d and %d", other.offset(), o)
                        .isNotEqualTo(lane);
            }
            for (long w : waiting) {
                if (w != o) {
                    assertThat(ordering.lane(w, log.keys.get(w)))
                            .as("%d passed %d, failed, of its lane", o, w)
                            .isNotEqualTo(lane);
                }
            }
            // every earlier record of the lane is done (by this owner or, recorded, by the one before)
            OffsetProgress s = progress.snapshot();
            for (var e : log.keys.subMap(s.lowWater(), true, o, false).entrySet()) {
                if (ordering.lane(e.getKey(), e.getValue()).equals(lane)) {
                    assertThat(completions.containsKey(e.getKey()) || s.isDone(e.getKey()))
                            .as("%d started before %d of its lane completed", o, e.getKey())
                            .isTrue();
                }
            }
            assertThat(t.attempt()).isEqualTo(s.attemptsAt(o) + 1);
            waiting.remove(o);
            firstAttempt.putIfAbsent(o, t.attempt());
            running.add(t);
        }

        private void check() {
            OffsetProgress s = progress.snapshot();
            assertThat(s.done())
                    .as("the done set names only offsets that completed")
                    .allMatch(o -> completions.containsKey(o) || isRestored(o));
            assertThat(progress.heldRecords())
                    .as("held beyond the cap and one fetch")
                    .isLessThan(limits.maxRecords() + 5);
            for (long o :
                    completions.keySet().stream().filter(c -> c >= checkedBelow).toList()) {
                assertThat(s.isDone(o)).as("completion of %d lost", o).isTrue();
            }
            for (long o :
                    log.keys.subMap(checkedBelow, true, s.lowWater(), false).keySet()) {
                assertThat(completions.containsKey(o) || isRestored(o))
                        .as("%d below the low-water mark %d but not done", o, s.lowWater())
                        .isTrue();
            }
            checkedBelow = Math.max(checkedBelow, s.lowWater()); // what is below it stays done: checked once
            if (!s.done().isEmpty()) {
                assertThat(s.done().last()).isLessThan(s.lowWater() + limits.maxSpan());
            }
            assertThat(ProgressCodec.encode(s).map(String::length).orElse(0))
                    .isLessThanOrEqualTo(ProgressCodec.maxEncodedLength(limits.maxSpan()));
            if (ordering == Ordering.PARTITION) {
                assertThat(running.size() + waiting.size()).isLessThanOrEqualTo(1);
            }
        }

        /** Recorded as done by a previous owner (the resumed progress), not completed by this one. */
        private boolean isRestored(long o) {
            return restored.contains(o);
        }
    }
}

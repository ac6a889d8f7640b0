package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.internal.PositionResolver.Decision;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The start-position and out-of-range decisions, against a made-up log (no Kafka). */
class PositionResolverTest {

    private static final io.groupkeeper.TopicPartition A0 = new io.groupkeeper.TopicPartition("a", 0);
    private static final io.groupkeeper.TopicPartition A1 = new io.groupkeeper.TopicPartition("a", 1);
    private static final TopicPartition K0 = Partitions.kafka(A0);
    private static final TopicPartition K1 = Partitions.kafka(A1);

    private final AtomicLong now = new AtomicLong(1_000);
    private final Log log = new Log();
    private final Positions positions = new Positions(new PositionsTest.Gauges(), "g", () -> "m1");

    // ------------------------------------------------------------------ the policy's decision

    @Test
    void anOffsetAboveTheEndGoesToTheStartWithEarliestAndToTheEndWithLatest() {
        assertThat(PositionResolver.decide(OutOfRangePolicy.EARLIEST, 6, 0, 4))
                .isEqualTo(new Decision(Decision.Kind.CORRECT, 0, "above the log end 4 (log 0..4)"));
        assertThat(PositionResolver.decide(OutOfRangePolicy.LATEST, 7000, 0, 25))
                .isEqualTo(new Decision(Decision.Kind.CORRECT, 25, "above the log end 25 (log 0..25)"));
    }

    @Test
    void anOffsetBelowTheStartIsCorrectedByTheSameRule() {
        assertThat(PositionResolver.decide(OutOfRangePolicy.EARLIEST, 3, 10, 20))
                .isEqualTo(new Decision(Decision.Kind.CORRECT, 10, "below the log start 10 (log 10..20)"));
        assertThat(PositionResolver.decide(OutOfRangePolicy.LATEST, 3, 10, 20).offset())
                .isEqualTo(20);
    }

    @Test
    void anOffsetInsideTheLogAfterAllIsTriedAgainAndFailStopsOnlyWhatIsOutside() {
        assertThat(PositionResolver.decide(OutOfRangePolicy.FAIL, 20, 10, 20).kind())
                .isEqualTo(Decision.Kind.RETRY);
        assertThat(PositionResolver.decide(OutOfRangePolicy.LATEST, 10, 10, 20))
                .isEqualTo(new Decision(Decision.Kind.RETRY, 10, ""));
        assertThat(PositionResolver.decide(OutOfRangePolicy.FAIL, 21, 10, 20).kind())
                .isEqualTo(Decision.Kind.FAIL);
    }

    // ------------------------------------------------------------------ out of range, applied

    @Test
    void earliestSeeksToTheLogStartAndReturnsTheCorrectionToStore() {
        log.start.put(K0, 2L);
        log.end.put(K0, 4L);
        OwnedPartition p = positions.add(A0, OptionalLong.of(6));
        Map<OwnedPartition, Long> seeks = new HashMap<>();

        PositionResolver.Corrections c = resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST)
                .outOfRange(outOfRange(Map.of(K0, 6L)), positions, seeks::put);

        assertThat(seeks).isEqualTo(Map.of(p, 2L));
        assertThat(c.corrected()).isEqualTo(Map.of(A0, 2L));
        assertThat(c.bad()).isEqualTo(Map.of(A0, 6L));
        assertThat(c.why().get(A0)).isEqualTo("above the log end 4 (log 2..4)");
    }

    @Test
    void failStopsThePartitionAndQueuesOneExceptionWithoutACorrection() {
        log.start.put(K0, 0L);
        log.end.put(K0, 4L);
        OwnedPartition p = positions.add(A0, OptionalLong.of(6));
        PositionResolver resolver = resolver(StartPosition.latest(), OutOfRangePolicy.FAIL);

        PositionResolver.Corrections c = resolver.outOfRange(outOfRange(Map.of(K0, 6L)), positions, (x, o) -> {
            throw new AssertionError("no seek");
        });

        assertThat(c.isEmpty()).isTrue();
        assertThat(p.failed).isTrue();
        assertThat(positions.activePositions()).isEmpty();
        OffsetOutOfRangePolicyException failure = resolver.nextFailure();
        assertThat(failure).isNotNull();
        assertThat(failure.offset()).isEqualTo(6);
        assertThat(failure.logEndOffset()).isEqualTo(4);
        assertThat(resolver.nextFailure()).isNull();
    }

    @Test
    void partitionsNoLongerFetchedAreLeftAlone() {
        positions.add(A0, OptionalLong.empty()); // unresolved: not fetched
        PositionResolver.Corrections c = resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST)
                .outOfRange(outOfRange(Map.of(K0, 6L, K1, 6L)), positions, (x, o) -> {
                    throw new AssertionError("no seek");
                });

        assertThat(c.isEmpty()).isTrue();
        assertThat(log.asked).as("the log bounds are not even asked for").isZero();
    }

    // ------------------------------------------------------------------ start positions

    @Test
    void withoutAStoredOffsetEarliestStartsAtTheLogStartAndLatestAtTheEnd() {
        log.start.put(K0, 3L);
        log.end.put(K0, 9L);
        OwnedPartition p = positions.add(A0, OptionalLong.empty());
        resolver(StartPosition.earliest(), OutOfRangePolicy.EARLIEST).resolveStarts(positions, positions::position);
        assertThat(p.position).isEqualTo(3);

        OwnedPartition q = positions.add(A1, OptionalLong.empty());
        log.end.put(K1, 9L);
        resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST).resolveStarts(positions, positions::position);
        assertThat(q.position).isEqualTo(9);
        assertThat(p.position).as("a resolved one is not resolved again").isEqualTo(3);
    }

    @Test
    void aTimestampWithNoRecordAtOrAfterItStartsAtTheLogEnd() {
        log.times.put(K0, new OffsetAndTimestamp(5, 100));
        log.end.put(K1, 11L);
        OwnedPartition p = positions.add(A0, OptionalLong.empty());
        OwnedPartition q = positions.add(A1, OptionalLong.empty());

        resolver(StartPosition.timestamp(Instant.ofEpochMilli(100)), OutOfRangePolicy.EARLIEST)
                .resolveStarts(positions, positions::position);

        assertThat(p.position).isEqualTo(5);
        assertThat(q.position).isEqualTo(11);
    }

    @Test
    void whatKafkaCannotAnswerIsTriedAgainASecondLater() {
        log.failing = true;
        OwnedPartition p = positions.add(A0, OptionalLong.empty());
        PositionResolver resolver = resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST);
        assertThat(resolver.due()).isTrue();

        resolver.resolveStarts(positions, positions::position);
        assertThat(p.unresolved()).isTrue();
        assertThat(resolver.due()).isFalse();
        assertThat(resolver.nanosUntilDue()).isEqualTo(TimeUnit.SECONDS.toNanos(1));

        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(resolver.due()).isTrue();
        log.failing = false;
        log.end.put(K0, 8L);
        resolver.resolveStarts(positions, positions::position);
        assertThat(p.position).isEqualTo(8);
    }

    @Test
    void aPartitionMissingFromKafkasAnswerIsTriedAgainAndANewAssignmentNeedNotWait() {
        log.end.put(K0, 8L);
        positions.add(A0, OptionalLong.empty());
        OwnedPartition q = positions.add(A1, OptionalLong.empty()); // Kafka says nothing of a-1
        PositionResolver resolver = resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST);

        resolver.resolveStarts(positions, positions::position);
        assertThat(q.unresolved()).isTrue();
        assertThat(resolver.due()).isFalse();

        resolver.resolveSoon();
        assertThat(resolver.due()).isTrue();
    }

    @Test
    void retriesAreTimedOnANegativeClockToo() {
        now.set(-TimeUnit.HOURS.toNanos(1)); // System.nanoTime() may be negative: only differences compare
        log.failing = true;
        OwnedPartition p = positions.add(A0, OptionalLong.empty());
        PositionResolver resolver = resolver(StartPosition.latest(), OutOfRangePolicy.EARLIEST);
        assertThat(resolver.due()).isTrue();

        resolver.resolveStarts(positions, positions::position);
        assertThat(resolver.due()).isFalse();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(resolver.due()).isTrue();
        assertThat(resolver.nanosUntilDue()).isZero();

        resolver.resolveStarts(positions, positions::position);
        resolver.resolveSoon();
        assertThat(resolver.due()).as("a new assignment need not wait").isTrue();
        log.failing = false;
        log.end.put(K0, 8L);
        resolver.resolveStarts(positions, positions::position);
        assertThat(p.position).isEqualTo(8);
    }

    private PositionResolver resolver(StartPosition start, OutOfRangePolicy policy) {
        return new PositionResolver("g", start, policy, log, now::get);
    }

    private static OffsetOutOfRangeException outOfRange(Map<TopicPartition, Long> offsets) {
        return new OffsetOutOfRangeException("out of range", offsets);
    }

    /** A made-up log: bounds and timestamps per partition; partitions it does not know are missing from answers. */
    private static final class Log implements PositionResolver.LogOffsets {
        final Map<TopicPartition, Long> start = new HashMap<>();
        final Map<TopicPartition, Long> end = new HashMap<>();
        final Map<TopicPartition, OffsetAndTimestamp> times = new HashMap<>();
        boolean failing;
        int asked;

        @Override
        public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
            return answer(start, partitions);
        }

        @Override
        public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
            return answer(end, partitions);
        }

        @Override
        public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
            return answer(times, timestamps.keySet());
        }

        private <T> Map<TopicPartition, T> answer(Map<TopicPartition, T> known, Collection<TopicPartition> asked) {
            this.asked++;
            if (failing) {
                throw new KafkaException("broker unreachable");
            }
            Map<TopicPartition, T> out = new HashMap<>();
            List.copyOf(asked).forEach(k -> {
                if (known.containsKey(k)) {
                    out.put(k, known.get(k));
                }
            });
            return out;
        }
    }
}

package io.groupkeeper.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LagEvaluatorTest {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private final LagEvaluator evaluator = new LagEvaluator(Duration.ofMinutes(5));

    private static CommitSample at(int minute, long offset, long logEnd) {
        return new CommitSample(offset, OptionalLong.of(logEnd), T0.plus(Duration.ofMinutes(minute)));
    }

    @Test
    void keepingUpIsOk() {
        PartitionStatus s = evaluator.evaluate(
                List.of(at(0, 10, 40), at(1, 20, 40), at(2, 30, 40)),
                OptionalLong.of(40),
                T0.plus(Duration.ofMinutes(2)));
        assertThat(s.status()).isEqualTo(LagStatus.OK);
        assertThat(s.lag()).hasValue(10);
    }

    @Test
    void growingLagWarns() {
        PartitionStatus s = evaluator.evaluate(
                List.of(at(0, 10, 100), at(1, 20, 200), at(2, 30, 300)),
                OptionalLong.of(300),
                T0.plus(Duration.ofMinutes(2)));
        assertThat(s.status()).isEqualTo(LagStatus.WARN);
        assertThat(s.reason()).contains("lag grew from 90 to 270");
    }

    @Test
    void sameOffsetWithLagStalls() {
        PartitionStatus s = evaluator.evaluate(
                List.of(at(0, 10, 50), at(1, 10, 50), at(2, 10, 50)),
                OptionalLong.of(50),
                T0.plus(Duration.ofMinutes(2)));
        assertThat(s.status()).isEqualTo(LagStatus.STALL);
    }

    @Test
    void noCommitForLongerThanTheWindowWithLagStops() {
        PartitionStatus s =
                evaluator.evaluate(List.of(at(0, 10, 50)), OptionalLong.of(50), T0.plus(Duration.ofMinutes(6)));
        assertThat(s.status()).isEqualTo(LagStatus.STOP);
        assertThat(s.reason()).contains("no commit since");
    }

    @Test
    void idleWithoutLagIsOkEvenWithoutRecentCommits() {
        PartitionStatus s =
                evaluator.evaluate(List.of(at(0, 50, 50)), OptionalLong.of(50), T0.plus(Duration.ofHours(1)));
        assertThat(s.status()).isEqualTo(LagStatus.OK);
    }

    /** Shards of a job that is not Kafka: commits carry no log end, and nothing says whether work is left (issue 48). */
    @Test
    void withoutALogEndWorkInProgressIsNotCalledCaughtUp() {
        List<CommitSample> shards = List.of(
                new CommitSample(10, OptionalLong.empty(), T0),
                new CommitSample(20, OptionalLong.empty(), T0.plus(Duration.ofMinutes(1))));
        PartitionStatus s =
                evaluator.evaluate(shards, OptionalLong.of(20), OptionalLong.empty(), T0.plus(Duration.ofMinutes(2)));
        assertThat(s.status()).isEqualTo(LagStatus.OK);
        assertThat(s.lag()).isEmpty();
        assertThat(s.reason()).isEqualTo("2 commit(s) in the window, up to offset 20 (lag unknown: no log end)");

        PartitionStatus quiet =
                evaluator.evaluate(shards, OptionalLong.of(20), OptionalLong.empty(), T0.plus(Duration.ofHours(1)));
        assertThat(quiet.reason()).isEqualTo("last commit at " + shards.get(1).at() + " (lag unknown: no log end)");

        PartitionStatus handSet = evaluator.evaluate(List.of(), OptionalLong.of(7), OptionalLong.empty(), T0);
        assertThat(handSet.reason()).isEqualTo("offset 7 (lag unknown: no log end)");
    }

    @Test
    void offsetMovingBackRewinds() {
        PartitionStatus s = evaluator.evaluate(
                List.of(at(0, 10, 50), at(1, 20, 50), at(2, 5, 50)),
                OptionalLong.of(50),
                T0.plus(Duration.ofMinutes(2)));
        assertThat(s.status()).isEqualTo(LagStatus.REWIND);
        assertThat(s.reason()).contains("from 20 to 5");
    }

    @Test
    void neverCommittedWithLagStops() {
        assertThat(evaluator.evaluate(List.of(), OptionalLong.of(3), T0).status())
                .isEqualTo(LagStatus.STOP);
        assertThat(evaluator.evaluate(List.of(), OptionalLong.empty(), T0).status())
                .isEqualTo(LagStatus.OK);
    }

    @Test
    void worstOrdersStatuses() {
        assertThat(LagStatus.OK.worst(LagStatus.WARN)).isEqualTo(LagStatus.WARN);
        assertThat(LagStatus.STOP.worst(LagStatus.REWIND)).isEqualTo(LagStatus.STOP);
        assertThatThrownBy(() -> new LagEvaluator(Duration.ZERO)).hasMessageContaining("window must be positive");
    }

    @Test
    void aCommittedOffsetBelowTheHistorysLastIsARewindWithItsOwnLag() {
        // Caught up at 1000, then the node was set to 0 by hand, its history left as it was.
        PartitionStatus s = evaluator.evaluate(
                List.of(at(0, 1000, 1000)), OptionalLong.of(0), OptionalLong.of(1000), T0.plus(Duration.ofMinutes(1)));
        assertThat(s.status()).isEqualTo(LagStatus.REWIND);
        assertThat(s.lag()).hasValue(1000);
        assertThat(s.reason())
                .isEqualTo("offset moved back from 1000 to 0 (not in the commit history: an edit by hand?)");
    }

    @Test
    void anOffsetWithoutHistoryCountsItsLagFromTheOffsetNotFromZero() {
        PartitionStatus s = evaluator.evaluate(List.of(), OptionalLong.of(42), OptionalLong.of(100), T0);
        assertThat(s.status()).isEqualTo(LagStatus.STOP);
        assertThat(s.lag()).hasValue(58);
        assertThat(s.reason()).isEqualTo("offset 42 without a commit history (set by hand?), lag 58");
        assertThat(evaluator
                        .evaluate(
                                List.of(at(0, 10, 50)),
                                OptionalLong.of(30),
                                OptionalLong.of(50),
                                T0.plus(Duration.ofMinutes(1)))
                        .lag())
                .as("from the offset, not the last sample")
                .hasValue(20);
    }
}

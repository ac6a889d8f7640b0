package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.metrics.GroupMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The owned-partitions table alone: positions, what is dirty, pauses, stale fetches and the lag gauges' lifetime. */
class PositionsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);

    private final Gauges gauges = new Gauges();
    private final Positions positions = new Positions(gauges, "g", () -> "m1");

    @Test
    void aStoredOffsetIsThePositionAndNothingToCommitWhileWithoutOneThePartitionWaitsForItsStart() {
        OwnedPartition stored = positions.add(A0, OptionalLong.of(42));
        OwnedPartition fresh = positions.add(A1, OptionalLong.empty());

        assertThat(stored.active()).isTrue();
        assertThat(stored.dirty()).isFalse();
        assertThat(fresh.unresolved()).isTrue();
        assertThat(fresh.dirty())
                .as("nothing to commit before it has a position")
                .isFalse();
        assertThat(positions.unresolved()).containsExactly(fresh);
        assertThat(positions.activePositions()).isEqualTo(Map.of(ktp(A0), 42L));

        positions.position(fresh, 7);
        assertThat(fresh.dirty())
                .as("a resolved start is committed, so a successor does not skip ahead")
                .isTrue();
        assertThat(positions.activePositions()).containsEntry(ktp(A1), 7L);
    }

    @Test
    void aPartitionStoppedByTheOutOfRangePolicyIsOwnedButNotFetched() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(5));
        p.failed = true;

        assertThat(positions.activePositions()).isEmpty();
        assertThat(p.unresolved()).isFalse();
        assertThat(p.dirty()).isFalse();
        positions.refreshViews();
        assertThat(positions.assignmentView()).containsExactly(ktp(A0));
    }

    @Test
    void everyChangeOfOwnershipOrPositionMarksFetchedRecordsStale() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(1));
        positions.clearTouched();
        assertThat(positions.touched(A0)).isFalse();

        positions.position(p, 9);
        assertThat(positions.touched(A0)).isTrue();

        positions.clearTouched();
        positions.remove(A0);
        assertThat(positions.touched(A0)).isTrue();
    }

    @Test
    void onlyOwnedPartitionsPauseAndAPauseIsForgottenWithThePartition() {
        positions.add(A0, OptionalLong.of(1));
        positions.add(A1, OptionalLong.of(1));

        assertThat(positions.pause(ktp(new TopicPartition("other", 0)))).isFalse();
        assertThat(positions.pause(ktp(A0))).isTrue();
        assertThat(positions.pause(ktp(A1))).isTrue();
        assertThat(positions.refreshViews()).containsExactlyInAnyOrder(ktp(A0), ktp(A1));

        positions.remove(A1);
        assertThat(positions.refreshViews()).containsExactly(ktp(A0));
        assertThat(positions.pausedView()).containsExactly(ktp(A0));
        assertThat(positions.assignmentView()).containsExactly(ktp(A0));

        assertThat(positions.resume(ktp(A0))).isTrue();
        assertThat(positions.resume(ktp(A0))).isFalse();
        assertThat(positions.refreshViews()).isEmpty();
    }

    @Test
    void aLagGaugeLivesExactlyAsLongAsThePartitionIsOwned() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(1));
        p.lag = 12;
        assertThat(gauges.live).containsOnlyKeys("g/m1/a-0");
        assertThat(gauges.live.get("g/m1/a-0").getAsLong()).isEqualTo(12);

        positions.remove(A0); // however it goes: revoked, lost, or refused by the store (NOT_OWNED)
        assertThat(gauges.live).isEmpty();
        assertThat(gauges.stopped).containsExactly("g/m1/a-0");
    }

    @Test
    void aLagLessThanOneIsNoReasonForAnUnchangedCommit() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(3));
        p.lag = 0;
        assertThat(p.lagging()).isFalse();
        p.lag = 1;
        assertThat(p.lagging()).isTrue();
        p.failed = true;
        assertThat(p.lagging()).isFalse();
    }

    private static org.apache.kafka.common.TopicPartition ktp(TopicPartition tp) {
        return Partitions.kafka(tp);
    }

    /** Records the lag gauges started and stopped. */
    static final class Gauges implements GroupMetrics {
        final Map<String, LongSupplier> live = new java.util.TreeMap<>();
        final List<String> stopped = new ArrayList<>();

        @Override
        public void lagStarted(String group, String member, TopicPartition partition, LongSupplier lag) {
            live.put(group + "/" + member + "/" + partition.topic() + "-" + partition.partition(), lag);
        }

        @Override
        public void lagStopped(String group, String member, TopicPartition partition) {
            String key = group + "/" + member + "/" + partition.topic() + "-" + partition.partition();
            if (live.remove(key) != null) {
                stopped.add(key);
            }
        }
    }
}

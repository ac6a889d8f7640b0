package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The member's partitions together: fair sharing of workers, tickets routed back, stale owners dropped, commits. */
class OwnedPartitionsTest {

    private static final ProgressLimits LIMITS = new ProgressLimits(1_000, 3, 1L << 20);

    private static List<Fetched<String>> records(String partition, long from, long to) {
        List<Fetched<String>> l = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            l.add(new Fetched<>(o, "k" + o, 1, partition + "@" + o));
        }
        return l;
    }

    private static List<String> values(List<OwnedPartitions.Dispatched<String, String>> d) {
        return d.stream().map(x -> x.ticket().record()).toList();
    }

    @Test
    void workersAreSharedInTurnsAndTheFirstTurnMovesOnEachCall() {
        OwnedPartitions<String, String> owned = new OwnedPartitions<>(Ordering.UNORDERED, LIMITS);
        owned.assigned("a", 1, OffsetProgress.at(0)).append(records("a", 0, 5));
        owned.assigned("b", 1, OffsetProgress.at(0)).append(records("b", 0, 1));
        owned.assigned("c", 1, OffsetProgress.at(0));
        assertThat(values(owned.dispatch(5, 0))).containsExactly("a@0", "b@0", "a@1", "b@1", "a@2");
        assertThat(values(owned.dispatch(2, 0)))
                .as("b first this time; b and c have nothing")
                .containsExactly("a@3", "a@4");
        assertThat(owned.inFlight()).isEqualTo(7);
        assertThat(owned.dispatch(0, 0)).isEmpty();
        assertThatThrownBy(() -> owned.dispatch(-1, 0)).hasMessageContaining("capacity must be >= 0");
        assertThat(new OwnedPartitions<String, String>(Ordering.KEY, LIMITS).dispatch(4, 0))
                .isEmpty();
    }

    @Test
    void ticketsOfAPartitionClaimedAgainOrGoneAreDropped() {
        OwnedPartitions<String, String> owned = new OwnedPartitions<>(Ordering.KEY, LIMITS);
        owned.assigned("a", 1, OffsetProgress.at(0)).append(records("a", 0, 1));
        var first = owned.dispatch(4, 0);
        assertThat(owned.complete("a", first.get(0).ticket())).isTrue();

        PartitionProgress<String> again = owned.assigned("a", 2, OffsetProgress.at(1));
        assertThat(owned.complete("a", first.get(1).ticket()))
                .as("claimed again since")
                .isFalse();
        assertThat(again.lowWater()).isEqualTo(1);
        again.append(records("a", 1, 1));
        var second = owned.dispatch(4, 0);
        assertThat(second.get(0).ticket().epoch()).isEqualTo(2);

        owned.gone("a");
        assertThat(owned.complete("a", second.get(0).ticket())).as("gone").isFalse();
        assertThat(owned.retryLater("a", second.get(0).ticket(), 0)).isFalse();
        assertThat(owned.get("a")).isEmpty();
        assertThat(owned.droppedTickets()).isEqualTo(2); // the unowned ones; the old progress is no longer counted
        assertThat(again.isLost()).isTrue();
    }

    @Test
    void aCommitTakesWhatIsOwedAndARevokedPartitionStartsNothingMore() {
        OwnedPartitions<String, String> owned = new OwnedPartitions<>(Ordering.UNORDERED, LIMITS);
        owned.assigned("a", 1, OffsetProgress.at(0)).append(records("a", 0, 2));
        owned.assigned("b", 1, OffsetProgress.at(10));
        var t = owned.dispatch(2, 0);
        owned.complete("a", t.get(1).ticket());
        Map<String, OffsetProgress> owed = owned.owed();
        assertThat(owed).containsOnlyKeys("a");
        assertThat(ProgressCodec.encode(owed.get("a"))).hasValue("{\"from\":0,\"ranges\":[[1,1]]}");
        owned.committed(owed);
        owned.committed(Map.of("gone", OffsetProgress.at(3)));
        assertThat(owned.owed()).isEmpty();

        assertThat(owned.revoking("a")).isPresent();
        assertThat(owned.revoking("nope")).isEmpty();
        assertThat(owned.dispatch(4, 0)).as("a@2 may not start").isEmpty();
        owned.complete("a", t.get(0).ticket());
        assertThat(owned.get("a").map(PartitionProgress::drained)).hasValue(true);
        assertThat(owned.owed().get("a"))
                .isEqualTo(new OffsetProgress(2, new java.util.TreeSet<>(), new java.util.TreeMap<>()));
    }

    @Test
    void pausesAndRetriesAreReadOverAllPartitions() {
        OwnedPartitions<String, String> owned = new OwnedPartitions<>(Ordering.UNORDERED, LIMITS);
        owned.assigned("full", 1, OffsetProgress.at(0)).append(records("full", 0, 2));
        owned.assigned("empty", 1, OffsetProgress.at(0));
        assertThat(owned.pauses()).containsExactly(Map.entry("full", true), Map.entry("empty", false));
        assertThat(owned.nextRetryAt()).isEmpty();
        var t = owned.dispatch(3, 0);
        owned.retryLater("full", t.get(2).ticket(), 30);
        owned.retryLater("full", t.get(0).ticket(), 20);
        assertThat(owned.nextRetryAt()).hasValue(20);
        assertThat(owned.get("full").map(PartitionProgress::waitingRetries)).isEqualTo(Optional.of(2));
    }
}

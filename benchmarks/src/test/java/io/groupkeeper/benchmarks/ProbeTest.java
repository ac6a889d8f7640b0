package io.groupkeeper.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.benchmarks.rebalance.Probe;
import io.groupkeeper.benchmarks.support.Stats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The measurement rules of the side-by-side harness, event by event. */
class ProbeTest {

    @Test
    void doneNeedsEveryPartitionOwnedBalancedAndFetchedByItsOwnerAfterTheEvent() throws Exception {
        Probe probe = new Probe(4);
        probe.arm(System.nanoTime(), List.of("a", "b"), true);
        probe.assigned("a", List.of(0, 1));
        probe.assigned("b", List.of(2));
        assertThat(probe.done()).as("partition 3 unowned").isFalse();
        probe.assigned("b", List.of(3));
        assertThat(probe.done()).as("nothing fetched yet").isFalse();
        long now = System.nanoTime();
        for (int p = 0; p < 4; p++) {
            probe.delivered(p < 2 ? "a" : "b", p, now);
        }
        assertThat(probe.done()).isTrue();
        Probe.Sample s = probe.await(0, 1_000);
        assertThat(s).isNotNull();
        assertThat(s.totalMs()).isGreaterThanOrEqualTo(s.ownedMs());
        assertThat(s.gains()).isEqualTo(4);
        assertThat(s.overlaps()).isZero();
    }

    @Test
    void aRevokeAndReassignToTheSameMemberNeedsAFreshFetch() {
        Probe probe = new Probe(2);
        probe.arm(System.nanoTime(), List.of("a", "b"), true);
        probe.assigned("a", List.of(0));
        probe.assigned("b", List.of(1));
        probe.delivered("a", 0, System.nanoTime());
        probe.delivered("b", 1, System.nanoTime());
        assertThat(probe.done()).isTrue();
        // An eager rebalance: everything revoked, then given back.
        probe.revoked("a", List.of(0));
        probe.revoked("b", List.of(1));
        probe.assigned("a", List.of(0));
        probe.assigned("b", List.of(1));
        assertThat(probe.done()).as("owned again but not fetched since").isFalse();
        probe.delivered("a", 0, System.nanoTime());
        probe.delivered("b", 1, System.nanoTime());
        assertThat(probe.done()).isTrue();
    }

    @Test
    void overlapsAreCountedAndDeadMembersIgnored() {
        Probe probe = new Probe(2);
        probe.arm(System.nanoTime(), List.of("a", "b"), true);
        probe.assigned("a", List.of(0, 1));
        probe.assigned("b", List.of(1)); // a still holds 1
        probe.delivered("a", 1, System.nanoTime()); // a no longer owns 1
        assertThat(probe.overlaps()).isEqualTo(2);
        assertThat(probe.overlapReport())
                .containsEntry("gainsWhileHeldByAnother", 1)
                .containsEntry("deliveriesToNonOwner", 1);

        probe.arm(System.nanoTime(), List.of("b"), true);
        probe.kill("a");
        probe.delivered("a", 0, System.nanoTime());
        probe.assigned("a", List.of(0));
        assertThat(probe.overlaps()).as("a is dead: ignored").isEqualTo(2);
        assertThat(probe.done()).as("partition 0 lost its owner").isFalse();
        probe.assigned("b", List.of(0));
        probe.delivered("b", 0, System.nanoTime());
        probe.delivered("b", 1, System.nanoTime());
        assertThat(probe.done()).isTrue();
    }

    @Test
    void aLeavingMemberMayStillDeliverWhatItOwnsUntilItsRevocation() {
        Probe probe = new Probe(2);
        probe.arm(System.nanoTime(), List.of("a", "b"), true);
        probe.assigned("a", List.of(0));
        probe.assigned("b", List.of(1));
        probe.arm(System.nanoTime(), List.of("a"), true); // b leaves
        probe.delivered("b", 1, System.nanoTime()); // polled before it saw the leave: not an overlap
        assertThat(probe.overlaps()).isZero();
        assertThat(probe.done()).as("b is not live").isFalse();
        probe.revoked("b", List.of(1));
        probe.assigned("a", List.of(1));
        probe.delivered("a", 0, System.nanoTime());
        probe.delivered("a", 1, System.nanoTime());
        assertThat(probe.done()).isTrue();
        assertThat(probe.overlaps()).isZero();
    }

    @Test
    void ownershipOnlySubjectsAreDoneWhenOwned() {
        Probe probe = new Probe(2);
        probe.arm(System.nanoTime(), List.of("a"), false);
        probe.assigned("a", List.of(0, 1));
        assertThat(probe.done()).isTrue();
    }

    @Test
    void statsUseNearestRank() {
        Stats s = Stats.of(List.of(10, 1, 9, 2, 8, 3, 7, 4, 6, 5));
        assertThat(s.n()).isEqualTo(10);
        assertThat(s.p50()).isEqualTo(5);
        assertThat(s.p95()).isEqualTo(10);
        assertThat(s.max()).isEqualTo(10);
        assertThat(s.min()).isEqualTo(1);
        assertThat(Stats.of(List.of()).isEmpty()).isTrue();
    }
}

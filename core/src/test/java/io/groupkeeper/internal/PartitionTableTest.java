package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.Lease;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The partition state machine: declared transitions enforced, and no held partition forgotten without a proof. */
class PartitionTableTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final Lease LEASE = new Lease(7, 100);

    private static OffsetSnapshot offset(long version) {
        return new OffsetSnapshot(OptionalLong.of(5), "", version);
    }

    @Test
    void aClaimedPartitionIsOwnedWithItsLeaseAndToken() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        assertThat(table.inState(PartitionState.WAITING)).containsExactly(P0);
        PartitionTable.Entry e = table.own(P0, offset(3), LEASE);
        assertThat(table.owned()).containsExactly(P0);
        assertThat(table.announced()).isEmpty();
        assertThat(table.fencingToken(P0)).isEmpty();
        assertThat(table.committable(P0))
                .as("user code has not heard of the claim yet")
                .isEmpty();
        table.announce(P0, e);
        assertThat(table.announced()).containsExactly(P0);
        assertThat(table.fencingToken(P0)).hasValue(100);
        assertThat(table.fencingToken(P1)).isEmpty();
        assertThat(table.committable(P0))
                .get()
                .extracting(PartitionTable.Entry::version)
                .isEqualTo(3L);
    }

    @Test
    void illegalTransitionsAreRefused() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        table.own(P0, offset(1), LEASE);
        assertThatThrownBy(() -> table.own(P0, offset(2), LEASE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("OWNED -> OWNED");
        table.beginRevocation(List.of(P0));
        assertThatThrownBy(() -> table.own(P0, offset(2), LEASE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REVOKING -> OWNED");
    }

    @Test
    void aHeldPartitionLeavesOnlyWithAProof() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        PartitionTable.Entry owned = table.own(P0, offset(1), LEASE);
        assertThatThrownBy(() -> table.forget(P0, owned, null, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs a proof");
        assertThat(table.owned()).containsExactly(P0);
        assertThat(table.forget(P0, owned, PartitionTable.Proof.RELEASED, false))
                .isTrue();
        assertThat(table.get(P0)).isEmpty();

        table.want(P1);
        PartitionTable.Entry waiting = table.get(P1).orElseThrow();
        assertThat(table.forget(P1, waiting, null, false))
                .as("a waiting partition holds nothing")
                .isTrue();
    }

    @Test
    void aStaleEntryIsNotForgottenOnBehalfOfANewerClaim() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        PartitionTable.Entry first = table.own(P0, offset(1), LEASE);
        table.stop(P0, 0);
        table.own(P0, offset(2), new Lease(7, 101)); // re-confirmed: a new entry
        assertThat(table.forget(P0, first, PartitionTable.Proof.NOT_HELD, false))
                .isFalse();
        assertThat(table.owned()).containsExactly(P0);
        assertThat(table.committed(P0, first, 9, 0, 10)).isFalse();
    }

    @Test
    void aConnectionInDoubtStopsEveryHeldPartitionAndReportsTheOwnedOnes() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        table.want(P1);
        table.announce(P0, table.own(P0, offset(1), LEASE));
        table.own(P1, offset(1), LEASE);
        table.beginRevocation(List.of(P1));
        assertThat(table.stopAllHeld())
                .as("only OWNED ones were being processed")
                .containsExactly(P0);
        assertThat(table.inState(PartitionState.STOPPED)).containsExactly(P0, P1);
        assertThat(table.committable(P0)).isEmpty();
        assertThat(table.get(P0).orElseThrow().lease())
                .as("the lease is kept for the release")
                .isEqualTo(LEASE);
        assertThat(table.claimable(List.of(P0, P1))).containsExactly(P0, P1);
    }

    @Test
    void finalOffsetsAreTakenOnlyWhileRevoking() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        table.announce(P0, table.own(P0, offset(1), LEASE));
        PartitionTable.FinalOffset f = new PartitionTable.FinalOffset(42, OptionalLong.empty());
        assertThat(table.handOver(P0, f)).isFalse();
        table.beginRevocation(List.of(P0));
        assertThat(table.committable(P0))
                .as("the revocation callback may still commit")
                .isPresent();
        assertThat(table.fencingToken(P0))
                .as("and write its batch under the claim's token")
                .hasValue(100);
        assertThat(table.handOver(P0, f)).isTrue();
        assertThat(table.revoking(List.of(P0)).get(P0))
                .extracting(PartitionTable::finalOffset)
                .isEqualTo(java.util.Optional.of(f));
    }

    @Test
    void aClaimUserCodeHasNotHeardOfTakesNoFinalOffset() {
        PartitionTable table = new PartitionTable();
        table.want(P0);
        table.own(P0, offset(1), LEASE); // claimed (again, after a loss), its assignment still queued
        table.beginRevocation(List.of(P0));
        PartitionTable.FinalOffset stale = new PartitionTable.FinalOffset(40, OptionalLong.empty());

        assertThat(table.handOver(P0, stale))
                .as("a final offset handed over now comes from an earlier claim's position")
                .isFalse();
        assertThat(table.revoking(List.of(P0)).get(P0))
                .extracting(PartitionTable::finalOffset)
                .isEqualTo(java.util.Optional.empty());
    }
}

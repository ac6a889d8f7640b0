package io.groupkeeper.internal;

import static io.groupkeeper.internal.MemberParts.T0;
import static io.groupkeeper.internal.MemberParts.T1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.spi.StoreException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The committer alone, over a scripted store: fenced commits (the version and session of the claim), external edits
 * adopted (I4), losses told (I7 / I1), final offsets handed over only during a revocation.
 */
class OffsetCommitterTest {

    private final MemberParts m = new MemberParts();

    private void owning(io.groupkeeper.TopicPartition... tps) {
        m.store.target(1, tps);
        m.step();
        m.store.calls.clear();
        m.listener.events.clear();
    }

    @Test
    void aCommitIsFencedByTheVersionTheMemberLastSaw() {
        owning(T0);
        long version = m.store.stored(T0).version();

        CommitResult r = m.committer.commit(Map.of(T0, 5L), Map.of());

        assertThat(r.status(T0)).isEqualTo(Status.COMMITTED);
        assertThat(m.store.callsOf("commit")).containsExactly("commit [t:0=5@" + version + "]");
        assertThat(m.store.stored(T0).offset()).hasValue(5);
        assertThat(m.table.owned(T0))
                .get()
                .extracting(PartitionTable.Entry::version)
                .isEqualTo(version + 1);
    }

    @Test
    void successiveCommitsPresentEachNewVersion() {
        owning(T0);
        m.committer.commit(Map.of(T0, 5L), Map.of());
        CommitResult r = m.committer.commit(Map.of(T0, 9L), Map.of());

        assertThat(r.allCommitted()).isTrue();
        assertThat(m.store.stored(T0).offset()).hasValue(9);
        assertThat(m.store.callsOf("readIfOwned"))
                .as("no read between own commits")
                .isEmpty();
    }

    @Test
    void severalPartitionsAreCommittedInOneRoundTrip() {
        owning(T0, T1);
        CommitResult r = m.committer.commit(Map.of(T0, 1L, T1, 2L), Map.of());

        assertThat(r.allCommitted()).isTrue();
        assertThat(m.store.callsOf("commit")).hasSize(1);
    }

    @Test
    void aPartitionNotOwnedIsRefusedWithoutARoundTrip() {
        owning(T0);
        CommitResult r = m.committer.commit(Map.of(T1, 5L), Map.of());

        assertThat(r.status(T1)).isEqualTo(Status.NOT_OWNED);
        assertThat(m.store.calls).isEmpty();
    }

    @Test
    void aClaimIsNotCommittableBeforeUserCodeWasToldOfIt() {
        owning(T0);
        m.table.own(
                T1, m.store.stored(T1), new io.groupkeeper.spi.internal.Lease(m.store.session, 1)); // not announced yet

        assertThat(m.committer.commit(Map.of(T1, 3L), Map.of()).status(T1)).isEqualTo(Status.NOT_OWNED);
        assertThat(m.store.calls).isEmpty();
    }

    @Test
    void anExternalEditIsAdoptedNotOverwritten() {
        owning(T0);
        m.store.writeOffset(T0, 99); // an admin reset

        CommitResult r = m.committer.commit(Map.of(T0, 5L), Map.of());

        assertThat(r.status(T0)).isEqualTo(Status.ADOPTED);
        assertThat(r.adoptedOffsets()).containsEntry(T0, OptionalLong.of(99));
        assertThat(m.store.stored(T0).offset()).hasValue(99);
        assertThat(m.committer.commit(Map.of(T0, 100L), Map.of()).status(T0))
                .as("then at the adopted version")
                .isEqualTo(Status.COMMITTED);
    }

    @Test
    void aCommitWhoseReplyWasLostIsRecognisedAsTheMembersOwnWriteNotAdopted() {
        owning(T0);
        m.store.loseNextCommitReply = true;
        assertThatThrownBy(() -> m.committer.commit(Map.of(T0, 5L), Map.of(), Map.of(), Map.of(T0, "{\"d\":[7]}")))
                .isInstanceOf(StoreException.class);
        assertThat(m.store.stored(T0).offset()).as("the write landed").hasValue(5);

        CommitResult r = m.committer.commit(Map.of(T0, 6L), Map.of());

        assertThat(r.status(T0))
                .as("its own write read back: no reset to adopt")
                .isEqualTo(Status.UNCHANGED);
        assertThat(r.adoptedOffsets()).isEmpty();
        assertThat(m.committer.commit(Map.of(T0, 6L), Map.of()).status(T0))
                .as("then at the version it wrote")
                .isEqualTo(Status.COMMITTED);
        assertThat(m.store.stored(T0).offset()).hasValue(6);
    }

    @Test
    void anEditAfterACommitWhoseReplyWasLostIsStillAdopted() {
        owning(T0);
        m.store.loseNextCommitReply = true;
        assertThatThrownBy(() -> m.committer.commit(Map.of(T0, 5L), Map.of())).isInstanceOf(StoreException.class);
        m.store.writeOffset(T0, 99); // an admin reset after the lost commit

        CommitResult r = m.committer.commit(Map.of(T0, 6L), Map.of());

        assertThat(r.status(T0)).isEqualTo(Status.ADOPTED);
        assertThat(r.adoptedOffsets()).containsEntry(T0, OptionalLong.of(99));
    }

    @Test
    void aNodeCreatedAgainAtTheSameVersionIsAnEditToo() {
        owning(T0);
        long version = m.store.stored(T0).version();
        m.store.recreateOffset(T0, 7, version);

        CommitResult r = m.committer.refresh(List.of(T0));

        assertThat(r.status(T0)).isEqualTo(Status.ADOPTED);
        assertThat(r.adoptedOffsets()).containsEntry(T0, OptionalLong.of(7));
    }

    @Test
    void aCommitFencedBecauseThePartitionWasTakenReportsItLostAndAsksForAStep() {
        owning(T0);
        m.store.held.remove(T0);
        m.store.takenBy(T0, "other");

        CommitResult r = m.committer.commit(Map.of(T0, 5L), Map.of());
        m.settle();

        assertThat(r.status(T0)).isEqualTo(Status.NOT_OWNED);
        assertThat(m.listener.events).containsExactly("lost [t:0]");
        assertThat(m.reconcileRequests).isEqualTo(1);
        assertThat(m.table.owned()).isEmpty();
        assertThat(m.store.stored(T0).offset()).isNotEqualTo(OptionalLong.of(5));
    }

    @Test
    void aRefreshOfAnUnchangedNodeSaysSo() {
        owning(T0);
        assertThat(m.committer.refresh(List.of(T0)).status(T0)).isEqualTo(Status.UNCHANGED);
        assertThat(m.committer.refresh(List.of(T1)).status(T1)).isEqualTo(Status.NOT_OWNED);
    }

    @Test
    void aStoreFailureReachesTheCallerAndKeepsThePartition() {
        owning(T0);
        m.store.failNext("commit", 1);

        assertThatThrownBy(() -> m.committer.commit(Map.of(T0, 5L), Map.of())).isInstanceOf(StoreException.class);
        assertThat(m.table.owned()).containsExactly(T0);
        assertThat(m.committer.commit(Map.of(T0, 5L), Map.of()).status(T0)).isEqualTo(Status.COMMITTED);
    }

    @Test
    void aNegativeOffsetIsRefusedNamingThePartition() {
        owning(T0);
        assertThatThrownBy(() -> m.committer.commit(Map.of(T0, -1L), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t:0")
                .hasMessageContaining("-1");
        assertThat(m.store.calls).isEmpty();
    }

    @Test
    void aFinalOffsetIsTakenOnlyDuringARevocation() {
        owning(T0);
        assertThat(m.committer.commitOnRelease(Map.of(T0, 5L), Map.of())).isEmpty();
        m.table.beginRevocation(List.of(T0));
        assertThat(m.committer.commitOnRelease(Map.of(T0, 5L), Map.of(T0, 10L))).containsExactly(T0);
        assertThat(m.table.get(T0).flatMap(PartitionTable::finalOffset))
                .get()
                .isEqualTo(new PartitionTable.FinalOffset(5, OptionalLong.of(10)));
    }

    @Test
    void aDoneValueIsWrittenBesideTheOffsetAndACommitWithoutOneClearsIt() {
        owning(T0);
        String done = "{\"from\":5,\"ranges\":[[7,8]]}";

        assertThat(m.committer
                        .commit(Map.of(T0, 5L), Map.of(), Map.of(), Map.of(T0, done))
                        .status(T0))
                .isEqualTo(Status.COMMITTED);
        assertThat(m.store.stored(T0).done()).hasValue(done);
        assertThat(m.table.done(T0)).as("what this member last wrote").hasValue(done);

        m.committer.commit(Map.of(T0, 9L), Map.of());
        assertThat(m.store.stored(T0).done()).isEmpty();
        assertThat(m.table.done(T0)).isEmpty();
    }

    @Test
    void anAdoptedEditBringsItsOwnDoneValue() {
        owning(T0);
        m.committer.commit(Map.of(T0, 5L), Map.of(), Map.of(), Map.of(T0, "{\"from\":5,\"ranges\":[[7,8]]}"));
        m.store.writeOffset(T0, 2); // an admin reset: no done value

        assertThat(m.committer.refresh(List.of(T0)).status(T0)).isEqualTo(Status.ADOPTED);
        assertThat(m.table.done(T0)).isEmpty();
    }

    @Test
    void aDoneValueThatIsNotAJsonObjectIsRefusedNamingThePartitionBeforeAnyWrite() {
        owning(T0);
        assertThatThrownBy(() -> m.committer.commit(Map.of(T0, 5L), Map.of(), Map.of(), Map.of(T0, "7,8")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t:0")
                .hasMessageContaining("7,8");
        m.table.beginRevocation(List.of(T0));
        assertThatThrownBy(() -> m.committer.commitOnRelease(Map.of(T0, 5L), Map.of(), Map.of(T0, "[1]")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t:0");
        assertThat(m.store.calls).isEmpty();
        assertThat(m.table.get(T0).flatMap(PartitionTable::finalOffset)).isEmpty();
    }

    @Test
    void anOwnedPartitionsEditIsAnnouncedToUserCode() {
        owning(T0);
        m.store.writeOffset(T0, 50);
        assertThat(m.committer.checkExternalEdit(T0, () -> {})).isTrue();
        m.settle();
        assertThat(m.listener.events).containsExactly("changed [t:0]");
    }

    @Test
    void anUnchangedNodeIsNotAnnounced() {
        owning(T0);
        assertThat(m.committer.checkExternalEdit(T0, () -> {})).isTrue();
        m.settle();
        assertThat(m.listener.events).isEmpty();
    }
}

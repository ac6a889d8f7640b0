package io.groupkeeper.internal;

import static io.groupkeeper.internal.MemberParts.T0;
import static io.groupkeeper.internal.MemberParts.T1;
import static io.groupkeeper.internal.MemberParts.T2;
import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.ClaimResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The reconciler alone, over a scripted store and a manual scheduler: assignment, revocation with final offsets,
 * waiting for a previous owner, failures and their retries, stopped partitions (re-confirmed, forgotten, handed over
 * in a new session) and the leave.
 */
class ReconcilerTest {

    private final MemberParts m = new MemberParts();

    /** The member owns {@code tps} at generation 1, user code told. */
    private void owning(TopicPartition... tps) {
        m.store.target(1, tps);
        m.step();
        assertThat(m.table.owned()).containsExactly(tps);
        m.store.calls.clear();
        m.listener.events.clear();
    }

    /** User code hands over {@code offset} for every partition revoked. */
    private void handingOver(long offset) {
        m.listener.onRevoked = revoked -> {
            Map<TopicPartition, Long> finals = new java.util.HashMap<>();
            revoked.forEach(tp -> finals.put(tp, offset));
            m.committer.commitOnRelease(finals, Map.of());
        };
    }

    // ------------------------------------------------------------------ assignment

    @Test
    void theFirstStepClaimsTheTargetAndTellsUserCodeOnce() {
        m.store.target(1, T0, T1);
        m.step();

        assertThat(m.store.callsOf("claim")).containsExactly("claim t:0", "claim t:1");
        assertThat(m.table.owned()).containsExactly(T0, T1);
        assertThat(m.table.announced()).containsExactly(T0, T1);
        assertThat(m.reconciler.generation()).isEqualTo(1);
        assertThat(m.listener.events).containsExactly("assigned {t:0=OptionalLong.empty, t:1=OptionalLong.empty}");
    }

    @Test
    void userCodeIsToldTheStoredOffsetOfEachClaim() {
        m.store.writeOffset(T0, 17);
        m.store.target(1, T0);
        m.step();

        assertThat(m.listener.events).containsExactly("assigned {t:0=OptionalLong[17]}");
        assertThat(m.table.owned(T0)).get().extracting(e -> e.offset()).isEqualTo(java.util.OptionalLong.of(17));
    }

    @Test
    void aStepWithAnUnchangedTargetTouchesNoPartition() {
        owning(T0, T1);
        m.step();

        assertThat(m.store.calls).containsExactly("readTarget");
        assertThat(m.listener.events).isEmpty();
    }

    @Test
    void aNewTargetIsFollowedWithoutATouchOfThePartitionsThatStay() {
        owning(T0, T1);
        m.target(2, T0, T1, T2); // the armed target hook steps

        assertThat(m.store.callsOf("claim")).containsExactly("claim t:2");
        assertThat(m.store.callsOf("releaseAll")).isEmpty();
        assertThat(m.listener.events).containsExactly("assigned {t:2=OptionalLong.empty}");
        assertThat(m.reconciler.generation()).isEqualTo(2);
    }

    @Test
    void aStepDoesNothingWhileTheMemberIsNotRunning() {
        m.store.target(1, T0);
        m.running = false;
        m.step();

        assertThat(m.store.calls).isEmpty();
        assertThat(m.table.owned()).isEmpty();
    }

    // ------------------------------------------------------------------ revocation

    @Test
    void aRevokedPartitionIsReleasedAfterTheCallbackWithItsFinalOffset() {
        owning(T0, T1);
        long version = m.store.stored(T1).version();
        handingOver(42);
        m.target(2, T0);

        assertThat(m.listener.events).containsExactly("revoked [t:1]");
        assertThat(m.store.callsOf("releaseAll")).containsExactly("releaseAll [t:1@" + version + "+42]");
        assertThat(m.store.stored(T1).offset()).hasValue(42);
        assertThat(m.store.held).containsOnlyKeys(T0);
        assertThat(m.state(T1)).isNull();
        assertThat(m.table.owned()).containsExactly(T0);
    }

    @Test
    void aFinalOffsetsDoneValueIsWrittenWithTheRelease() {
        owning(T0, T1);
        long version = m.store.stored(T1).version();
        m.listener.onRevoked = revoked -> m.committer.commitOnRelease(
                Map.of(T1, 42L), Map.of(), Map.of(T1, "{\"from\":42,\"ranges\":[[44,45]]}"));
        m.target(2, T0);

        assertThat(m.store.callsOf("releaseAll"))
                .containsExactly("releaseAll [t:1@" + version + "+42+{\"from\":42,\"ranges\":[[44,45]]}]");
        assertThat(m.store.stored(T1).done()).hasValue("{\"from\":42,\"ranges\":[[44,45]]}");
    }

    @Test
    void userCodeCanReadTheDoneValueStoredWithTheOffsetItResumesFrom() {
        m.store.writeOffset(T0, 17, "{\"from\":17,\"ranges\":[[19,19]]}");
        m.store.target(1, T0, T1);
        m.step();

        assertThat(m.table.done(T0)).hasValue("{\"from\":17,\"ranges\":[[19,19]]}");
        assertThat(m.table.done(T1)).as("a node without one").isEmpty();
        assertThat(m.table.done(T2)).as("not owned").isEmpty();
    }

    @Test
    void aRevocationWithoutAFinalOffsetReleasesWithoutAWrite() {
        owning(T0, T1);
        long version = m.store.stored(T1).version();
        m.target(2, T0);

        assertThat(m.store.callsOf("releaseAll")).containsExactly("releaseAll [t:1@" + version + "]");
        assertThat(m.store.stored(T1).version()).isEqualTo(version);
        assertThat(m.store.held).containsOnlyKeys(T0);
    }

    @Test
    void theReleaseWaitsForTheRevocationCallback() {
        owning(T0);
        m.store.target(2);
        m.lane.execute(m.reconciler::step);
        // Run the lane's step only: the callback is queued behind it on its own lane.
        m.scheduler.runReady();

        assertThat(m.listener.events).containsExactly("revoked [t:0]");
        assertThat(m.store.held).isEmpty();
        int revokedAt = m.store.calls.indexOf("readTarget");
        assertThat(m.store.calls.subList(revokedAt, m.store.calls.size())).anyMatch(c -> c.startsWith("releaseAll"));
    }

    @Test
    void anExternalEditDuringTheRevocationWinsOverTheFinalOffset() {
        owning(T1);
        m.listener.onRevoked = revoked -> {
            m.store.writeOffset(T1, 7); // an admin reset while user code stops
            m.committer.commitOnRelease(Map.of(T1, 42L), Map.of());
        };
        m.target(2);

        assertThat(m.store.stored(T1).offset())
                .as("I4: the edit is not overwritten")
                .hasValue(7);
        assertThat(m.store.held).isEmpty();
        assertThat(m.store.callsOf("release")).hasSize(2); // refused at the old version, then at the new one
        assertThat(m.state(T1)).isNull();
    }

    // ------------------------------------------------------------------ waiting and blocked claims

    @Test
    void aPartitionStillHeldByItsPreviousOwnerIsClaimedWhenReleased() {
        m.store.takenBy(T2, "previous");
        m.store.target(1, T2);
        m.step();
        assertThat(m.state(T2)).isEqualTo(PartitionState.WAITING);
        assertThat(m.listener.events).isEmpty();

        m.store.releasedByOther(T2);
        m.settle();

        assertThat(m.state(T2)).isEqualTo(PartitionState.OWNED);
        assertThat(m.listener.events).containsExactly("assigned {t:2=OptionalLong[0]}");
        assertThat(m.store.callsOf("readTarget")).hasSize(1); // the wake-up claims without re-reading the target
    }

    @Test
    void aBlockedPartitionWaitsWhileTheOthersAreClaimed() {
        m.store.scriptClaim(T0, new ClaimResult.Blocked("offset node /g/t/0 is corrupt"));
        m.store.target(1, T0, T1);
        m.step();

        assertThat(m.state(T0)).isEqualTo(PartitionState.WAITING);
        assertThat(m.state(T1)).isEqualTo(PartitionState.OWNED);

        m.store.releasedByOther(T0); // the node repaired: the hook fires
        m.settle();
        assertThat(m.state(T0)).isEqualTo(PartitionState.OWNED);
    }

    // ------------------------------------------------------------------ failures and retries

    @Test
    void aClaimThatFailedMayHaveLandedSoThePartitionIsStoppedAndClaimedAgain() {
        m.store.failNext("claim", 1);
        m.store.target(1, T0, T1);
        m.step();

        assertThat(m.state(T0)).isEqualTo(PartitionState.STOPPED);
        assertThat(m.state(T1)).isEqualTo(PartitionState.OWNED);
        assertThat(m.scheduler.delays())
                .hasSize(1)
                .allSatisfy(d -> assertThat(d).isBetween(50L, 2_000L));

        m.scheduler.advance(m.scheduler.delays().get(0));
        assertThat(m.state(T0)).isEqualTo(PartitionState.OWNED);
        assertThat(m.listener.events)
                .containsExactly("assigned {t:1=OptionalLong.empty}", "assigned {t:0=OptionalLong.empty}");
    }

    @Test
    void aFailedStepIsRetriedWithGrowingJitteredDelays() {
        m.store.failNext("readTarget", 4);
        m.store.target(1, T0);
        m.step();
        for (int i = 0; i < 4; i++) {
            List<Long> delays = m.scheduler.delays();
            m.scheduler.advance(delays.get(delays.size() - 1));
        }

        List<Long> delays = m.scheduler.delays();
        assertThat(delays).hasSize(4);
        assertThat(delays.get(0)).isEqualTo(RetryDelays.MIN_MS);
        for (int i = 1; i < delays.size(); i++) {
            assertThat(delays.get(i))
                    .isBetween(RetryDelays.MIN_MS, Math.min(RetryDelays.MAX_MS, 3 * delays.get(i - 1)));
        }
        assertThat(m.table.owned()).containsExactly(T0);
    }

    @Test
    void aBatchedReleaseWhoseAnswerWasLostIsRetriedAloneWithItsFinalOffset() {
        owning(T0, T1);
        handingOver(42);
        m.store.failNext("releaseAll", 1);
        m.target(2);

        assertThat(m.store.callsOf("releaseAll")).hasSize(3); // the batch, then each alone
        assertThat(m.store.stored(T0).offset()).hasValue(42);
        assertThat(m.store.stored(T1).offset()).hasValue(42);
        assertThat(m.store.held).isEmpty();
    }

    @Test
    void aReleaseThatKeepsFailingLeavesThePartitionStoppedWithItsFinalOffsetForALaterStep() {
        owning(T1);
        handingOver(42);
        m.store.failNext("releaseAll", 2);
        m.target(2);

        assertThat(m.state(T1)).isEqualTo(PartitionState.STOPPED);
        assertThat(m.table.get(T1).flatMap(PartitionTable::finalOffset)).isPresent();
        m.scheduler.advance(RetryDelays.MAX_MS);

        assertThat(m.store.stored(T1).offset()).hasValue(42);
        assertThat(m.store.held).isEmpty();
        assertThat(m.state(T1)).isNull();
    }

    // ------------------------------------------------------------------ stopped partitions

    @Test
    void aStoppedPartitionStillTargetedIsReconfirmedByAClaim() {
        owning(T0);
        m.table.stopAllHeld(); // the connection was in doubt
        m.step();

        assertThat(m.store.callsOf("claim")).containsExactly("claim t:0");
        assertThat(m.state(T0)).isEqualTo(PartitionState.OWNED);
    }

    @Test
    void aStoppedPartitionWithAFinalOffsetWantedAgainIsReleasedWithItBeforeItIsClaimedAgain() {
        // Simulator seed 134157 (unkindest): the connection went in doubt after the revocation callback handed a final
        // offset over and before the release; the target gave the partition back, and the re-confirming claim dropped
        // the final offset: user code started from the stored offset (none: the log end).
        owning(T0, T1);
        m.listener.onRevoked = revoked -> {
            m.committer.commitOnRelease(Map.of(T1, 42L), Map.of());
            m.table.stopAllHeld(); // the connection is in doubt before the release
            m.running = false;
        };
        m.target(2, T0);
        assertThat(m.state(T1)).isEqualTo(PartitionState.STOPPED);
        assertThat(m.store.held).as("still held: the release did not go").containsKey(T1);
        m.listener.onRevoked = revoked -> {};
        m.running = true; // back in the same session

        m.target(3, T0, T1);

        assertThat(m.store.stored(T1).offset())
                .as("written with a release first")
                .hasValue(42);
        assertThat(m.state(T1)).isEqualTo(PartitionState.OWNED);
        assertThat(m.table.owned(T1)).get().extracting(e -> e.offset()).isEqualTo(java.util.OptionalLong.of(42));
        assertThat(m.listener.events).anyMatch(e -> e.startsWith("assigned {") && e.contains("t:1=OptionalLong[42]"));
    }

    @Test
    void aStoppedPartitionNoLongerHeldIsForgottenWithoutARelease() {
        owning(T0);
        m.table.stopAllHeld();
        m.store.newSession(); // its owner node went with the session
        m.target(2);

        assertThat(m.state(T0)).isNull();
        assertThat(m.store.callsOf("releaseAll")).isEmpty();
        assertThat(m.store.callsOf("release")).isEmpty();
    }

    @Test
    void aStoppedPartitionStillHeldAndNoLongerTargetedIsReleased() {
        owning(T0);
        m.table.stopAllHeld();
        m.target(2);

        assertThat(m.store.callsOf("ownedVersion")).containsExactly("ownedVersion t:0");
        assertThat(m.store.held).isEmpty();
        assertThat(m.state(T0)).isNull();
    }

    @Test
    void aStoppedPartitionIsReleasedOnlyOnceTheCallbacksQueuedBeforeItReturned() {
        // Simulator seed 29590 (I1): a target moves the partition away and its revocation callback is queued, but the
        // callback lane is busy or frozen; a blip in the same session stops the partition. The next step must not
        // release it (letting the next owner start) while user code, not yet back from its callback, may process it.
        MemberParts slow = new MemberParts(new ManualScheduler());
        slow.store.target(1, T0);
        slow.step();
        slow.callbacks.runReady();
        slow.invoker.offsetsChanged(new java.util.TreeSet<>(List.of(T0))); // a callback the lane has not run yet
        slow.target(2); // so the revocation is queued behind it
        assertThat(slow.state(T0)).isEqualTo(PartitionState.REVOKING);
        slow.table.stopAllHeld(); // the connection was in doubt, back in the same session

        slow.step();
        assertThat(slow.store.held)
                .as("released before user code returned from its callback")
                .containsKey(T0);

        slow.callbacks.runReady(); // user code returns from onPartitionsRevoked
        slow.settle();
        assertThat(slow.listener.events)
                .containsExactly("assigned {t:0=OptionalLong.empty}", "changed [t:0]", "revoked [t:0]");
        assertThat(slow.store.held).isEmpty();
        assertThat(slow.state(T0)).isNull();
    }

    @Test
    void aFinalOffsetThatOutlivedItsSessionIsHandedOverInTheNextOne() {
        owning(T1);
        handingOver(42);
        m.store.failNext("releaseAll", 2);
        m.target(2);
        assertThat(m.state(T1)).isEqualTo(PartitionState.STOPPED);

        m.store.newSession();
        m.scheduler.advance(RetryDelays.MAX_MS);

        assertThat(m.store.callsOf("claim")).containsExactly("claim t:1");
        assertThat(m.store.stored(T1).offset()).as("written for the successor").hasValue(42);
        assertThat(m.store.held).isEmpty();
        assertThat(m.state(T1)).isNull();
    }

    @Test
    void aFinalOffsetComesTooLateOnceTheSuccessorHoldsThePartition() {
        owning(T1);
        handingOver(42);
        m.store.failNext("releaseAll", 2);
        m.target(2);
        m.store.newSession();
        m.store.takenBy(T1, "heir");
        m.scheduler.advance(RetryDelays.MAX_MS);

        assertThat(m.store.stored(T1).offset())
                .as("the successor's offset stands")
                .isNotEqualTo(java.util.OptionalLong.of(42));
        assertThat(m.store.others).containsEntry(T1, "heir");
        assertThat(m.state(T1)).isNull();
    }

    @Test
    void aFinalOffsetIsNotWrittenOverAnOperatorsWriteOfTheOffsetTheMemberSaw() {
        // Simulator seed 18310 (I4): cut off with t:0 at 0, the member missed an operator's reset to 0; its final
        // offset outlived the session and, claimed again in the next one, went over the reset: the offset was the same.
        m.store.writeOffset(T1, 5);
        owning(T1);
        handingOver(42);
        m.store.failNext("releaseAll", 2);
        m.target(2);
        assertThat(m.state(T1)).isEqualTo(PartitionState.STOPPED);
        m.store.writeOffset(T1, 5); // an operator's reset to the offset the member last saw, which it never hears of
        m.store.newSession();
        m.scheduler.advance(RetryDelays.MAX_MS);

        assertThat(m.store.callsOf("claim")).containsExactly("claim t:1");
        assertThat(m.store.stored(T1).offset())
                .as("the operator's write stands")
                .hasValue(5);
        assertThat(m.store.held).isEmpty();
        assertThat(m.state(T1)).isNull();
    }

    @Test
    void aFinalOffsetIsNotWrittenOverANodeCreatedAgainAtTheSameVersion() {
        owning(T1);
        handingOver(42);
        m.store.failNext("releaseAll", 2);
        m.target(2);
        long version = m.store.stored(T1).version();
        m.store.recreateOffset(T1, 7, version); // deleted and created again by hand, same version, same session
        m.scheduler.advance(RetryDelays.MAX_MS);

        assertThat(m.store.stored(T1).offset()).as("the hand-made node stands").hasValue(7);
        assertThat(m.store.callsOf("releaseAll")).last().isEqualTo("releaseAll [t:1@" + version + "]");
        assertThat(m.store.held).isEmpty();
    }

    // ------------------------------------------------------------------ leave

    @Test
    void aLeaveRevokesEverythingAndReleasesItWithTheFinalOffsets() {
        owning(T0, T1);
        handingOver(42);
        m.running = false;
        CompletableFuture<Void> left = m.reconciler.leave(() -> false);
        m.settle();

        assertThat(left).isDone();
        assertThat(m.listener.events).containsExactly("revoked [t:0, t:1]");
        assertThat(m.store.stored(T0).offset()).hasValue(42);
        assertThat(m.store.stored(T1).offset()).hasValue(42);
        assertThat(m.store.held).isEmpty();
    }

    @Test
    void aLeaveWithNothingHeldIsDoneAtOnce() {
        m.running = false;
        assertThat(m.reconciler.leave(() -> false)).isDone();
        assertThat(m.store.calls).isEmpty();
    }

    @Test
    void aLeaveWhoseReleaseFailedRetriesWithBackoffWhileConnected() {
        owning(T0);
        m.running = false;
        m.store.failNext("releaseAll", 4); // the batch and alone, twice: the revoked, then the stopped
        CompletableFuture<Void> left = m.reconciler.leave(() -> false);
        m.settle();
        assertThat(left).isNotDone();
        assertThat(m.state(T0)).isEqualTo(PartitionState.STOPPED);

        m.scheduler.advance(RetryDelays.MAX_MS);
        assertThat(left).isDone();
        assertThat(m.store.held).isEmpty();
    }

    @Test
    void aLeaveWhoseReleaseFailedWhileTheConnectionIsInDoubtEndsForItsCallerToWait() {
        owning(T0);
        m.running = false;
        m.store.failNext("releaseAll", 4); // the batch and alone, twice: the revoked, then the stopped
        CompletableFuture<Void> left = m.reconciler.leave(() -> true);
        m.settle();

        assertThat(left).isDone();
        assertThat(m.state(T0)).as("kept for the leave after the verdict").isEqualTo(PartitionState.STOPPED);
        assertThat(m.store.held).containsOnlyKeys(T0);
    }
}

package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.ConnectionEvent;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The member's connection state: its transitions, the rule that only the latest reconnection resumes, the verdict. */
class ConnectionTrackerTest {

    private final ManualScheduler time = new ManualScheduler();
    private final ConnectionTracker c = new ConnectionTracker(time.clock(), new LogContext("g", "m"));

    @Test
    void aMemberStartsConnected() {
        assertThat(c.phase()).isEqualTo(ConnectionPhase.CONNECTED);
        assertThat(c.inDoubt()).isFalse();
        assertThat(c.doubtMillis()).isZero();
    }

    @Test
    void aSuspensionPutsTheMemberInDoubtAtOnceAndCountsTheTime() {
        c.heard(ConnectionEvent.SUSPENDED);
        assertThat(c.phase()).isEqualTo(ConnectionPhase.SUSPENDED);
        time.advance(1_500);
        assertThat(c.doubtMillis()).isEqualTo(1_500);
    }

    @Test
    void aReconnectionResumesOnlyOnTheLane() {
        c.heard(ConnectionEvent.SUSPENDED);
        long n = c.heard(ConnectionEvent.RECONNECTED);
        assertThat(c.inDoubt()).as("until the lane resumes").isTrue();
        assertThat(c.resume(n, ConnectionEvent.RECONNECTED)).isTrue();
        assertThat(c.phase()).isEqualTo(ConnectionPhase.CONNECTED);
    }

    @Test
    void aReconnectionFollowedByANewDoubtResumesNothing() {
        c.heard(ConnectionEvent.SUSPENDED);
        long n = c.heard(ConnectionEvent.RECONNECTED);
        c.heard(ConnectionEvent.SUSPENDED);
        assertThat(c.resume(n, ConnectionEvent.RECONNECTED)).isFalse();
        assertThat(c.phase()).isEqualTo(ConnectionPhase.SUSPENDED);
    }

    @Test
    void theDoubtIsCountedFromItsFirstSuspension() {
        c.heard(ConnectionEvent.SUSPENDED);
        time.advance(1_000);
        c.heard(ConnectionEvent.SUSPENDED); // a repeat: no transition
        time.advance(1_000);
        assertThat(c.doubtMillis()).isEqualTo(2_000);
    }

    /**
     * A reconnection heard, then a new suspension before the lane resumed: the member stays in doubt, but the doubt's
     * time restarts at the new suspension, since the session was alive when the connection came back (seed 12672 of the
     * unkindest schedules: a leave that counted from the first suspension gave up, and its nodes stayed).
     */
    @Test
    void aSuspensionAfterAReconnectionNotYetResumedCountsFromItself() {
        c.heard(ConnectionEvent.SUSPENDED);
        time.advance(2_500);
        c.heard(ConnectionEvent.RECONNECTED);
        c.heard(ConnectionEvent.SUSPENDED);
        assertThat(c.phase()).isEqualTo(ConnectionPhase.SUSPENDED);
        time.advance(1_000);
        assertThat(c.doubtMillis()).isEqualTo(1_000);
    }

    @Test
    void aLossGivesTheSessionUpFromConnectedOrSuspended() {
        c.heard(ConnectionEvent.LOST);
        assertThat(c.phase()).isEqualTo(ConnectionPhase.LOST);

        ConnectionTracker other = new ConnectionTracker(time.clock(), new LogContext("g", "m2"));
        other.heard(ConnectionEvent.SUSPENDED);
        other.heard(ConnectionEvent.LOST);
        assertThat(other.phase()).isEqualTo(ConnectionPhase.LOST);
    }

    @Test
    void aDoubtAfterTheLossKeepsTheSessionGivenUp() {
        c.heard(ConnectionEvent.LOST);
        c.heard(ConnectionEvent.SUSPENDED);
        assertThat(c.phase()).isEqualTo(ConnectionPhase.LOST);
    }

    @Test
    void aNewSessionEndsTheLoss() {
        c.heard(ConnectionEvent.LOST);
        long n = c.heard(ConnectionEvent.RECONNECTED_NEW_SESSION);
        assertThat(c.resume(n, ConnectionEvent.RECONNECTED_NEW_SESSION)).isTrue();
        assertThat(c.phase()).isEqualTo(ConnectionPhase.CONNECTED);
    }

    @Test
    void resumingOnADoubtIsABugAndRefused() {
        long n = c.heard(ConnectionEvent.SUSPENDED);
        assertThat(c.resume(n, ConnectionEvent.SUSPENDED)).isFalse();
        assertThat(c.phase()).isEqualTo(ConnectionPhase.SUSPENDED);
    }

    @Test
    void theDeclaredTransitionsAreTheOnlyOnes() {
        assertThat(ConnectionPhase.CONNECTED.next())
                .containsExactlyInAnyOrder(ConnectionPhase.SUSPENDED, ConnectionPhase.LOST);
        assertThat(ConnectionPhase.SUSPENDED.next())
                .containsExactlyInAnyOrder(ConnectionPhase.LOST, ConnectionPhase.CONNECTED);
        assertThat(ConnectionPhase.LOST.next()).containsExactly(ConnectionPhase.CONNECTED);
    }

    @Test
    void theVerdictIsPendingWhileInDoubtAndDecidedByTheNextConnectionOrLoss() {
        c.heard(ConnectionEvent.SUSPENDED);
        CompletableFuture<Boolean> back = c.verdict();
        CompletableFuture<Boolean> givenUp = c.verdict();
        assertThat(back).isNotDone();

        c.heard(ConnectionEvent.RECONNECTED);
        assertThat(back).isCompletedWithValue(true);
        assertThat(givenUp).isCompletedWithValue(true);

        c.heard(ConnectionEvent.SUSPENDED);
        CompletableFuture<Boolean> lost = c.verdict();
        c.heard(ConnectionEvent.LOST);
        assertThat(lost).isCompletedWithValue(false);
    }

    @Test
    void theVerdictIsImmediateWhenConnectedOrGivenUp() {
        assertThat(c.verdict()).isCompletedWithValue(true);
        c.heard(ConnectionEvent.LOST);
        assertThat(c.verdict()).isCompletedWithValue(false);
    }

    @Test
    void aReconnectionAfterTheLossIsAwaitedSeparately() {
        c.heard(ConnectionEvent.LOST);
        CompletableFuture<Boolean> again = c.reconnection();
        assertThat(again).isNotDone();
        c.heard(ConnectionEvent.RECONNECTED_NEW_SESSION);
        assertThat(again).isCompletedWithValue(true);
        assertThat(c.reconnection()).isCompletedWithValue(true);
    }
}

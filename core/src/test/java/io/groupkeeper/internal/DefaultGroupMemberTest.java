package io.groupkeeper.internal;

import static io.groupkeeper.internal.MemberParts.T0;
import static io.groupkeeper.internal.MemberParts.T1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupMember;
import io.groupkeeper.SeenOffset;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.MemberIdInUseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The member's lifecycle and connection handling over a scripted session: start, loss of the connection (I7),
 * reconnection in the same or a new session, and the leave with its waits for the connection's verdict.
 */
class DefaultGroupMemberTest {

    private final ManualScheduler scheduler = new ManualScheduler();
    private final ScriptedGroupStore store = new ScriptedGroupStore();
    private final ScriptedCoordinationStore session = new ScriptedCoordinationStore(store);
    private final MemberParts.Recorder listener = new MemberParts.Recorder();
    private final LiveMemberIds liveIds = new LiveMemberIds();
    private final List<GroupMember> closed = new ArrayList<>();
    private boolean sessionEnding;

    private DefaultGroupMember member(String id, Duration registrationTimeout) {
        MemberConfig config = new MemberConfig(
                "g",
                id,
                Optional.of(id),
                "host",
                Set.of("t"),
                Assignors.defaultAssignor(),
                listener,
                (topics, onChange) -> Map.of("t", 3),
                Duration.ZERO,
                Duration.ofSeconds(30),
                GroupMetrics.NOOP,
                registrationTimeout);
        return new DefaultGroupMember(
                config, session, scheduler.clock(), scheduler, scheduler, closed::add, () -> sessionEnding, liveIds);
    }

    /** A member "m" started and owning {@code tps}, user code told. */
    private DefaultGroupMember started(TopicPartition... tps) {
        store.target(1, tps);
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        scheduler.runReady();
        assertThat(start).isCompleted();
        assertThat(m.assignment()).containsExactly(tps);
        store.calls.clear();
        listener.events.clear();
        return m;
    }

    private void handingOver(DefaultGroupMember m, long offset) {
        listener.onRevoked = revoked -> {
            Map<TopicPartition, Long> finals = new java.util.HashMap<>();
            revoked.forEach(tp -> finals.put(tp, offset));
            m.commitOnRelease(finals, Map.of());
        };
    }

    // ------------------------------------------------------------------ the lifecycle, logged

    @Test
    void aMembersLifeIsLoggedFromStartToCloseWithItsGroupAndIdInTheMdc() {
        List<Logger> loggers = List.of(
                (Logger) LoggerFactory.getLogger(MemberLifecycle.class),
                (Logger) LoggerFactory.getLogger(PartitionTable.class),
                (Logger) LoggerFactory.getLogger(DefaultGroupMember.class));
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        List<Level> levels = new ArrayList<>();
        for (Logger l : loggers) {
            levels.add(l.getLevel());
            l.setLevel(Level.DEBUG);
            l.addAppender(appender);
        }
        try {
            DefaultGroupMember m = started(T0, T1);
            m.closeAsync();
            scheduler.runReady();
            assertThat(closed).containsExactly(m);
        } finally {
            for (int i = 0; i < loggers.size(); i++) {
                loggers.get(i).detachAppender(appender);
                loggers.get(i).setLevel(levels.get(i));
            }
        }
        List<String> lines = appender.list.stream()
                .map(e -> e.getLevel() + " [" + e.getMDCPropertyMap().get("group")
                        + "/" + e.getMDCPropertyMap().get("member") + "] "
                        + e.getLoggerName().replaceAll(".*\\.", "")
                        + " - " + e.getFormattedMessage())
                .toList();
        lines.forEach(System.out::println); // the excerpt, in the test's output file
        assertThat(appender.list)
                .allSatisfy(e -> assertThat(e.getMDCPropertyMap())
                        .containsEntry("group", "g")
                        .containsEntry("member", "m"));
        assertThat(lines.stream().filter(l -> l.contains("MemberLifecycle")).map(l -> l.replaceAll(".* - ", "")))
                .containsExactly(
                        "member LATENT -> JOINING",
                        "member JOINING -> REGISTERING",
                        "member REGISTERING -> JOINED",
                        "member JOINED -> LEAVING",
                        "member LEAVING -> CLOSED");
        assertThat(lines.stream().filter(l -> l.contains("PartitionTable")).map(l -> l.replaceAll(".* - ", "")))
                .contains(
                        "partition t:0 (none) -> WAITING",
                        "partition t:0 OWNED -> REVOKING",
                        "partition t:1 OWNED -> REVOKING")
                .anyMatch(l -> l.startsWith("partition t:0 WAITING -> OWNED"))
                .anyMatch(l -> l.startsWith("partition t:0 REVOKING -> (none)"));
    }

    @Test
    void aSecondStartIsRefusedAndSaysWhy() {
        DefaultGroupMember m = started(T0);
        assertThatThrownBy(m::startAsync)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("member g/m already started");
        m.closeAsync();
        scheduler.runReady();
        assertThatThrownBy(m::startAsync)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("member g/m already closed");
    }

    // ------------------------------------------------------------------ start

    @Test
    void aStartRegistersTheMemberAndFollowsItsTarget() {
        store.target(1, T0, T1);
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        assertThat(start).isNotDone();
        scheduler.runReady();

        assertThat(start).isCompleted();
        assertThat(store.calls).startsWith("ensureGroup", "registerMember m", "readTarget");
        assertThat(store.registered).containsExactly("m");
        assertThat(m.assignment()).containsExactly(T0, T1);
        assertThat(m.generation()).isEqualTo(1);
        assertThat(session.listeners).hasSize(1);
    }

    @Test
    void aMemberStartsOnce() {
        DefaultGroupMember m = started(T0);
        assertThatThrownBy(m::startAsync)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("g/m");
    }

    @Test
    void aStartThatFailsClosesTheMemberAndFreesItsId() {
        store.failNext("ensureGroup", 1);
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        scheduler.runReady();

        assertThat(start).isCompletedExceptionally();
        assertThat(closed).containsExactly(m);
        assertThat(session.listeners).isEmpty();
        assertThat(liveIds.take("g", "m", new Object()))
                .as("the id is free again")
                .isTrue();
    }

    @Test
    void aSecondLiveMemberWithTheIdInOneKeeperIsRefusedNamingGroupAndId() {
        started(T0);
        DefaultGroupMember twin = member("m", Duration.ZERO);
        CompletableFuture<Void> start = twin.startAsync();
        scheduler.runReady();

        assertThat(start).isCompletedExceptionally();
        assertThatThrownBy(start::join)
                .hasCauseInstanceOf(MemberIdInUseException.class)
                .hasMessageContaining("'m'")
                .hasMessageContaining("'g'");
        assertThat(store.callsOf("registerMember"))
                .as("never reached the store")
                .isEmpty();
    }

    @Test
    void theIdIsFreeOnceTheFirstHasLeft() {
        DefaultGroupMember m = started(T0);
        m.closeAsync();
        scheduler.runReady();
        DefaultGroupMember next = member("m", Duration.ZERO);
        CompletableFuture<Void> start = next.startAsync();
        scheduler.runReady();

        assertThat(start).isCompleted();
        assertThat(next.assignment()).containsExactly(T0);
    }

    /**
     * The wait for an id a predecessor of this keeper still holds used to sleep on the new member's lane: on a keeper
     * whose executor has one thread (as here, and in the simulator) the predecessor's leave could not finish meanwhile,
     * and the start failed at the registration timeout (seconds of wall time with nothing running: the simulator's
     * "hang" with RESTART_IN_PLACE).
     */
    @Test
    void aMemberWaitingForItsIdLetsThePredecessorLeaveOnTheSameThread() {
        DefaultGroupMember first = started(T0);
        DefaultGroupMember next = member("m", Duration.ofSeconds(2));
        CompletableFuture<Void> start = next.startAsync(); // its first attempt runs before the leave below
        CompletableFuture<Void> left = first.closeAsync();
        scheduler.runReady();
        assertThat(left)
                .as("the predecessor's leave ran while the new member waited")
                .isCompleted();
        assertThat(start).isNotDone();

        scheduler.advance(1_000); // the retries come from the scheduler, on its clock
        assertThat(start).isCompleted();
        assertThat(next.assignment()).containsExactly(T0);
        assertThat(store.registered).containsExactly("m");
    }

    @Test
    void aMemberWaitingForItsIdGivesUpAtTheRegistrationTimeoutOnTheMembersClock() {
        started(T0);
        DefaultGroupMember twin = member("m", Duration.ofSeconds(2));
        CompletableFuture<Void> start = twin.startAsync();
        scheduler.advance(1_500);
        assertThat(start).isNotDone();

        scheduler.advance(1_000);
        assertThatThrownBy(start::join).hasCauseInstanceOf(MemberIdInUseException.class);
        assertThat(closed).containsExactly(twin);
        assertThat(store.registered).as("the first's node, untouched").containsExactly("m");
    }

    @Test
    void aMemberClosedWhileWaitingForItsIdNeverRegisters() {
        started(T0);
        DefaultGroupMember twin = member("m", Duration.ofSeconds(2));
        CompletableFuture<Void> start = twin.startAsync();
        scheduler.runReady();
        twin.closeAsync();
        scheduler.advance(3_000);

        assertThat(start).isCompletedExceptionally();
        assertThat(store.callsOf("registerMember")).as("only the first's").hasSize(0);
        assertThat(store.registered).containsExactly("m");
    }

    /**
     * A registration that lands with its reply lost (the connection dropped): the start fails, and before, nothing
     * removed the node, which lived as long as the keeper's session (found by the simulator's JOIN_LOST_REPLY).
     */
    @Test
    void aStartWhoseRegistrationReplyIsLostRemovesTheNodeOnceTheConnectionIsBack() {
        store.loseNextRegistrationReply = session::disconnect;
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        scheduler.runReady();
        assertThat(store.registered).as("the registration landed").containsExactly("m");
        assertThat(start).as("waits for the connection's verdict").isNotDone();

        session.reconnect();
        scheduler.runReady();
        assertThat(start).isCompletedExceptionally();
        assertThat(store.registered).as("no ghost member node").isEmpty();
        assertThat(closed).containsExactly(m);
        assertThat(session.listeners).isEmpty();
        assertThat(liveIds.take("g", "m", new Object()))
                .as("the id is free again")
                .isTrue();
    }

    @Test
    void aStartWhoseRegistrationReplyIsLostRemovesTheNodeAtOnceIfStillConnected() {
        store.loseNextRegistrationReply = () -> {};
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        scheduler.runReady();

        assertThat(start).isCompletedExceptionally();
        assertThat(store.registered).isEmpty();
        assertThat(store.callsOf("deregisterMember")).hasSize(1);
    }

    @Test
    void aStartWhoseRegistrationReplyIsLostWithItsSessionLeavesNothing() {
        store.loseNextRegistrationReply = session::disconnect;
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        CompletableFuture<Void> start = m.startAsync();
        scheduler.runReady();

        session.reconnectInNewSession();
        scheduler.runReady();
        assertThat(start).isCompletedExceptionally();
        assertThat(store.registered).isEmpty();
        assertThat(closed).containsExactly(m);
    }

    // ------------------------------------------------------------------ connection

    @Test
    void aSuspensionStopsEveryPartitionAtOnceBeforeTheLaneRuns() {
        DefaultGroupMember m = started(T0, T1);
        session.disconnect(); // on the store's thread: nothing of the member's lanes has run yet

        assertThat(m.assignment()).isEmpty();
        assertThat(m.commit(Map.of(T0, 5L)).status(T0)).isEqualTo(Status.NOT_OWNED);
        scheduler.runReady();
        assertThat(listener.events).containsExactly("lost [t:0, t:1]");
    }

    @Test
    void aReconnectionInTheSameSessionReconfirmsThePartitions() {
        DefaultGroupMember m = started(T0, T1);
        session.disconnect();
        scheduler.runReady();
        session.reconnect();
        scheduler.runReady();

        assertThat(store.callsOf("claim")).containsExactly("claim t:0", "claim t:1");
        assertThat(store.callsOf("registerMember")).as("still registered").isEmpty();
        assertThat(m.assignment()).containsExactly(T0, T1);
        assertThat(listener.events)
                .containsExactly("lost [t:0, t:1]", "assigned {t:0=OptionalLong.empty, " + "t:1=OptionalLong.empty}");
    }

    @Test
    void aNewSessionReRegistersAndClaimsAfresh() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        session.reconnectInNewSession();
        scheduler.runReady();

        assertThat(store.callsOf("registerMember")).containsExactly("registerMember m");
        assertThat(m.assignment()).containsExactly(T0);
        assertThat(store.held).containsEntry(T0, store.session);
    }

    @Test
    void aReconnectionFollowedByANewDoubtResumesNothing() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        session.reconnect();
        session.disconnect(); // before the lane heard of the reconnection
        scheduler.runReady();

        assertThat(store.callsOf("claim")).isEmpty();
        assertThat(m.assignment()).isEmpty();
    }

    @Test
    void aFailedReRegistrationIsRetriedWithJitteredBackoff() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        store.failNext("registerMember", 1);
        session.reconnectInNewSession();
        scheduler.runReady();
        assertThat(m.assignment()).isEmpty();
        assertThat(scheduler.delays())
                .last()
                .satisfies(d -> assertThat(d).isBetween(RetryDelays.MIN_MS, RetryDelays.MAX_MS));

        scheduler.advance(RetryDelays.MAX_MS);
        assertThat(store.callsOf("registerMember")).hasSize(2);
        assertThat(m.assignment()).containsExactly(T0);
    }

    @Test
    void aLostCallbackIsToldBeforeTheNextAssignment() {
        started(T0);
        session.disconnect();
        session.reconnect();
        scheduler.runReady();

        assertThat(listener.events).containsExactly("lost [t:0]", "assigned {t:0=OptionalLong.empty}");
    }

    // ------------------------------------------------------------------ close

    @Test
    void aCloseRevokesReleasesWithFinalOffsetsAndDeregisters() {
        DefaultGroupMember m = started(T0, T1);
        handingOver(m, 42);
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.runReady();

        assertThat(left).isCompleted();
        assertThat(listener.events).containsExactly("revoked [t:0, t:1]");
        assertThat(store.stored(T0).offset()).hasValue(42);
        assertThat(store.held).isEmpty();
        assertThat(store.registered).isEmpty();
        assertThat(closed).containsExactly(m);
        assertThat(session.listeners).as("listening no more").isEmpty();
    }

    @Test
    void aCloseIsIdempotent() {
        DefaultGroupMember m = started(T0);
        CompletableFuture<Void> first = m.closeAsync();
        scheduler.runReady();
        assertThat(first).isCompleted();
        assertThat(m.closeAsync()).isCompleted();
        assertThat(closed).containsExactly(m);
    }

    @Test
    void aMemberNeverStartedIsClosedAtOnce() {
        DefaultGroupMember m = member("m", Duration.ofSeconds(1));
        assertThat(m.closeAsync()).isCompleted();
        assertThat(closed).containsExactly(m);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void aCloseThatMeetsADoubtDuringItsRevocationWaitsAndLeavesOnceTheSessionIsBack() {
        DefaultGroupMember m = started(T0);
        listener.onRevoked = revoked -> session.disconnect(); // the blip begins while user code stops
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.advance(5_000); // past every retry of the releases

        assertThat(left).as("waits for the connection's verdict").isNotDone();
        assertThat(store.held).containsOnlyKeys(T0);
        assertThat(store.registered).containsExactly("m");

        session.reconnect();
        scheduler.runReady();
        assertThat(left).isCompleted();
        assertThat(store.held).as("no ghost owner node").isEmpty();
        assertThat(store.registered).as("no ghost member node").isEmpty();
    }

    @Test
    void aCloseWhileInDoubtEndsWhenTheSessionIsGivenUp() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.runReady();
        assertThat(left).isNotDone();

        session.fire(ConnectionEvent.LOST);
        scheduler.runReady();
        assertThat(left).isCompleted();
        assertThat(store.callsOf("releaseAll")).isEmpty();
    }

    /**
     * The client's new session can be connected before the member hears LOST (ZooKeeper's client replaces an expired
     * session on its own thread; the listeners hear of it later): a claim that landed in it is not gone with the
     * session given up, and a leave that stopped at LOST left its owner node for as long as the keeper lived.
     */
    @Test
    void aCloseThatHearsLostAfterAClaimInTheNewSessionReleasesThatClaim() {
        DefaultGroupMember m = started(T0);
        store.newSession(); // session 1 ended; the client is connected in session 2, the member has heard nothing yet
        store.target(2, T0, T1);
        scheduler.runReady();
        assertThat(store.held).as("claimed in the new session").containsOnlyKeys(T1);

        session.fire(ConnectionEvent.SUSPENDED);
        CompletableFuture<Void> left = m.closeAsync();
        session.fire(ConnectionEvent.LOST);
        scheduler.runReady();
        assertThat(left).as("waits for the new session").isNotDone();

        session.fire(ConnectionEvent.RECONNECTED_NEW_SESSION);
        scheduler.runReady();
        assertThat(left).isCompleted();
        assertThat(store.held).as("no ghost owner node").isEmpty();
    }

    @Test
    void aCloseWhileInDoubtGivesUpAtTheSessionTimeout() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.advance(ScriptedCoordinationStore.SESSION_TIMEOUT.toMillis());
        assertThat(left).isNotDone();

        scheduler.advance(MemberLeave.IN_DOUBT_GRACE_MS);
        assertThat(left).isCompleted();
        assertThat(closed).containsExactly(m);
    }

    @Test
    void theDoubtIsCountedFromItsBeginningNotFromTheClose() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        scheduler.advance(8_000);
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.advance(3_000 + MemberLeave.IN_DOUBT_GRACE_MS);

        assertThat(left).isCompleted();
    }

    @Test
    void aCloseWhileTheKeeperEndsItsSessionDoesNotWait() {
        DefaultGroupMember m = started(T0);
        session.disconnect();
        sessionEnding = true;
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.runReady();

        assertThat(left).isCompleted();
    }

    @Test
    void aSessionGivenUpWithAFinalOffsetPendingHandsItOverInTheNextSession() {
        DefaultGroupMember m = started(T1);
        listener.onRevoked = revoked -> {
            m.commitOnRelease(Map.of(T1, 42L), Map.of());
            session.disconnect();
        };
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.runReady();
        session.reconnectInNewSession();
        scheduler.runReady();

        assertThat(left).isCompleted();
        assertThat(store.stored(T1).offset()).hasValue(42);
        assertThat(store.held).isEmpty();
    }

    @Test
    void aLeaveThatKeepsFailingWhileConnectedEnds() {
        DefaultGroupMember m = started(T0);
        store.failNext("releaseAll", 1_000);
        CompletableFuture<Void> left = m.closeAsync();
        scheduler.advance(60_000);

        assertThat(left).isCompleted();
        assertThat(store.held).as("said loudly, not hidden").containsOnlyKeys(T0);
        assertThat(store.registered)
                .as("the member node is removed all the same")
                .isEmpty();
    }

    @Test
    void seenOffsetTellsNothingSeenFromSeenWithoutAnOffset() {
        DefaultGroupMember m = started(T0);

        assertThat(m.seenOffset(T0)).as("claimed with no offset stored").isEqualTo(SeenOffset.none());
        assertThat(m.seenOffset(T1)).as("not owned: nothing seen").isEqualTo(SeenOffset.notSeen());
        assertThat(m.commit(Map.of(T0, 59L)).allCommitted()).isTrue();
        assertThat(m.seenOffset(T0)).as("after a commit, what it wrote").isEqualTo(SeenOffset.of(59));
    }

    @Test
    void seenOffsetShowsAnAdoptedDeletionAsSeenWithoutAnOffset() {
        DefaultGroupMember m = started(T0);
        assertThat(m.commit(Map.of(T0, 59L)).allCommitted()).isTrue();
        store.deleteOffset(T0); // an operator's `offsets delete`

        assertThat(m.refresh(List.of(T0)).status(T0)).isEqualTo(Status.ADOPTED);

        assertThat(m.seenOffset(T0))
                .as("seen deleted: a fresh start, not nothing seen")
                .isEqualTo(SeenOffset.none());
    }

    @Test
    void committedReadsTheStoredOffset() {
        DefaultGroupMember m = started(T0);
        assertThat(m.commit(Map.of(T0, 8L)).allCommitted()).isTrue();
        assertThat(m.committed(T0)).isEqualTo(OptionalLong.of(8));
        assertThat(m.fencingToken(T0)).isPresent();
    }
}

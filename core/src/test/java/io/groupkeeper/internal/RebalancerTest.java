package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.spi.internal.AssignmentSnapshot;
import io.groupkeeper.spi.internal.MemberInfo;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The leader's work alone, over a scripted store and election: a target for every member, a generation only when a
 * target changes, departures, static members' grace, coalesced events, the settle delay, metadata changes, failed
 * publishes retried from a fresh read.
 */
class RebalancerTest {

    private final ManualScheduler scheduler = new ManualScheduler();
    private final ScriptedGroupStore store = new ScriptedGroupStore();
    private final ScriptedElection election = new ScriptedElection();
    private final Map<String, Integer> counts = new HashMap<>(Map.of("t", 4));
    private Runnable metadataHook;
    private Duration settleDelay = Duration.ZERO;
    private Rebalancer leader;

    /** Replica racks the metadata source reports, and how often the leader asked for them. */
    private io.groupkeeper.assignor.PartitionRacks replicaRacks = io.groupkeeper.assignor.PartitionRacks.empty();

    private int racksAsked;

    private Rebalancer leader() {
        io.groupkeeper.spi.TopicMetadataSource metadata = new io.groupkeeper.spi.TopicMetadataSource() {
            @Override
            public Map<String, Integer> partitionCounts(java.util.Collection<String> topics, Runnable onChange) {
                metadataHook = onChange;
                Map<String, Integer> known = new HashMap<>(counts);
                known.keySet().retainAll(topics);
                return known;
            }

            @Override
            public io.groupkeeper.assignor.PartitionRacks partitionRacks(java.util.Collection<String> topics) {
                racksAsked++;
                return replicaRacks;
            }
        };
        MemberConfig config = new MemberConfig(
                "g",
                "a",
                Optional.empty(),
                "host",
                Set.of("t"),
                Assignors.defaultAssignor(),
                RebalanceListener.NOOP,
                metadata,
                settleDelay,
                Duration.ofSeconds(30),
                GroupMetrics.NOOP,
                Duration.ofSeconds(1));
        LogContext log = new LogContext("g", "a");
        return new Rebalancer(
                config, store, scheduler.clock(), new SerialExecutor(scheduler, "rebalancer", log), scheduler);
    }

    private void elected() {
        leader = leader();
        leader.activate(election);
        scheduler.runReady();
    }

    private SortedSet<TopicPartition> all() {
        SortedSet<TopicPartition> all = new TreeSet<>();
        for (int p = 0; p < counts.get("t"); p++) {
            all.add(new TopicPartition("t", p));
        }
        return all;
    }

    private SortedSet<TopicPartition> targetOf(String member) {
        for (int i = election.publishes.size() - 1; i >= 0; i--) {
            SortedSet<TopicPartition> t = election.publishes.get(i).changed().get(member);
            if (t != null) {
                return t;
            }
        }
        return new TreeSet<>();
    }

    @Test
    void theLeadersLinesNameItsGroupAndMemberInTheMdcNotInTheMessage() {
        Logger logger = (Logger) LoggerFactory.getLogger(Rebalancer.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            store.join("a", Optional.empty(), "t");
            elected();
            leader.deactivate();
            scheduler.runReady();
        } finally {
            logger.detachAppender(appender);
        }
        assertThat(appender.list)
                .extracting(e -> e.getMDCPropertyMap().get("group") + "/"
                        + e.getMDCPropertyMap().get("member") + " - " + e.getFormattedMessage())
                .contains("g/a - this member is the leader of its group", "g/a - this member is no longer the leader");
    }

    @Test
    void aNewLeaderPublishesATargetForEveryMember() {
        store.join("a", Optional.empty(), "t");
        store.join("b", Optional.empty(), "t");
        elected();

        assertThat(leader.isActive()).isTrue();
        assertThat(election.publishes).hasSize(1);
        ScriptedElection.Publish p = election.last();
        assertThat(p.generation()).isEqualTo(1);
        assertThat(p.expectedVersion()).isEqualTo(AssignmentSnapshot.ABSENT);
        assertThat(p.changed()).containsOnlyKeys("a", "b");
        SortedSet<TopicPartition> union = new TreeSet<>(p.changed().get("a"));
        union.addAll(p.changed().get("b"));
        assertThat(union).isEqualTo(all());
        assertThat(p.changed().get("a"))
                .hasSize(2)
                .doesNotContainAnyElementsOf(p.changed().get("b"));
    }

    @Test
    void replicaRacksAreAskedOnlyWhenSomeMemberHasARackAndReadAgainWithTheCounts() {
        replicaRacks = io.groupkeeper.assignor.PartitionRacks.of(Map.of(
                new TopicPartition("t", 0),
                Set.of("r2"),
                new TopicPartition("t", 1),
                Set.of("r2"),
                new TopicPartition("t", 2),
                Set.of("r1"),
                new TopicPartition("t", 3),
                Set.of("r1")));
        store.join("a", Optional.empty(), "t");
        elected();
        assertThat(racksAsked).as("no member has a rack").isZero();

        MemberInfo a = store.members.get("a");
        store.members.put(
                "a",
                new MemberInfo(
                        "a", Optional.empty(), a.host(), a.topics(), a.joinedAt(), a.assignor(), Optional.of("r1")));
        store.members.put(
                "b",
                new MemberInfo(
                        "b", Optional.empty(), a.host(), a.topics(), a.joinedAt(), a.assignor(), Optional.of("r2")));
        store.membersChanged();
        scheduler.runReady();

        assertThat(racksAsked).isEqualTo(1);
        assertThat(targetOf("a")).containsExactly(new TopicPartition("t", 2), new TopicPartition("t", 3));
        assertThat(targetOf("b")).containsExactly(new TopicPartition("t", 0), new TopicPartition("t", 1));
        store.membersChanged();
        scheduler.runReady();
        assertThat(racksAsked).as("kept with the counts").isEqualTo(1);
        metadataHook.run();
        scheduler.runReady();
        assertThat(racksAsked).as("re-read with the counts").isEqualTo(2);
    }

    @Test
    void nothingIsPublishedWhenNoTargetChanges() {
        store.join("a", Optional.empty(), "t");
        elected();
        store.membersChanged(); // e.g. a reconnection: the store cannot tell
        scheduler.runReady();

        assertThat(election.publishes).hasSize(1);
        assertThat(store.callsOf("readAssignment")).as("trusted while leading").hasSize(1);
    }

    @Test
    void aJoinerGetsItsShareAndTheNextGenerationPresentsTheLastVersion() {
        store.join("a", Optional.empty(), "t");
        elected();
        store.join("b", Optional.empty(), "t");
        store.membersChanged();
        scheduler.runReady();

        assertThat(election.publishes).hasSize(2);
        assertThat(election.last().generation()).isEqualTo(2);
        assertThat(election.last().expectedVersion()).isEqualTo(0);
        assertThat(targetOf("a")).hasSize(2);
        assertThat(targetOf("b")).hasSize(2).doesNotContainAnyElementsOf(targetOf("a"));
    }

    @Test
    void theTargetOfAMemberGoneIsRemovedAndItsPartitionsMove() {
        store.join("a", Optional.empty(), "t");
        store.join("b", Optional.empty(), "t");
        elected();
        store.members.remove("b");
        store.membersChanged();
        scheduler.runReady();

        assertThat(election.last().removed()).containsExactly("b");
        assertThat(targetOf("a")).isEqualTo(all());
    }

    @Test
    void anAbsentStaticMemberKeepsItsTargetForTheGracePeriod() {
        store.join("a", Optional.empty(), "t");
        store.join("s", Optional.of("s"), "t");
        elected();
        assertThat(election.last().staticMembers()).containsExactly("s");
        SortedSet<TopicPartition> kept = targetOf("s");

        store.members.remove("s");
        store.membersChanged();
        scheduler.runReady();
        assertThat(election.publishes).as("nothing moves during the grace").hasSize(1);

        scheduler.advance(Duration.ofSeconds(30).toMillis() + 1);
        assertThat(election.publishes).hasSize(2);
        assertThat(election.last().removed()).containsExactly("s");
        assertThat(targetOf("a")).containsAll(kept).isEqualTo(all());
    }

    @Test
    void aStaticMemberBackWithinItsGraceMovesNothing() {
        store.join("a", Optional.empty(), "t");
        store.join("s", Optional.of("s"), "t");
        elected();
        store.members.remove("s");
        store.membersChanged();
        scheduler.advance(10_000);
        store.join("s", Optional.of("s"), "t");
        store.membersChanged();
        scheduler.advance(30_000);

        assertThat(election.publishes).hasSize(1);
    }

    @Test
    void eventsDuringARunCoalesceIntoOneMore() {
        store.join("a", Optional.empty(), "t");
        elected();
        store.join("b", Optional.empty(), "t");
        store.membersChanged();
        store.join("c", Optional.empty(), "t");
        store.membersChanged();
        store.membersChanged();
        scheduler.runReady();

        assertThat(election.publishes).hasSize(2);
        assertThat(election.last().changed()).containsKeys("b", "c");
    }

    @Test
    void theSettleDelayWaitsBeforeComputing() {
        settleDelay = Duration.ofMillis(500);
        store.join("a", Optional.empty(), "t");
        elected();
        store.join("b", Optional.empty(), "t");
        store.membersChanged();
        scheduler.runReady();
        assertThat(election.publishes).hasSize(1);

        scheduler.advance(500);
        assertThat(election.publishes).hasSize(2);
    }

    @Test
    void aFailedPublishIsRetriedWithBackoffFromAFreshRead() {
        store.join("a", Optional.empty(), "t");
        election.failures = 1;
        elected();
        assertThat(election.publishes).isEmpty();
        assertThat(scheduler.delays()).containsExactly(RetryDelays.MIN_MS);

        scheduler.advance(RetryDelays.MIN_MS);
        assertThat(election.publishes).hasSize(1);
        assertThat(store.callsOf("readAssignment")).hasSize(2);
    }

    @Test
    void aPublishThatFailsBecauseTheLeaderSteppedDownWhileItRanIsNotRetried() {
        store.join("a", Optional.empty(), "t");
        election.failures = 1; // the latch is left while the publish is on its way: "not the leader"
        election.duringNextPublish = () -> leader.deactivate(); // the close, on another thread
        leader = leader();
        leader.activate(election);
        scheduler.runReady();
        scheduler.advance(RetryDelays.MAX_MS);

        assertThat(election.publishes).isEmpty();
        assertThat(scheduler.delays())
                .as("no retry (a retry is what the WARN announced)")
                .isEmpty();
        assertThat(leader.isActive()).isFalse();
    }

    @Test
    void aLeaderDeactivatedPublishesNothingMore() {
        store.join("a", Optional.empty(), "t");
        elected();
        leader.deactivate();
        scheduler.runReady();
        store.join("b", Optional.empty(), "t");
        store.membersChanged();
        scheduler.runReady();

        assertThat(leader.isActive()).isFalse();
        assertThat(election.publishes).hasSize(1);
    }

    @Test
    void morePartitionsInTheMetadataMakeANewGeneration() {
        store.join("a", Optional.empty(), "t");
        elected();
        counts.put("t", 6);
        metadataHook.run();
        scheduler.runReady();

        assertThat(election.publishes).hasSize(2);
        assertThat(targetOf("a")).hasSize(6);
    }

    @Test
    void anUnreadableMemberNodeIsIgnoredAndTheOthersAssigned() {
        store.join("a", Optional.empty(), "t");
        store.memberProblems.add("member node /g/members/x: not JSON");
        elected();

        assertThat(election.last().changed()).containsOnlyKeys("a");
        assertThat(targetOf("a")).isEqualTo(all());
    }

    @Test
    void aDamagedTargetIsWrittenAgainEvenWhenUnchanged() {
        store.join("a", Optional.empty(), "t");
        store.assignment = new AssignmentSnapshot(
                3,
                Optional.of("old"),
                Assignment.of(Map.of("a", all())),
                new TreeSet<>(),
                7,
                new TreeSet<>(Set.of("a")));
        election.version = 7;
        elected();

        assertThat(election.last().generation()).isEqualTo(4);
        assertThat(election.last().changed()).containsEntry("a", all());
    }

    @Test
    void aNewLeaderCarriesOnFromThePublishedGeneration() {
        store.join("a", Optional.empty(), "t");
        store.assignment =
                new AssignmentSnapshot(5, Optional.of("old"), Assignment.of(Map.of("a", all())), new TreeSet<>(), 9);
        election.version = 9;
        elected();

        assertThat(election.publishes)
                .as("its target stands: no new generation")
                .isEmpty();
    }
}

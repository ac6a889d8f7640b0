package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.OutOfRangePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What is committed and when, and what the store's answers do, against a scripted member (no store, no Kafka). */
class PositionCommitterTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(0);
    private final PositionsTest.Gauges gauges = new PositionsTest.Gauges();
    private final Positions positions = new Positions(gauges, "g", () -> "m1");
    private final ScriptedMember member = new ScriptedMember();
    private final List<String> effects = new ArrayList<>();
    private final PositionCommitter committer = new PositionCommitter(
            "g",
            member,
            positions,
            null,
            new PositionsTest.Gauges(),
            Duration.ofSeconds(1),
            OutOfRangePolicy.EARLIEST,
            now::get,
            0,
            new PositionCommitter.Effects() {
                @Override
                public void adopt(OwnedPartition p, OptionalLong stored) {
                    effects.add("adopt " + p.tp + " " + stored);
                }

                @Override
                public void dropped(SortedSet<TopicPartition> partitions) {
                    effects.add("drop " + partitions);
                }
            });

    @Test
    void onlyMovedPositionsAreCommittedWithTheirLogEndsWhereKnown() {
        OwnedPartition moved = positions.add(A0, OptionalLong.of(3));
        positions.add(A1, OptionalLong.of(5)).logEnd = 9;
        moved.position = 4;
        moved.logEnd = 10;

        committer.commitAll();

        assertThat(member.commits).containsExactly(Map.of(A0, 4L));
        assertThat(member.logEnds).containsExactly(Map.of(A0, 10L));
        assertThat(moved.committed).hasValue(4);
        committer.commitAll();
        assertThat(member.commits).as("nothing moved since").hasSize(1);
    }

    /**
     * The member claimed A0 again (a reconnection) and read an operator's edit; this thread has not served the new
     * claim's queued assignment yet. Its position of the earlier claim is not written (the member would take it under
     * the new claim's version, over the edit); A1, still under its claim, is.
     */
    @Test
    void aPositionOfAnEarlierClaimIsNotCommittedOnceThePartitionIsClaimedAgain() {
        OwnedPartition reclaimed = positions.add(A0, OptionalLong.of(3));
        reclaimed.token = 7;
        reclaimed.position = 9;
        OwnedPartition same = positions.add(A1, OptionalLong.of(5));
        same.token = 4;
        same.position = 6;
        member.tokens.put(A0, 8L);
        member.tokens.put(A1, 4L);

        committer.commitAll();

        assertThat(member.commits).containsExactly(Map.of(A1, 6L));
    }

    /**
     * A revocation served late (the polling thread was busy past the revocation timeout) names a position of an
     * earlier claim; the member has claimed A0 again since and is revoking that newer claim now, so it would take the
     * position as the final offset of the newer claim's release (written under its version, over what the owners in
     * between committed). It is neither handed over nor committed; A1, still under its claim, is handed over.
     */
    @Test
    void aLateRevocationHandsNoPositionOfAnEarlierClaimToTheReleaseOfANewerOne() {
        OwnedPartition stale = positions.add(A0, OptionalLong.of(3));
        stale.token = 7;
        stale.position = 9;
        OwnedPartition same = positions.add(A1, OptionalLong.of(5));
        same.token = 4;
        same.position = 6;
        member.tokens.put(A0, 8L);
        member.tokens.put(A1, 4L);
        member.takenOnRelease.addAll(List.of(A0, A1));

        committer.commitFinal(List.of(stale, same));

        assertThat(member.onRelease).containsExactly(Map.of(A1, 6L));
        assertThat(member.commits).isEmpty();
    }

    @Test
    void resolvedStartsAreStoredAtOnceOnlyForNeverCommittedPartitionsStillHeldAsTheyAreNow() {
        OwnedPartition fresh = positions.add(A0, OptionalLong.empty());
        fresh.position = 7; // resolved (latest: the log end)
        OwnedPartition stored = positions.add(A1, OptionalLong.of(5));
        stored.position = 6; // has an offset: left to the periodic commit
        OwnedPartition dropped = positions.add(new TopicPartition("a", 2), OptionalLong.empty());
        dropped.position = 3;
        positions.remove(dropped.tp); // given up before the store: not written

        committer.storeStarts(List.of(fresh, stored, dropped));

        assertThat(member.commits).containsExactly(Map.of(A0, 7L)); // before any commit interval passed
        assertThat(fresh.committed).hasValue(7);
        committer.storeStarts(List.of(fresh));
        assertThat(member.commits).as("stored already").hasSize(1);
    }

    @Test
    void thePeriodicCommitWaitsForItsIntervalSkipsWhileDisconnectedAndEveryTenthAlsoSendsLaggingOnes() {
        OwnedPartition moving = positions.add(A0, OptionalLong.of(0));
        OwnedPartition stuck = positions.add(A1, OptionalLong.of(5));
        stuck.lag = 3;

        moving.position = 1;
        now.set(SECOND - 1);
        committer.maybeCommitPeriodically(false);
        assertThat(member.commits).as("before the interval").isEmpty();

        now.set(SECOND);
        committer.maybeCommitPeriodically(true);
        assertThat(member.commits).as("the store's connection is down").isEmpty();

        for (int i = 1; i <= PositionCommitter.STATUS_HEARTBEAT_INTERVALS; i++) {
            moving.position++;
            now.addAndGet(SECOND);
            committer.maybeCommitPeriodically(false);
        }
        assertThat(member.commits).hasSize(PositionCommitter.STATUS_HEARTBEAT_INTERVALS);
        assertThat(member.commits.subList(0, 9)).allSatisfy(c -> assertThat(c).containsOnlyKeys(A0));
        assertThat(member.commits.get(9))
                .as("the tenth: the stuck one too, so it shows as STALL, not STOP")
                .containsOnlyKeys(A0, A1)
                .containsEntry(A1, 5L);
    }

    @Test
    void anAdoptedOffsetAndALostPartitionAreHandedToThePollLoop() {
        positions.add(A0, OptionalLong.of(0)).position = 2;
        positions.add(A1, OptionalLong.of(0)).position = 2;
        member.answer.put(A0, Status.ADOPTED);
        member.adopted.put(A0, OptionalLong.of(40));
        member.answer.put(A1, Status.NOT_OWNED);

        committer.commitAll();

        assertThat(effects).containsExactly("adopt " + A0 + " OptionalLong[40]", "drop [" + A1 + "]");
        assertThat(positions.get(A0).committed).as("not what was attempted").hasValue(0);
        assertThat(positions.get(A1)).isNull();
        assertThat(gauges.live)
                .as("the refused partition's lag gauge goes with it")
                .containsOnlyKeys("g/m1/a-0");
    }

    @Test
    void finalPositionsGoWithTheReleaseAndOnlyThoseTheMemberRefusesAreCommittedApart() {
        OwnedPartition p0 = positions.add(A0, OptionalLong.of(0));
        OwnedPartition p1 = positions.add(A1, OptionalLong.of(0));
        p0.position = 7;
        p1.position = 8;
        member.takenOnRelease.add(A0);

        committer.commitFinal(List.of(p0, p1));

        assertThat(member.onRelease).containsExactly(Map.of(A0, 7L, A1, 8L));
        assertThat(member.commits).containsExactly(Map.of(A1, 8L));
    }

    @Test
    void aStoredCorrectionIsRecordedAsCommitted() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(7000));
        p.position = 25;
        TreeMap<TopicPartition, Long> corrected = new TreeMap<>(Map.of(A0, 25L));

        committer.storeCorrections(new PositionResolver.Corrections(
                corrected, Map.of(A0, 7000L), Map.of(A0, "above the log end 25 (log 0..25)")));

        assertThat(member.commits).containsExactly(Map.of(A0, 25L));
        assertThat(p.committed).hasValue(25);
        assertThat(p.dirty()).isFalse();
    }

    @Test
    void theContainersProgressIsCommittedInsteadOfThePositionWithItsDoneValueOnlyWhenItChanged() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(10));
        p.position = 30; // fetched ahead of what is done
        p.progressOffset = 12;
        p.done = java.util.Optional.of("{\"from\":12,\"ranges\":[[14,20]]}");

        committer.commitAll();

        assertThat(member.commits).containsExactly(Map.of(A0, 12L));
        assertThat(member.done).containsExactly(Map.of(A0, "{\"from\":12,\"ranges\":[[14,20]]}"));
        assertThat(p.dirty()).isFalse();
        committer.commitAll();
        assertThat(member.commits).as("nothing changed since").hasSize(1);

        p.done = java.util.Optional.of("{\"from\":12,\"ranges\":[[14,21]]}");
        committer.commitAll();
        assertThat(member.commits)
                .as("only the done value changed: still written")
                .hasSize(2);
    }

    @Test
    void theFinalProgressGoesWithTheReleaseWithItsDoneValue() {
        OwnedPartition p0 = positions.add(A0, OptionalLong.of(0));
        p0.position = 9;
        p0.progressOffset = 4;
        p0.done = java.util.Optional.of("{\"from\":4,\"ranges\":[[6,8]]}");
        member.takenOnRelease.add(A0);

        committer.commitFinal(List.of(p0));

        assertThat(member.onRelease).containsExactly(Map.of(A0, 4L));
        assertThat(member.doneOnRelease).containsExactly(Map.of(A0, "{\"from\":4,\"ranges\":[[6,8]]}"));
        assertThat(member.commits).isEmpty();
    }

    @Test
    void aCorrectionForgetsTheContainersProgress() {
        OwnedPartition p = positions.add(A0, OptionalLong.of(7000));
        p.position = 25;
        p.progressOffset = 7000;
        p.done = java.util.Optional.of("{\"from\":7000,\"ranges\":[[7002,7002]]}");

        committer.storeCorrections(new PositionResolver.Corrections(
                new TreeMap<>(Map.of(A0, 25L)), Map.of(A0, 7000L), Map.of(A0, "above the log end 25 (log 0..25)")));

        assertThat(p.commitOffset()).isEqualTo(25);
        assertThat(p.done).isEmpty();
        assertThat(p.dirty()).isFalse();
    }

    /**
     * A member that answers commits as scripted (COMMITTED unless told otherwise; {@code failure}: thrown, as a write
     * whose outcome is unknown) and records them. Also used by {@code KafkaTransactionsIT}.
     */
    static final class ScriptedMember implements GroupMember {
        RuntimeException failure;
        final List<Map<TopicPartition, Long>> commits = new ArrayList<>();
        final List<Map<TopicPartition, Long>> logEnds = new ArrayList<>();
        final List<Map<TopicPartition, Long>> onRelease = new ArrayList<>();
        final Map<TopicPartition, Status> answer = new HashMap<>();
        /** What {@code refresh} answers (UNCHANGED unless told otherwise). */
        final Map<TopicPartition, Status> refreshAnswer = new HashMap<>();

        final Map<TopicPartition, OptionalLong> adopted = new HashMap<>();
        final SortedSet<TopicPartition> takenOnRelease = new TreeSet<>();
        /** The done values of the commits and final commits that had any. */
        final List<Map<TopicPartition, String>> done = new ArrayList<>();

        final List<Map<TopicPartition, String>> doneOnRelease = new ArrayList<>();
        /** The fencing tokens of the member's claims now (absent: empty). */
        final Map<TopicPartition, Long> tokens = new HashMap<>();

        @Override
        public CommitResult commit(
                Map<TopicPartition, Long> offsets,
                Map<TopicPartition, Long> logEndOffsets,
                Map<TopicPartition, String> metadata,
                Map<TopicPartition, String> done) {
            this.done.add(Map.copyOf(done));
            return commit(offsets, logEndOffsets);
        }

        @Override
        public SortedSet<TopicPartition> commitOnRelease(
                Map<TopicPartition, Long> offsets,
                Map<TopicPartition, Long> logEndOffsets,
                Map<TopicPartition, String> done) {
            doneOnRelease.add(Map.copyOf(done));
            return commitOnRelease(offsets, logEndOffsets);
        }

        @Override
        public CommitResult commit(Map<TopicPartition, Long> offsets) {
            return commit(offsets, Map.of());
        }

        @Override
        public CommitResult commit(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
            commits.add(Map.copyOf(offsets));
            if (failure != null) {
                throw failure;
            }
            logEnds.add(Map.copyOf(logEndOffsets));
            Map<TopicPartition, Status> statuses = new HashMap<>();
            offsets.keySet().forEach(tp -> statuses.put(tp, answer.getOrDefault(tp, Status.COMMITTED)));
            return CommitResult.of(statuses, adopted);
        }

        @Override
        public SortedSet<TopicPartition> commitOnRelease(
                Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEndOffsets) {
            onRelease.add(Map.copyOf(offsets));
            SortedSet<TopicPartition> taken = new TreeSet<>(offsets.keySet());
            taken.retainAll(takenOnRelease);
            return taken;
        }

        @Override
        public CommitResult refresh(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Status> statuses = new HashMap<>();
            partitions.forEach(tp -> statuses.put(tp, refreshAnswer.getOrDefault(tp, Status.UNCHANGED)));
            return CommitResult.of(statuses, adopted);
        }

        @Override
        public String groupId() {
            return "g";
        }

        @Override
        public String memberId() {
            return "m1";
        }

        @Override
        public void start() {}

        @Override
        public SortedSet<TopicPartition> assignment() {
            return new TreeSet<>();
        }

        @Override
        public OptionalLong fencingToken(TopicPartition partition) {
            Long t = tokens.get(partition);
            return t == null ? OptionalLong.empty() : OptionalLong.of(t);
        }

        @Override
        public long generation() {
            return 0;
        }

        @Override
        public boolean isLeader() {
            return false;
        }

        @Override
        public OptionalLong committed(TopicPartition partition) {
            return OptionalLong.empty();
        }

        @Override
        public void close() {}
    }
}

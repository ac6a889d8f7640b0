package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped Kafka adapter in the simulator ({@link AdapterSimulation}, docs/simulation-adapter.md): seeded schedules
 * of {@code DefaultCoordinatedConsumer}s over the ZooKeeper model and the Kafka model, at least once and in the
 * transactional mode, checked by {@link AdapterChecker}. Default: {@value #DEFAULT_SCHEDULES} schedules at least once
 * and {@value #DEFAULT_TRANSACTIONAL_SCHEDULES} transactional ones from seed 1 (each mode about 10 schedules a second
 * on a loaded machine); {@code -Dgroupkeeper.adapterSimulation.schedules=N} and
 * {@code -Dgroupkeeper.adapterSimulation.seed=S} choose others for both. A failing seed prints itself, its shortest failing plan (faults dropped one at a time while it still
 * fails) and the end of its trace.
 */
class AdapterSimulationTest {

    static final int DEFAULT_SCHEDULES = 100;
    static final int DEFAULT_TRANSACTIONAL_SCHEDULES = 50;
    static final int FAULTS = 14;
    private static Level before;

    @BeforeAll
    static void quiet() {
        before = SeededSchedules.quiet("adapterSimulation");
    }

    @AfterAll
    static void loud() {
        SeededSchedules.restore(before);
    }

    @Test
    void atLeastOnceSchedulesKeepWhatUsersSee() {
        runSchedules(false);
    }

    /** The transactional mode's schedules (R1 and R2, found by seeds 21 and 1 below, fixed). */
    @Test
    void transactionalSchedulesKeepWhatUsersSee() {
        runSchedules(true);
    }

    /**
     * R2 (issue 44, fixed), found by the simulator: an operator's edit of t-1 to 73 is adopted while the partition's
     * transaction (begun at 117) is open; an output is rejected, the abort goes back to where the transaction began,
     * 117, not to the reset: records 73..116 never have an output again ("reset not taken up"). (Shortest plan of this
     * seed: the one EDIT at 6,098 ms.)
     */
    @Test
    void seed1KeepsAnAdoptedResetThroughAnAbort() {
        AdapterSimulation.Result r = AdapterSimulation.run(1, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * R1 (issue 44, fixed), found by the simulator: a member paused past its session (its partition t-1 claimed and committed
     * by the next owner, Kafka's offset 114) resumes; its stale claim fences the owner and "ZooKeeper wins" with its
     * stale offset: Kafka's offset of record goes 114 -> 0. (Shortest plan of this seed: one PAUSE at 887 ms for
     * 6,003 ms; Kafka's offset of t-1 120 -> 15.)
     */
    @Test
    void seed21KeepsKafkasOffsetOfRecordFromMovingBack() {
        AdapterSimulation.Result r = AdapterSimulation.run(21, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false positive of the exactly-once check, found by the simulator: t-0's new owner claims it at Kafka's offset
     * (ZooKeeper read before the operator's reset to 220, log end 229), its first poll returns 215..229 (229 produced
     * after the reset), then it hears of the reset (I4: within a commit interval) and processes 220.. again, so 229's
     * output is committed twice by the operator's order. The checker counts a reset as rewinding over the records past
     * the log end at the reset that user code received before the reset was taken up.
     */
    @Test
    void seed12CountsARewindOverWhatTheOwnerReceivedBeforeItHeardOfTheReset() {
        AdapterSimulation.Result r = AdapterSimulation.run(12, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A member cut off from ZooKeeper claims nothing, found by the simulator's doubt check (SimKafkaClients): m1 is
     * paused (6,962 ms for 4,111 ms) and cut off (7,976 ms for 4,056 ms); resumed while still cut off and before it has
     * heard, its polling thread aborts a transaction of t-0 and claims t-0 again — an initTransactions() with its store
     * not connected, which fences t-0's owner if m1 has lost it. (Shortest plan of this seed: LEAVE, PAUSE, CRASH,
     * DISCONNECT.)
     */
    @Test
    void seed70ClaimsNothingWhileTheStoreIsInDoubt() {
        AdapterSimulation.Result r = AdapterSimulation.run(70, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false positive of the check on Kafka's offset, found by the simulator once partition growth was on (seed 109
     * then; seed 7 of these schedules): an operator resets t-0 to 185 (log end 221) while Kafka's offset is at most
     * that; the owner's transaction, prepared before it heard of the reset, commits 218, then it takes the reset up
     * and commits 185. The checker counts a reset as excusing one backward move to at least its value, whether it was
     * below Kafka's offset at the reset or not.
     */
    @Test
    void seed7CountsAResetAboveKafkasOffsetForACommitPreparedBeforeIt() {
        AdapterSimulation.Result r = AdapterSimulation.run(7, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * The documented ambiguity of the transactional mode (docs/exactly-once.md, "What remains ambiguous"), met by the
     * simulator: t-4's owner crashes, an operator edits t-4 to 20, a value the last Kafka commit's metadata names, and
     * the next owner's claim takes Kafka's offset (12 records from 20 never output again). The simulation skips such
     * writes in the transactional mode; this seed shows it still does.
     */
    @Test
    void seed138SkipsAnEditToAValueKafkasMetadataNames() {
        AdapterSimulation.Result r = AdapterSimulation.run(138, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
        assertThat(r.tail()).contains("skipped: Kafka's metadata names it");
    }

    /**
     * The same ambiguity through a typo's repair (transactional): an operator's typo in t-1's offset node stops it; the
     * repair, to 108, is read at the next claim, and Kafka's last commit (120) names 108 as ZooKeeper's value: Kafka's
     * offset wins and 12 records from 108 are never output again. The simulation's operator repairs to the next lower
     * value the metadata does not name (107), as it skips such edits; this seed shows it still does. (Shortest plan
     * with the repair to 108: two WRITE_FAILS, GROW, DISCONNECT, the TYPO of t-1 at 7,958 ms for 3,182 ms, GROW.)
     */
    @Test
    void seed117RepairsATypoToNoValueKafkasMetadataNames() {
        AdapterSimulation.Result r = AdapterSimulation.run(117, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
        assertThat(r.tail()).contains("operator's repair of t-1 to 108 made 107");
    }

    /**
     * Outputs committed twice, found by the simulator (transactional): a stalled member's revocation timed out while it
     * held t-3 up to 107 in an open transaction; the next owner committed up to 179 and left; t-3 came back to the
     * stalled member and moved on at once. Its thread then served the queued assignment and revocation in one turn, and
     * the release carried the position of its earlier ownership (108) under its newer claim: ZooKeeper went back
     * 179 -> 108, the next claim took ZooKeeper's value, and the outputs of 108..178 were committed a second time. A
     * release hands over no position of an earlier claim any more (`PositionCommitter.commitFinal`). (Shortest plan: GROW,
     * EXPIRE, PAUSE, STALL of m1 at 6,426 ms for 4,083 ms, JOIN, LEAVE.)
     */
    @Test
    void seed1006680HandsNoPositionOfAnEarlierOwnershipToALaterRelease() {
        AdapterSimulation.Result r = AdapterSimulation.run(1006680, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A stale revocation's commit under a newer claim, found by the simulator (at least once): m1 owns t-5 at fence
     * version 2 and has received up to 135 when its polling thread stalls; the revocation times out and t-5 goes to m2,
     * which processes 101..181 and closes (final write 182, fence version 3); m1's member claims t-5 again (fence
     * version 4). When m1's thread comes back, the queued revocation of the first claim is served: its final commit is
     * refused for the release (t-5 is not being revoked now) and was committed at once instead, under the new claim:
     * ZooKeeper's offset of record went 182 -> 136. Positions of an earlier claim are no longer committed. (Shortest
     * plan: JOIN, LEAVE, DISCONNECT, STALL of m1 at 9,081 ms for 2,582 ms, LEAVE of m2.)
     */
    @Test
    void seed1000030CommitsNothingOfAnEarlierClaimUnderANewerOne() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_000_030, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A stale commit over an operator's edit, found by the simulator: m3, paused with t-0's commit point under way,
     * resumes after an edit of t-0 to 118 (ZooKeeper held 279); its Kafka commit of 298 lands, then, while its other
     * partitions' Kafka commits take their time, its store reconnects and claims t-0 again (the claim reads 118) and
     * the lane announces it; the polling thread, still in the earlier claim's commit point, writes 298 to ZooKeeper
     * under the new claim's version, over the edit. The queued claim then finds 118 (it read it) and commits it to
     * Kafka, and the next write, 198, moves ZooKeeper's offset back from 298. A commit point now leaves out a partition
     * claimed again since its thread was assigned it. (Shortest plan of this seed: CRASH, LEAVE, WRITE_FAILS,
     * DISCONNECT, GROW, WRITE_FAILS, GROW, a PAUSE of m3 at 13,637 ms, the EDIT at 14,691 ms.)
     */
    @Test
    void seed1000009WritesNoPositionOfAnEarlierClaimOverAnEdit() {
        AdapterSimulation.Result r = AdapterSimulation.run(1000009, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A consumer closed before its first turn started it is no member that failed to leave: both seeds end with a LEAVE
     * at the instant of the member's JOIN (transactional), and the harness asked a consumer that never started whether
     * its member had left.
     */
    @Test
    void seeds3042996And3051334CloseAConsumerBeforeItStarted() {
        for (long seed : new long[] {3_042_996, 3_051_334}) {
            AdapterSimulation.Result r = AdapterSimulation.run(seed, true, FAULTS);

            assertThat(r.violations()).as("seed " + seed + "\n" + r.tail()).isEmpty();
        }
    }

    /**
     * A final offset of an earlier claim handed over with the release of a claim user code had not heard of, found by
     * the simulator (at least once): m1 pauses past its session with t-3 claimed at 0; m2 takes t-3 over and commits
     * 93. m1 resumes, its polling thread receives t-3 0..39 under the ended claim, its member claims t-3 again in a
     * new session and the next generation revokes it before the lane has served that assignment. The revocation
     * handed over 40, and the release wrote it under the new claim: ZooKeeper's offset moved back from 93 to 40. The
     * member now takes a final offset only for a claim user code was told of (`PartitionTable.handOver`). (Shortest
     * plan: a PAUSE of m1 at 244 ms for 5,113 ms, a LEAVE of m3 at 2,452 ms, an EXPIRE of m2 at 5,373 ms.)
     */
    @Test
    void seed2080422HandsOverNoPositionOfAnEarlierClaimWithANewClaimsRelease() {
        AdapterSimulation.Result r = AdapterSimulation.run(2_080_422, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * An operator's reset lost after a commit whose reply was lost, found by the simulator (at least once): m3's commit
     * of t-2 22 -> 33 lands but is answered CONNECTIONLOSS; m3 stops, reconnects and claims t-2 again (the claim reads
     * 33, the lane queues the assignment with 33). The operator resets t-2 to 23 and the member adopts it (the node's
     * new version) before the polling thread serves the queued assignment, which started t-2 at 33: its next commit
     * wrote 43 over the reset under the adopted version, and records 23..32 were never processed again. An assignment
     * served after such an adoption starts from the adopted offset (`LaneEvents.startOf`, `GroupMember.seenOffset`).
     * (Shortest plan: WRITE_FAILS of m3's t-2 at 1,986 ms, RESET of t-2 to 23 at 2,064 ms.)
     */
    @Test
    void seed1008428StartsAQueuedAssignmentFromAResetAdoptedMeanwhile() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_008_428, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A paused member's stale assignment is no heir of a graceful close, found by the simulator (at least once): m1's
     * claim of t-0 at 142 is queued on its lane as the process pauses (4,790 ms, past its session timeout); its
     * session expires, m3 takes t-0 over and closes gracefully, handing it over at 214. m1 resumes, and its polling
     * thread serves the queued assignment (records 142..181) before its member hears that the session ended; it
     * commits nothing of it, and claims t-0 anew from 214. The checker counted m1 as the closer's heir: an assignment
     * served under an ended session is a lost claim's, which at least once may repeat (`AdapterChecker.assigned`).
     * (Shortest plan: LEAVE at 5,082 ms, WRITE_FAILS of m1 at 6,873, PAUSE of m1 at 7,020 for 4,790, LEAVE of m3 at
     * 10,691.)
     */
    @Test
    void seed1003121CountsNoPausedMembersStaleAssignmentAsAnHeir() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_003_121, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false positive of the graceful-close check in the transactional mode, found by the simulator: m3 is paused
     * (6,065 ms for 4,100 ms, past its session) holding t-3 at 129, committed to Kafka; a LEAVE comes meanwhile; m2 is
     * assigned t-3 and starts at 129; m3 resumes and closes at once, its stale view still listing t-3. The checker took
     * the close as a handover at 129 whose Kafka offset was already there, and m2, assigned before the close, for no
     * heir: it judged m2's first record of a later ownership (231). A close hands over only the partitions whose claim
     * still stands (`AdapterChecker.closing`). (Shortest plan: EDIT, DELETE, EXPIRE, two WRITE_FAILS, the PAUSE, the
     * LEAVE, EXPIRE.)
     */
    @Test
    void seed1000767HandsNothingOverFromAClosersClaimThatNoLongerStands() {
        AdapterSimulation.Result r = AdapterSimulation.run(1000767, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A fresh start lost to a failed transaction, found by the simulator (transactional): the operator deletes t-2's
     * offset node (Kafka's offset 13, its metadata naming ZooKeeper's 0, the start position); m1 claims t-2 and starts
     * afresh at 0, and the transaction committing the start to Kafka times out; the start was stored in ZooKeeper
     * alone. m1's next transaction fails too, and the claim made again read ZooKeeper's 0 as a value Kafka's metadata
     * names and let Kafka's 13 win: records 0..12 never had an output again ("reset not taken up"); the next owner's
     * claim does the same (seeds 3019130, 3024351). ZooKeeper holds no offset until Kafka has the fresh start
     * ({@code KafkaTransactions.zkOffset}); against the servers: {@code TransactionalFreshStartIT}. (Seed 3005823,
     * shortest plan of 8 faults with the DELETE of t-2 at 2,873 ms; seed 3007583, CRASH, LEADER_CRASH, EDIT,
     * WRITE_FAILS, the DELETE of t-4 at 3,799 ms; seed 3019130, LEADER_CRASH, CRASH, PAUSE, JOIN, the DELETE at
     * 7,650 ms, the owner's PAUSE at 8,009 ms past its session.)
     */
    @Test
    void seeds3005823And3007583And3019130And3024351KeepAFreshStartThroughAFailedTransaction() {
        for (long seed : new long[] {3_005_823, 3_007_583, 3_019_130, 3_024_351}) {
            AdapterSimulation.Result r = AdapterSimulation.run(seed, true, FAULTS);

            assertThat(r.violations()).as("seed " + seed + "\n" + r.tail()).isEmpty();
        }
    }

    /**
     * A false positive of the graceful-close check in the transactional mode, found by the simulator: m1 took up an
     * operator's reset of t-0 to 168 (Kafka's offset 169) and sent record 168's output again; at its close the final
     * transaction failed ({@code sendOffsetsToTransaction} timed out), was aborted, and the partition was claimed
     * again, which committed ZooKeeper's offset, the reset's 168, to Kafka. The checker took that commit for the final
     * transaction ("processed t-0 up to 168 but its final transaction committed 168"); the heir rightly starts at 168.
     * A commit during the close is the final transaction only if it carries the output of the closer's last processed
     * record ({@code AdapterChecker.closerOutput}). (Seed 3001768, shortest plan of 8 faults: two RESETs of t-0, the
     * second at 8,347 ms, the LEAVE at 8,515; seeds 3005985 — an EDIT at 1,927 ms and the LEAVE at 2,806 —, 3006116,
     * 3007173, 3009452, 3013413, 3014353, 3017439 and 3029758: the same after an edit the closer had taken up, its
     * transaction failed at or before the close.)
     */
    @Test
    void nineSeedsJudgeNoCloseWhoseFinalTransactionFailed() {
        for (long seed : new long[] {
            3_001_768, 3_005_985, 3_006_116, 3_007_173, 3_009_452, 3_013_413, 3_014_353, 3_017_439, 3_029_758
        }) {
            AdapterSimulation.Result r = AdapterSimulation.run(seed, true, FAULTS);

            assertThat(r.violations()).as("seed " + seed + "\n" + r.tail()).isEmpty();
        }
    }

    /**
     * A claim's later inits while the store is in doubt, found by the simulator's doubt check (SimKafkaClients): m2,
     * paused 6,897 ms for 5,014 ms, resumes and claims t-2..t-5; the store confirms them and the first
     * {@code initTransactions()} goes out; the connection is cut (12,116 ms for 983 ms) during its round trip, and the
     * next ones are initialised while the store is not connected (the doubt was checked once, before the
     * confirmation). Each init now checks the connection first. (Shortest plan of this seed: LEADER_CRASH, LEAVE,
     * DISCONNECT, the PAUSE, the DISCONNECT.)
     */
    @Test
    void seed1000147InitialisesNothingOnceTheStoreIsInDoubt() {
        AdapterSimulation.Result r = AdapterSimulation.run(1000147, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false positive of the check on Kafka's offset, found by the simulator: Kafka's offset of t-0 is 182; an
     * operator resets t-0 to 181, and, before the owner has taken it up, edits it to 77; the owner takes up both, in
     * order (Kafka 182 -> 181 -> 77). The checker kept only the lowest reset since and counted it for one backward move;
     * it keeps each reset now, one backward move each, in the order they were made.
     */
    @Test
    void seed1000160CountsTwoResetsForTwoBackwardMoves() {
        AdapterSimulation.Result r = AdapterSimulation.run(1000160, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false positive of the graceful-close check, found by the simulator: m1 closes and hands t-2 over at 79; m2,
     * whose polling thread is stalled, is assigned t-2 and serves that assignment only after the revocation that
     * released it (assigned and revoked in one turn, no record received); m3 claims it and starts at 79. The checker
     * took the first member assigned the partition (m2) for the heir and judged m2's first record once it owned t-2
     * again much later (229 in the shortest plan); the heir is now the member that receives the first record.
     * (Shortest plan of this seed: PAUSE, STALL, LEAVE, GROW, JOIN and two more.)
     */
    @Test
    void seed1000647JudgesTheHeirThatReceivesTheFirstRecord() {
        AdapterSimulation.Result r = AdapterSimulation.run(1000647, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
        assertThat(r.handovers()).as("graceful closes judged").isPositive();
    }

    /**
     * Records skipped with no output, found by the simulator (transactional): m2's claim of t-2 had not succeeded (not
     * fetched until a retry at a commit point succeeds) when an operator's reset of t-2 to 236 was adopted; the
     * adoption ended the stop as it ends an out-of-range one, the next poll returned t-2's records with t-0's,
     * {@code send()} for t-2 refused them (its claim had not succeeded), the user loop dropped the rest of the batch,
     * and the next commit passed 4 records of t-0 from 227 with no output. An adopted edit now leaves a partition
     * whose claim is pending unfetched (`DefaultCoordinatedConsumer.Effects.adopt`). (14 faults, among them the RESET
     * of t-2 at 11,570 ms.)
     */
    @Test
    void seed1010052FetchesNoPartitionWhoseClaimIsPendingThroughAnAdoptedEdit() {
        AdapterSimulation.Result r = AdapterSimulation.run(1010052, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A partition never handed over after a typo met its revocation, found by the simulator (at least once): an
     * operator's typo makes t-3's offset node unreadable; a member joins and t-3 is revoked from m1; a commit of m1 in
     * the revocation meets the corrupt node and stops t-3 (REVOKING -> STOPPED). The step that revoked it released only
     * partitions still revoking, no later step came (the target did not change again), so m1 kept t-3's owner node, the
     * heir waited for ever and the operator's repair (to 138) was never taken up. The step now releases, by version,
     * the revoked partitions its callback stopped (`Reconciler.finishStep`). (Shortest plan: the TYPO of t-3 at
     * 11,609 ms for 1,653 ms, a JOIN at 11,690 ms.)
     */
    @Test
    void seed1010010HandsOverARevokedPartitionWhoseCommitMetATypo() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_010_010, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * The same as seed 1010010 with a stalled polling thread (at least once): t-3's typo at 11,364 ms lands while m2's
     * thread is stalled; a join revokes t-3, m2's commit in the revocation meets the corrupt node and stops it, and
     * t-3 was never released: the repair (to 130) never taken up. (Shortest plan: LEAVE, JOIN, STALL of m2, the TYPO,
     * a JOIN.)
     */
    @Test
    void seed1001137HandsOverARevokedPartitionWhoseCommitMetATypoAfterAStall() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_001_137, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A deleted offset node not followed by a fresh start (A5), found by the simulator (at least once): the operator
     * deletes t-3's offset node (log end 152); m3's commit is answered ADOPTED with no offset, and in the same
     * {@code poll()} the start position (earliest: 0) is resolved and stored — but the {@code KafkaConsumer} still
     * fetched t-3 from its old position, the poll returned those records as if they followed 0, and the next commit
     * wrote 164 over the fresh start: records 0..163 never processed again. A resolved start now moves the consumer's
     * fetch position too ({@code PositionResolver.resolveStarts} through {@code ConsumerSync.seek}). (Shortest plan:
     * EXPIRE, PAUSE, JOIN, GROW, JOIN, STALL, the DELETE of t-3 at 9,245 ms.)
     */
    @Test
    void seed1002030StartsADeletedOffsetAfreshInTheSamePoll() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_002_030, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A deletion adopted for a claim whose assignment was still queued, found by the simulator (at least once): m4's
     * commit of t-3 (44 -> 59) has its reply lost; the node's change queues an offsets-changed event, the connection
     * goes in doubt (t-3 lost) and comes back, and m4 claims t-3 again at 59 (assignment queued). The operator deletes
     * t-3's offset node. The polling thread serves the offsets-changed event while the earlier claim's partition is
     * still in its positions: the member's refresh adopts the deletion for the new claim. The queued assignment then
     * asked {@code GroupMember.seenOffset}, empty both for "nothing seen" and "seen, no offset", and started from the
     * announced 59: its next commit created the node at 68, and records 0..58 were never processed again. A deletion
     * adopted meanwhile now starts the assignment at the start position ({@code LaneEvents.startOf}). (Shortest plan:
     * JOIN, GROW, GROW, LEAVE, LEADER_CRASH, WRITE_FAILS of m4 at 6,680 ms, the DELETE of t-3 at 6,931 ms.)
     */
    @Test
    void seed1001524StartsAQueuedAssignmentAfreshAfterADeletionAdoptedMeanwhile() {
        AdapterSimulation.Result r = AdapterSimulation.run(1_001_524, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A ghost owner node, found by the simulator (at least once): m1, paused past its session, resumes; its client is
     * connected in a new session before the member hears LOST, and the member's pending step claims t-4 in it. Closing,
     * the member then hears LOST and ended its leave ("nothing of this member is left once the service ends it"): the
     * claim in the new session stayed as long as the keeper, and m3 waited for t-4 to the end. A leave that hears LOST
     * while partitions it still holds were claimed in the store's connected session now waits for that session and
     * releases them ({@code MemberLeave}). (Shortest plan: 13 faults; PAUSE of m1 at 6,943 ms for 4,141 ms, its LEAVE
     * during the pause.)
     */
    @Test
    void seed2045322ReleasesAClaimMadeInTheNewSessionBeforeLostWasHeard() {
        AdapterSimulation.Result r = AdapterSimulation.run(2_045_322, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * Kafka's retention in the transactional schedules: a correction of the out-of-range policy did not move where the
     * open transaction rewinds to. An abort (an output rejected) or a failed transaction after it went back to where
     * the transaction began, below the log start, and the next commit wrote that to ZooKeeper over the stored
     * correction ("ZooKeeper's offset of record moved backwards from 18 to 16", seed 5000617; shortest plan 3 faults:
     * a disconnection and two edits, besides the retention). Corrections now move the rewind point and are stored
     * through the fenced commit ({@code PositionCommitter.storeCorrections}; {@code TransactionalOutOfRangeIT}).
     */
    @Test
    void transactionalSeedsWhereACorrectionIsWhereLaterRewindsGo() {
        for (long seed :
                new long[] {5_000_125, 5_000_185, 5_000_399, 5_000_617, 5_000_821, 5_001_524, 5_001_734, 5_001_889}) {
            AdapterSimulation.Result r = AdapterSimulation.run(seed, true, FAULTS);

            assertThat(r.violations()).as("seed " + seed + "\n" + r.tail()).isEmpty();
        }
    }

    /**
     * A deletion of t-6's offset node, an operator's typo that created it again and the typo's repair brought the node
     * back to the version its owner m2 last saw, while m2's polling thread was stalled with t-6's assignment queued.
     * Served, the assignment stored its start position on that version alone, over the repair: "ZooKeeper's offset of
     * record moved backwards from 89 to 0" (shortest plan 5 faults: a growth, a join, a stall, a delete, a typo).
     * The member watches the node and had read it in its new incarnation; it now reads the node again instead of
     * writing on a version a new incarnation came round to ({@code PartitionTable.Entry#recreated}; {@code
     * FencingIT.anEditThatBringsARecreatedNodeBackToTheSeenVersionIsAdoptedNotOverwritten}).
     */
    @Test
    void seed2349962DoesNotWriteOnAVersionARecreatedNodeCameRoundTo() {
        AdapterSimulation.Result r = AdapterSimulation.run(2_349_962, false, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A false violation of exactly once (transactional, the long run's chunk from 3280001): an operator's reset at
     * 493 ms, before the owner's first record, to the value its claim started from. The claim's first record, at that
     * value, was taken for the reset's take-up, so t-0@10 and 11, past the reset's log end and received before the
     * owner adopted the reset, had no allowance when they were processed again: "the output of input t-0@10 committed
     * 2 times (0 operator rewinds over it)". An ownership's first record is a take-up only under a claim made after
     * the reset (as the container simulation's seed 1588).
     */
    @Test
    void seed3284945TakesAClaimsStartForATakeUpOnlyAfterTheReset() {
        AdapterSimulation.Result r = AdapterSimulation.run(3_284_945, true, FAULTS);

        assertThat(r.violations()).as(r.tail()).isEmpty();
    }

    /**
     * A graceful close in the transactional mode commits its final transaction: the heir starts after the closer's last
     * output and replays nothing. A close that aborted it instead would pass every check of a schedule (its outputs
     * never reach {@code read_committed}, the heir starts at Kafka's offset before them, as after a final transaction
     * that failed, which is not judged), so this counts over twenty schedules the handovers graceful closes began and
     * those whose final transaction the close committed. (The others: the closer's claim or transaction failed, the
     * heir never came, or Kafka's offset was where the close hands over already.)
     */
    @Test
    void transactionalClosesCommitTheirFinalTransaction() {
        long begun = 0;
        long committed = 0;
        for (long seed = 1; seed <= 20; seed++) {
            AdapterSimulation.Result r = AdapterSimulation.run(seed, true, FAULTS);
            assertThat(r.violations()).as("seed " + seed + "\n" + r.tail()).isEmpty();
            begun += r.handoversBegun();
            committed += r.finalTransactions();
        }
        assertThat(committed)
                .as(
                        "of the %d handovers graceful closes began, those whose final transaction the close committed",
                        begun)
                .isPositive()
                .isGreaterThanOrEqualTo(begun / 3);
    }

    static void runSchedules(boolean transactional) {
        new SeededSchedules<AdapterSimulation.Result>(
                        "adapterSimulation", "adapter simulation", transactional ? "transactional" : "at least once")
                .count("records", AdapterSimulation.Result::done)
                .count("outputs", AdapterSimulation.Result::outputs)
                .count("resets", AdapterSimulation.Result::resets)
                .count("retentions", AdapterSimulation.Result::retentions)
                .count("corrected", AdapterSimulation.Result::corrected)
                .count("landedLate", AdapterSimulation.Result::landedLate)
                .count("abortedByInit", AdapterSimulation.Result::abortedByInit)
                .count("closes", AdapterSimulation.Result::handovers)
                .run(
                        transactional ? DEFAULT_TRANSACTIONAL_SCHEDULES : DEFAULT_SCHEDULES,
                        seed -> AdapterSimulation.run(seed, transactional, FAULTS),
                        r -> plan -> new AdapterSimulation(r.seed(), r.transactional(), plan).run());
    }
}

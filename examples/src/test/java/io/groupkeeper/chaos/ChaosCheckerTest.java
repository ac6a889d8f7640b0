package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosLedger.CommittedSample;
import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.Reset;
import io.groupkeeper.chaos.ChaosLedger.SinkAction;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker itself must catch each kind of violation, or the chaos run proves nothing. */
class ChaosCheckerTest {

    private final ChaosChecker checker = new ChaosChecker(1_000);

    private static ChaosLedger cleanRun() {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 100));
        l.ownership(new Ownership("g", 0, "b", 100, 300));
        for (long o = 0; o < 5; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        for (long o = 5; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "b", 150 + o));
        }
        l.committed(new CommittedSample("g", 0, 5, 90));
        l.committed(new CommittedSample("g", 0, 10, 200));
        return l;
    }

    @Test
    void aCleanRunPasses() {
        ChaosChecker.Report r = checker.check(7, cleanRun(), Set.of("g"), Map.of(0, 10L));
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.summary())
                .isEqualTo("chaos seed=7 faults=0 records=10 lost=0 overlaps=0 duplicates=0 (bound 0)"
                        + " key-order-violations=0 zombie-overlap-ms=0 zombie-records=0 zombie-writes-refused=0/0");
    }

    @Test
    void aRecordNeverProcessedIsLost() {
        ChaosChecker.Report r = checker.check(7, cleanRun(), Set.of("g"), Map.of(0, 12L));
        assertThat(r.lost()).isEqualTo(2);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void overlappingOwnershipAndProcessingOutsideOwnershipAreOverlaps() {
        ChaosLedger l = cleanRun();
        l.ownership(new Ownership("g", 0, "c", 250, 400));
        l.processed(new Processed("g", 0, 3, "d", 50));
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isEqualTo(2);
        assertThat(r.problems())
                .anyMatch(p -> p.contains("owned by b"))
                .anyMatch(p -> p.contains("outside its ownership"));
    }

    @Test
    void duplicatesAreBoundedByTheCrashedMembersUncommittedWindowAndResetReplaysAreNotDuplicates() {
        ChaosLedger l = cleanRun();
        l.processed(new Processed("g", 0, 4, "b", 120)); // replayed after a's crash at 100
        ChaosChecker.Report unexplained = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(unexplained.duplicates()).isEqualTo(1);
        assertThat(unexplained.ok()).isFalse();

        l.fault(new Fault("crash", "a", 100, true));
        ChaosChecker.Report explained = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(explained.bound()).isEqualTo(5);
        assertThat(explained.ok()).isTrue();

        ChaosLedger reset = cleanRun();
        reset.reset(new Reset("g", 0, 7, 170));
        reset.processed(new Processed("g", 0, 7, "b", 180));
        reset.processed(new Processed("g", 0, 8, "b", 181));
        assertThat(checker.check(7, reset, Set.of("g"), Map.of(0, 10L)).duplicates())
                .isZero();
    }

    @Test
    void aCommittedOffsetMovingBackIsCaughtUnlessAResetDidIt() {
        ChaosLedger l = cleanRun();
        l.committed(new CommittedSample("g", 0, 8, 250));
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).backwards()).isEqualTo(1);
        l.reset(new Reset("g", 0, 8, 240));
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).backwards()).isZero();
    }

    @Test
    void aRecordWhoseProcessingOutlastsTheOwnershipIsAnOverlap() {
        ChaosLedger l = cleanRun();
        // a stalled record: a started it inside its ownership but finished after the partition went to b
        l.processed(new Processed("g", 0, 4, "a", 50, 120));
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isEqualTo(1);
        assertThat(r.problems()).anyMatch(p -> p.contains("[50, 120] outside its ownership"));
    }

    /** a owned partition 0 until its session expired at 100 (lost); b resumed from the last commit. */
    private static ChaosLedger lossRun(long resumeAt) {
        return endedRun(End.LOST, resumeAt);
    }

    /** a owned partition 0 until 100 and ended so, having processed 0..4 with 3 committed; b resumes at resumeAt. */
    private static ChaosLedger endedRun(End end, long resumeAt) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 100, end));
        l.ownership(new Ownership("g", 0, "b", 200, 300));
        for (long o = 0; o < 5; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        l.committed(new CommittedSample("g", 0, 3, 50));
        for (long o = resumeAt; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "b", 210 + o));
        }
        return l;
    }

    @Test
    void aRevocationReplaysOnlyWhenAFaultHadCutTheMemberOff() {
        ChaosChecker wide = new ChaosChecker(10_000);
        // a graceful revocation: its final commit landed, so b's replays of 3 and 4 are unexplained
        ChaosLedger graceful = endedRun(End.REVOKED, 3);
        ChaosChecker.Report r = wide.check(7, graceful, Set.of("g"), Map.of(0, 10L));
        assertThat(r.unexplained()).isEqualTo(2);
        assertThat(r.ok()).isFalse();

        // a member cut off just before it left: told "revoked", its final commit failed, b repeats from the last one
        ChaosLedger cutOff = endedRun(End.REVOKED, 3);
        cutOff.fault(new Fault("expire", "a", 90, false, Set.of("a")));
        ChaosChecker.Report r2 = wide.check(7, cutOff, Set.of("g"), Map.of(0, 10L));
        assertThat(r2.duplicates()).isEqualTo(2);
        assertThat(r2.bound()).isEqualTo(2);
        assertThat(r2.ok()).as(r2.problems().toString()).isTrue();
    }

    @Test
    void aLossExplainedByAFaultBoundsDuplicatesByWhatWasProcessedAboveTheLastCommit() {
        ChaosChecker wide = new ChaosChecker(10_000);
        ChaosLedger explained = lossRun(3);
        explained.fault(new Fault("expire", "a", 95, false, Set.of("a")));
        ChaosChecker.Report r = wide.check(7, explained, Set.of("g"), Map.of(0, 10L));
        assertThat(r.duplicates()).isEqualTo(2); // 3 and 4
        assertThat(r.bound()).isEqualTo(2); // only a's records at or above the committed 3, not its whole history
        assertThat(r.ok()).as(r.problems().toString()).isTrue();

        // b resuming below the committed offset repeats a record that was committed: not a crash's window
        ChaosLedger below = lossRun(2);
        below.fault(new Fault("expire", "a", 95, false, Set.of("a")));
        ChaosChecker.Report r2 = wide.check(7, below, Set.of("g"), Map.of(0, 10L));
        assertThat(r2.unexplained()).isEqualTo(1);
        assertThat(r2.ok()).isFalse();
        assertThat(r2.problems()).anyMatch(p -> p.contains("offset 2 processed again by b"));

        // the same loss with no fault exposing a: its replays are duplicates nobody explains
        ChaosChecker.Report r3 = wide.check(7, lossRun(3), Set.of("g"), Map.of(0, 10L));
        assertThat(r3.unexplained()).isEqualTo(2);
        assertThat(r3.notes()).anyMatch(n -> n.contains("ended LOST at 100 with no fault exposing it"));
        assertThat(r3.ok()).isFalse();

        // a fault exposing someone else, or long before, explains nothing
        ChaosLedger other = lossRun(3);
        other.fault(new Fault("zk-kill", "zk2", 95, false, Set.of("c")));
        other.fault(new Fault("expire", "a", -20_000, false, Set.of("a")));
        assertThat(wide.check(7, other, Set.of("g"), Map.of(0, 10L)).unexplained())
                .isEqualTo(2);
    }

    @Test
    void recordsProcessedAfterAResetButBeforeTheOwnerAdoptedItAreReplaysNotDuplicates() {
        ChaosLedger l = cleanRun(); // b processed 5..9 at 155..159
        l.reset(new Reset("g", 0, 6, 165, 160));
        l.processed(new Processed("g", 0, 9, "b", 170)); // 9 again, and nobody went back to 6: a duplicate
        ChaosChecker.Report dup = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(dup.duplicates()).isEqualTo(1);

        ChaosLedger lag = new ChaosLedger();
        lag.ownership(new Ownership("g", 0, "b", 0, 300));
        for (long o = 0; o < 8; o++) {
            lag.processed(new Processed("g", 0, o, "b", 100 + o));
        }
        lag.reset(new Reset("g", 0, 5, 165, 160));
        lag.processed(new Processed("g", 0, 8, "b", 170)); // still in the batch fetched before the reset
        for (long o = 5; o < 10; o++) {
            lag.processed(new Processed("g", 0, o, "b", 180 + o)); // adopted: 5, 6, 7, 8 again, then 9
        }
        ChaosChecker.Report r = checker.check(7, lag, Set.of("g"), Map.of(0, 10L));
        assertThat(r.duplicates()).as(r.problems().toString()).isZero();
        assertThat(r.ok()).isTrue();
    }

    @Test
    void aSampleAboveTheResetTargetButBelowTheOldOffsetIsExplainedByTheReset() {
        ChaosLedger l = cleanRun(); // committed 10 at 200
        l.reset(new Reset("g", 0, 6, 215, 210));
        l.committed(new CommittedSample("g", 0, 8, 260)); // the owner adopted 6 and committed 8 before the sample
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).backwards()).isZero();

        ChaosLedger late = cleanRun();
        late.reset(new Reset("g", 0, 6, 215, 210));
        late.committed(new CommittedSample("g", 0, 12, 300));
        late.committed(new CommittedSample("g", 0, 11, 400)); // the reset was over before 12 was read: really backwards
        assertThat(checker.check(7, late, Set.of("g"), Map.of(0, 10L)).backwards())
                .isEqualTo(1);
    }

    @Test
    void theSummaryNamesUnexplainedDuplicatesAndBackwardsMovesOnlyWhenThereAreAny() {
        ChaosLedger l = cleanRun();
        l.processed(new Processed("g", 0, 4, "b", 120));
        l.committed(new CommittedSample("g", 0, 8, 250));
        assertThat(checker.check(9, l, Set.of("g"), Map.of(0, 10L)).summary())
                .isEqualTo(
                        "chaos seed=9 faults=0 records=11 lost=0 overlaps=0 duplicates=1 (bound 0) key-order-violations=0 zombie-overlap-ms=0 "
                                + "zombie-records=0 zombie-writes-refused=0/0 unexplained=1 backwards=1");
        assertThat(List.of(checker.check(9, cleanRun(), Set.of("g"), Map.of(0, 10L))
                        .summary()))
                .allMatch(s -> !s.contains("unexplained") && !s.contains("backwards"));
    }

    @Test
    void aLossToldLateIsANoteNotAnOverlapAndItsBoundUsesTheCommitBeforeTheHandOver() {
        // a stopped processing when it entered poll() at 100, but was told it lost the partition only at 250 (the
        // polling thread was held up inside poll()); b started at 200 and committed 10 at 230
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 100, End.LOST, 250));
        l.ownership(new Ownership("g", 0, "b", 200, 300));
        for (long o = 0; o < 5; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        l.committed(new CommittedSample("g", 0, 3, 50));
        for (long o = 3; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "b", 210 + o));
        }
        l.committed(new CommittedSample("g", 0, 10, 230));
        l.fault(new Fault("expire(partition)", "a", 95, false, Set.of("a")));
        ChaosChecker.Report r = new ChaosChecker(1_000).check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isZero();
        assertThat(r.duplicates()).isEqualTo(2);
        assertThat(r.bound()).isEqualTo(2); // committed 3 when b took over, not b's later 10
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.notes())
                .anyMatch(n -> n.contains("a was told LOST at 250, 50 ms after the next owner started"))
                .anyMatch(n -> n.startsWith("late notices: 1 "));
    }

    @Test
    void anAssignmentToldAndLostWithinOnePollIsANoteUnlessRecordsWereProcessedInIt() {
        ChaosLedger l = cleanRun(); // b owns partition 0 from 100 to 300
        l.ownership(new Ownership("g", 0, "c", 150, 150, End.LOST, 150)); // a stale event, withdrawn at once
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isZero();
        assertThat(r.notes()).anyMatch(n -> n.startsWith("phantom assignments: 1"));

        l.processed(new Processed("g", 0, 7, "c", 150, 151)); // but c processed a record then: outside ownership
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).overlaps()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ zombie batches and the fencing token

    /**
     * a owned partition 0 from 0; a zombie batch hit it at 80 (stalled on offset 5 from 90 to 300, cut off); b took
     * over at 250 from the committed 3 and processed 3..9 at 260..266; a finished 5, 6 and 7 at 300..302 and entered
     * poll() at 400, where it heard of the loss.
     */
    private static ChaosLedger zombieRun(String faultKind) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 400, End.LOST, 400));
        l.ownership(new Ownership("g", 0, "b", 250, 600));
        for (long o = 0; o < 5; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        l.committed(new CommittedSample("g", 0, 3, 50));
        l.processed(new Processed("g", 0, 5, "a", 90, 300));
        l.processed(new Processed("g", 0, 6, "a", 301));
        l.processed(new Processed("g", 0, 7, "a", 302));
        for (long o = 3; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "b", 257 + o));
        }
        l.fault(new Fault(faultKind, "a", 80, false, Set.of("a")));
        return l;
    }

    @Test
    void aZombieBatchFinishedAfterItsSuccessorStartedIsMeasuredNotCountedAsAnOverlap() {
        ChaosChecker.Report r = checker.check(7, zombieRun(Fault.ZOMBIE), Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isZero();
        assertThat(r.zombies().overlapMillis()).isEqualTo(150); // a held it until 400, b started at 250
        assertThat(r.zombies().records()).isEqualTo(3); // 5 (finished at 300), 6 and 7
        assertThat(r.duplicates()).isEqualTo(5); // 3, 4, 5 repeated by b; 6, 7 by the zombie after b
        assertThat(r.unexplained()).isZero();
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.summary()).contains(" zombie-overlap-ms=150 zombie-records=3 ");
        assertThat(r.notes())
                .anyMatch(n -> n.equals(
                        "g/0: zombie a held it until 400, 150 ms after b started; 3 " + "records processed after that"))
                .noneMatch(n -> n.startsWith("late notices"));

        // another partition of the zombie, not in its batch: let go before the fault, told only after the batch
        ChaosLedger other = zombieRun(Fault.ZOMBIE);
        other.ownership(new Ownership("g", 1, "a", 0, 70, End.LOST, 400));
        other.ownership(new Ownership("g", 1, "b", 250, 600));
        ChaosChecker.Report r2 = checker.check(7, other, Set.of("g"), Map.of(0, 10L));
        assertThat(r2.ok()).as(r2.problems().toString()).isTrue();
        assertThat(r2.notes())
                .noneMatch(n -> n.startsWith("late notices"))
                .anyMatch(n -> n.equals("notices to zombies, late by definition (not counted above): 2"));
    }

    @Test
    void theSameOverlapWithoutAZombieFaultIsAViolation() {
        // an expiry alone does not excuse it: the member must have stopped before its session could expire (I7)
        ChaosChecker.Report r = checker.check(7, zombieRun("expire(partition)"), Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isEqualTo(1);
        assertThat(r.zombies().overlapMillis()).isZero();
        assertThat(r.unexplained()).isEqualTo(2); // a's 6 and 7 after b's: nothing explains them
        assertThat(r.ok()).isFalse();

        // a zombie fault of another member excuses nothing either
        ChaosLedger other = zombieRun("expire(partition)");
        other.fault(new Fault(Fault.ZOMBIE, "c", 80, false, Set.of("c")));
        assertThat(checker.check(7, other, Set.of("g"), Map.of(0, 10L)).overlaps())
                .isEqualTo(1);
    }

    @Test
    void aZombieIntervalThatBeganInsideAnotherMembersOwnershipIsStillAnOverlap() {
        ChaosLedger l = zombieRun(Fault.ZOMBIE);
        l.ownership(new Ownership("g", 0, "c", 300, 700, End.LOST, 700)); // c was given it while b owned it
        l.ownership(new Ownership("g", 0, "d", 650, 800));
        l.fault(new Fault(Fault.ZOMBIE, "c", 320, false, Set.of("c"))); // and c then became a zombie
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.overlaps()).isEqualTo(1);
        assertThat(r.problems()).anyMatch(p -> p.contains("owned by b [250, 600] and c from 300"));
        assertThat(r.ok()).isFalse();

        // someone given the partition inside a zombie's interval but before the fault hit it: a plain overlap
        ChaosLedger early = zombieRun(Fault.ZOMBIE);
        early.ownership(new Ownership("g", 0, "e", 60, 70));
        ChaosChecker.Report r2 = checker.check(7, early, Set.of("g"), Map.of(0, 10L));
        assertThat(r2.overlaps()).isEqualTo(1);
        assertThat(r2.problems()).anyMatch(p -> p.contains("owned by a [0, 400] and e from 60"));
    }

    @Test
    void everyWriteOfAFormerOwnerAfterItsSuccessorOpenedThePartitionMustBeRefused() {
        ChaosLedger l = new ChaosLedger();
        l.sink().open("g", 0, "a", 10);
        l.sink().write("g", 0, 5, "a", 10); // a owns it: accepted
        l.sink().open("g", 0, "b", 20); // b took over
        for (long o = 6; o < 9; o++) {
            assertThat(l.sink().write("g", 0, o, "a", 10)).isFalse(); // the zombie's late writes
        }
        l.sink().write("g", 0, 6, "b", 20);
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.zombies().writes()).isEqualTo(3);
        assertThat(r.zombies().writesRefused()).isEqualTo(3);
        assertThat(r.zombies().fencingViolations()).isZero();
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.summary()).endsWith(" zombie-writes-refused=3/3");
    }

    @Test
    void aLateWriteAcceptedIsAFencingViolation() {
        // the log of a sink that ignored the token: a's second late write went through
        ChaosLedger l = new ChaosLedger();
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.OPEN, -1, 10, true, 10, 1, 0));
        l.sinkOp(new SinkOp("g", 0, "b", SinkAction.OPEN, -1, 20, true, 20, 2, 10));
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.WRITE, 6, 10, false, 20, 3, 20));
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.WRITE, 7, 10, true, 20, 4, 30));
        l.sinkOp(new SinkOp("g", 0, "b", SinkAction.WRITE, 6, 20, true, 20, 5, 40));
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.zombies().writes()).isEqualTo(2);
        assertThat(r.zombies().writesRefused()).isEqualTo(1);
        assertThat(r.zombies().fencingViolations()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
        assertThat(r.summary()).endsWith(" zombie-writes-refused=1/2 fencing-violations=1");
        assertThat(r.problems()).anyMatch(p -> p.contains("late write of offset 7 by former owner a (token 10)"));
    }

    @Test
    void aTokenThatDidNotGrowWithTheChangeOfHandsIsCaught() {
        // b's claim got a lower token than a's: its open and its writes are refused, a's late writes accepted
        ChaosLedger l = new ChaosLedger();
        l.sink().open("g", 0, "a", 10);
        l.sink().open("g", 0, "b", 5);
        l.sink().write("g", 0, 3, "b", 5);
        l.sink().write("g", 0, 4, "a", 10);
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.zombies().fencingViolations()).isEqualTo(3);
        assertThat(r.problems())
                .anyMatch(p -> p.contains("the open of new owner b with token 5 was refused"))
                .anyMatch(p -> p.contains("write of offset 3 by its owner b (token 5) refused"))
                .anyMatch(p -> p.contains("late write of offset 4 by former owner a"));
        assertThat(r.ok()).isFalse();
    }

    @Test
    void aTokenAcceptedOutOfOrderIsCaughtAndAWriteWithoutATokenIsOnlyANote() {
        ChaosLedger l = new ChaosLedger();
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.OPEN, -1, 10, true, 10, 1, 0));
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.WRITE, 1, 10, true, 10, 2, 1));
        l.sinkOp(new SinkOp("g", 0, "a", SinkAction.WRITE, 2, 9, true, 10, 3, 2)); // below what it had accepted
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.zombies().fencingViolations()).isEqualTo(1);
        assertThat(r.problems()).anyMatch(p -> p.contains("WRITE of a with token 9 accepted after token 10"));

        ChaosLedger none = new ChaosLedger();
        none.sink().open("g", 0, "a", 10);
        none.sink().write("g", 0, 1, "a", SinkOp.NO_TOKEN);
        ChaosChecker.Report r2 = checker.check(7, none, Set.of("g"), Map.of());
        assertThat(r2.ok()).as(r2.problems().toString()).isTrue();
        assertThat(r2.notes()).anyMatch(n -> n.contains("no fencing token") && n.endsWith(": 1"));
    }

    // ------------------------------------------------------------------ per-key order (KeyOrderCheck)

    /** One member owning partition 0 from 0 to 10,000; 40 records, keys k0..k3 in turn, each taking 5 ms, 8 at once. */
    private static ChaosLedger keyedRun(List<Processed> records) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 10_000));
        records.forEach(l::processed);
        return l;
    }

    /** A KEY-ordered trace: record o (key o % 4) starts when the previous record of its key is done. */
    private static List<Processed> keyOrderedTrace() {
        java.util.List<Processed> out = new java.util.ArrayList<>();
        for (long o = 0; o < 40; o++) {
            long start = 100 + (o / 4) * 10 + (o % 4); // keys interleave; a key's records 10 ms apart
            out.add(new Processed("g", 0, o, "a", start, start + 5, "k" + (o % 4)));
        }
        return out;
    }

    @Test
    void aKeyOrderedTracePassesAndTheLineSaysKeyOrderViolationsZero() {
        ChaosChecker.Report r = checker.check(7, keyedRun(keyOrderedTrace()), Set.of("g"), Map.of(0, 40L));
        assertThat(r.keyOrderViolations()).isZero();
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.summary()).contains(" lost=0 ").contains(" key-order-violations=0 ");
    }

    @Test
    void theMutationShuffledStartTimesWithinEachKeyAreCaughtAsKeyOrderViolations() {
        // the mutation: the same records, but the start instants of each key's records shuffled among them (as a
        // container that skipped the key lock would run them), each still taking 5 ms
        List<Processed> trace = keyOrderedTrace();
        java.util.Random random = new java.util.Random(46);
        java.util.List<Processed> shuffled = new java.util.ArrayList<>();
        for (int k = 0; k < 4; k++) {
            java.util.List<Processed> lane = new java.util.ArrayList<>();
            for (Processed p : trace) {
                if (p.key().equals("k" + k)) {
                    lane.add(p);
                }
            }
            java.util.List<Long> starts = new java.util.ArrayList<>(
                    lane.stream().map(Processed::atMillis).toList());
            java.util.Collections.shuffle(starts, random);
            for (int i = 0; i < lane.size(); i++) {
                Processed p = lane.get(i);
                shuffled.add(new Processed("g", 0, p.offset(), "a", starts.get(i), starts.get(i) + 5, p.key()));
            }
        }
        ChaosChecker.Report r = checker.check(7, keyedRun(shuffled), Set.of("g"), Map.of(0, 40L));
        assertThat(r.keyOrderViolations()).isPositive();
        assertThat(r.ok()).isFalse();
        assertThat(r.summary()).contains(" key-order-violations=" + r.keyOrderViolations() + " ");
        assertThat(r.problems()).anyMatch(p -> p.startsWith("g/0 key k") && p.contains(" of a: offset "));
    }

    @Test
    void twoRecordsOfAKeyAtOnceAreAViolationEvenInOffsetOrderButTwoKeysAtOnceAreNot() {
        ChaosChecker.Report r = checker.check(
                7,
                keyedRun(List.of(
                        new Processed("g", 0, 0, "a", 100, 110, "k"),
                        new Processed("g", 0, 1, "a", 105, 112, "k"), // k's next began before k's previous ended
                        new Processed("g", 0, 2, "a", 100, 120, "other"))),
                Set.of("g"),
                Map.of(0, 3L));
        assertThat(r.keyOrderViolations()).isEqualTo(1);
        assertThat(r.problems()).anyMatch(p -> p.contains("offset 1 started at 105 before the end of offset 0"));
    }

    @Test
    void aKeyRepeatedAfterAResetOrInAnotherOwnershipIsNotAViolation() {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 1_000));
        l.ownership(new Ownership("g", 0, "b", 1_000, 5_000));
        l.processed(new Processed("g", 0, 4, "a", 900, 905, "k"));
        l.processed(new Processed("g", 0, 2, "b", 1_100, 1_105, "k")); // another ownership: b resumes lower
        l.processed(new Processed("g", 0, 6, "b", 2_000, 2_005, "k"));
        l.reset(new Reset("g", 0, 3, 2_500, 2_400));
        l.processed(new Processed("g", 0, 3, "b", 2_600, 2_605, "k")); // after the reset to 3: excused
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.keyOrderViolations()).isZero();
        assertThat(r.notes()).anyMatch(n -> n.startsWith("key-order pairs after a reset") && n.endsWith(": 1"));

        ChaosLedger noReset = new ChaosLedger();
        l.ownerships().forEach(noReset::ownership);
        l.processed().forEach(noReset::processed);
        assertThat(checker.check(7, noReset, Set.of("g"), Map.of()).keyOrderViolations())
                .isEqualTo(1);
    }

    @Test
    void underUnorderedViolationsAreCountedButDoNotFailTheRun() {
        ChaosLedger l = keyedRun(
                List.of(new Processed("g", 0, 1, "a", 100, 105, "k"), new Processed("g", 0, 0, "a", 101, 106, "k")));
        ChaosChecker.Report r = new ChaosChecker(1_000, 10_000, false).check(7, l, Set.of("g"), Map.of(0, 2L));
        assertThat(r.keyOrderViolations()).isEqualTo(1);
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.summary()).contains(" key-order-violations=1 (not promised) ");
    }

    @Test
    void aResetReplayIsAdoptedAtTheFirstRecordOfItsRangeEvenWhenTheTargetItselfStartsLater() {
        // KEY ordering: after a reset from 10 back to 5, offsets 6 and 5 are in different lanes and 6 starts first
        ChaosLedger l = cleanRun();
        l.reset(new Reset("g", 0, 5, 205, 200, 10));
        l.processed(new Processed("g", 0, 6, "b", 210));
        l.processed(new Processed("g", 0, 5, "b", 211));
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.duplicates()).isZero();
        assertThat(r.ok()).as(r.problems().toString()).isTrue();

        // the old progress finishing 7 for the first time while the reset is written is not the adoption: the replay
        // of 8 and 9 after the real one (6 again) is expected
        ChaosLedger late = new ChaosLedger();
        late.ownership(new Ownership("g", 0, "b", 0, 300));
        for (long o = 0; o < 7; o++) {
            late.processed(new Processed("g", 0, o, "b", 100 + o));
        }
        late.reset(new Reset("g", 0, 5, 205, 200, 10));
        late.processed(new Processed("g", 0, 8, "b", 201)); // old progress, first time (above the range)
        late.processed(new Processed("g", 0, 7, "b", 202)); // old progress, first time, inside the range
        late.processed(new Processed("g", 0, 9, "b", 203));
        late.processed(new Processed("g", 0, 6, "b", 210)); // adopted: a repeat inside [5, 10)
        late.processed(new Processed("g", 0, 8, "b", 211));
        late.processed(new Processed("g", 0, 9, "b", 212));
        late.processed(new Processed("g", 0, 7, "b", 213));
        late.processed(new Processed("g", 0, 5, "b", 214));
        ChaosChecker.Report lateReport = checker.check(7, late, Set.of("g"), Map.of(0, 10L));
        assertThat(lateReport.unexplained())
                .as(lateReport.problems().toString())
                .isZero();

        // a reset to where the node already was (a new partition's 0 -> 0) still sends the owner back
        ChaosLedger same = new ChaosLedger();
        same.ownership(new Ownership("g", 0, "b", 0, 300));
        for (long o = 0; o < 3; o++) {
            same.processed(new Processed("g", 0, o, "b", 100 + o));
        }
        same.reset(new Reset("g", 0, 0, 205, 200, 0));
        for (long o = 0; o < 3; o++) {
            same.processed(new Processed("g", 0, 2 - o, "b", 210 + o)); // replayed, in any lane order
        }
        ChaosChecker.Report sameReport = checker.check(7, same, Set.of("g"), Map.of(0, 3L));
        assertThat(sameReport.unexplained())
                .as(sameReport.problems().toString())
                .isZero();

        // a repeat at or above the target that started before the reset began is not its replay: still a duplicate
        ChaosLedger before = cleanRun();
        before.processed(new Processed("g", 0, 9, "b", 199));
        before.reset(new Reset("g", 0, 5, 205, 200, 8));
        ChaosChecker.Report beforeReport = checker.check(7, before, Set.of("g"), Map.of(0, 10L));
        assertThat(beforeReport.unexplained()).isEqualTo(1);
        assertThat(beforeReport.problems()).anyMatch(p -> p.contains("offset 9 processed again by b at 199"));
    }

    /**
     * KEY ordering: b processed 0..9, the committed low-water was 8 with 9 done above it; a reset from 8 back to 5
     * clears the done set, so b replays 5..9, and 9 (another key) may start before any record of [5, 8).
     */
    @Test
    void aResetReplaysWhatWasDoneAboveTheOldOffsetAndItsFirstRepeatMayBeAboveTheOldOffset() {
        ChaosLedger l = cleanRun(); // b processed 5..9 at 155..159
        l.reset(new Reset("g", 0, 5, 205, 200, 8));
        l.processed(new Processed("g", 0, 9, "b", 210)); // 3 ms before the first repeat inside [5, 8)
        for (long o = 5; o < 9; o++) {
            l.processed(new Processed("g", 0, o, "b", 213 + o));
        }
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.duplicates()).as(r.problems().toString()).isZero();
        assertThat(r.ok()).isTrue();
        assertThat(r.notes()).anyMatch(n -> n.contains("outside [target, old offset) (adopted there): 1"));

        // the same replay, but 9 was repeated once before the reset began: that repeat stays unexplained
        ChaosLedger early = cleanRun();
        early.processed(new Processed("g", 0, 9, "b", 190));
        early.reset(new Reset("g", 0, 5, 205, 200, 8));
        early.processed(new Processed("g", 0, 9, "b", 210));
        for (long o = 5; o < 9; o++) {
            early.processed(new Processed("g", 0, o, "b", 213 + o));
        }
        ChaosChecker.Report er = checker.check(7, early, Set.of("g"), Map.of(0, 10L));
        assertThat(er.unexplained()).isEqualTo(1);
        assertThat(er.problems()).anyMatch(p -> p.contains("offset 9 processed again by b at 190"));
        assertThat(er.ok()).isFalse();

        // and a repeat above the cleared range after the replay, with no reset in between, is a duplicate again
        ChaosLedger again = cleanRun();
        again.reset(new Reset("g", 0, 5, 205, 200, 8));
        again.processed(new Processed("g", 0, 9, "b", 210));
        for (long o = 5; o < 9; o++) {
            again.processed(new Processed("g", 0, o, "b", 213 + o));
        }
        again.processed(new Processed("g", 0, 9, "b", 260));
        ChaosChecker.Report ar = checker.check(7, again, Set.of("g"), Map.of(0, 10L));
        assertThat(ar.unexplained()).isEqualTo(1);
        assertThat(ar.problems()).anyMatch(p -> p.contains("offset 9 processed again by b at 260"));
    }

    /**
     * A new owner replaying its predecessor's records since the last commit while a reset is written has not adopted
     * it: b took over from a (lost, committed 5) and repeats a's 5..9 as the reset 5 -> 3 begins, then finishes 10..12
     * for the first time on its old progress, then adopts: 10 first (another key), then 3..12.
     */
    @Test
    void aNewOwnersReplayOfItsPredecessorDuringAResetIsNotTheAdoption() {
        ChaosChecker wide = new ChaosChecker(10_000);
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 100, End.LOST));
        l.ownership(new Ownership("g", 0, "b", 150, 1_000));
        for (long o = 0; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        l.committed(new CommittedSample("g", 0, 5, 50));
        l.fault(new Fault("expire", "a", 95, false, Set.of("a")));
        l.reset(new Reset("g", 0, 3, 210, 200, 5));
        for (long o = 5; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "b", 196 + o)); // 201..205: a's records since the last commit
        }
        for (long o = 10; o < 13; o++) {
            l.processed(new Processed("g", 0, o, "b", 196 + o)); // 206..208: new records, the old progress
        }
        l.processed(new Processed("g", 0, 10, "b", 215)); // adopted: the first repeat of its own work
        for (long o = 3; o < 13; o++) {
            if (o != 10) {
                l.processed(new Processed("g", 0, o, "b", 213 + o));
            }
        }
        ChaosChecker.Report r = wide.check(7, l, Set.of("g"), Map.of(0, 13L));
        assertThat(r.unexplained()).as(r.problems().toString()).isZero();
        assertThat(r.ok()).isTrue();
    }

    /**
     * a processed 0..4 with 3 committed; its connection went in doubt at 95 with no fault aimed at it (told "revoked"
     * by the container's view, nothing committed), and it claimed the partition again at 200 and resumed at
     * {@code resumeAt}.
     */
    private static ChaosLedger stoppedRun(long resumeAt, boolean reported) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 100, End.REVOKED));
        l.ownership(new Ownership("g", 0, "a", 200, 20_000));
        for (long o = 0; o < 5; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o));
        }
        l.committed(new CommittedSample("g", 0, 3, 50));
        if (reported) {
            l.stopped(new ChaosLedger.Stop("g", "a", 95, 1));
        }
        for (long o = resumeAt; o < 10; o++) {
            l.processed(new Processed("g", 0, o, "a", 210 + o));
        }
        return l;
    }

    @Test
    void aMembersOwnReportOfStoppingWithoutCommitExposesItAsAFaultWould() {
        ChaosChecker wide = new ChaosChecker(10_000);
        ChaosChecker.Report r = wide.check(7, stoppedRun(3, true), Set.of("g"), Map.of(0, 10L));
        assertThat(r.duplicates()).isEqualTo(2); // 3 and 4, processed since the last commit
        assertThat(r.bound()).isEqualTo(2);
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.notes()).anyMatch(n -> n.contains("stopped without commit: 1"));
        assertThat(r.notes())
                .anyMatch(n -> n.contains("bounded by their member's own report of stopping without " + "commit: 1"));

        // without the report, its replays are unexplained (as before)
        assertThat(wide.check(7, stoppedRun(3, false), Set.of("g"), Map.of(0, 10L))
                        .unexplained())
                .isEqualTo(2);

        // the report does not excuse a record older than the last commit
        ChaosChecker.Report below = wide.check(7, stoppedRun(2, true), Set.of("g"), Map.of(0, 10L));
        assertThat(below.unexplained()).isEqualTo(1);
        assertThat(below.problems()).anyMatch(p -> p.contains("offset 2 processed again by a"));
        assertThat(below.ok()).isFalse();
    }

    @Test
    void aMoveBackToAResetsTargetIsMatchedFromTheStartOfTheEarlierSamplesRead() {
        // the reset 10 -> 6 was written in [210, 215]; the sample of 12 was read from 212 and returned at 300 (a slow
        // round trip: answered before the write), the owner adopted 6: matched
        ChaosLedger l = cleanRun(); // committed 10 at 200
        l.committed(new CommittedSample("g", 0, 12, 208));
        l.reset(new Reset("g", 0, 6, 215, 210, 12));
        l.committed(new CommittedSample("g", 0, 13, 300, 212));
        l.committed(new CommittedSample("g", 0, 6, 400));
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of(0, 10L));
        assertThat(r.backwards()).as(r.problems().toString()).isZero();
        assertThat(r.notes()).anyMatch(n -> n.contains("while the earlier sample's read was out: 1"));

        // a read that began after the reset was written, and then a move back: really backwards
        ChaosLedger late = cleanRun();
        late.reset(new Reset("g", 0, 6, 215, 210, 10));
        late.committed(new CommittedSample("g", 0, 13, 300, 270));
        late.committed(new CommittedSample("g", 0, 6, 400));
        assertThat(checker.check(7, late, Set.of("g"), Map.of(0, 10L)).backwards())
                .isEqualTo(1);

        // a move back below the target while the reset is written is not the reset's
        ChaosLedger below = cleanRun();
        below.reset(new Reset("g", 0, 6, 215, 210, 10));
        below.committed(new CommittedSample("g", 0, 13, 300, 212));
        below.committed(new CommittedSample("g", 0, 5, 400));
        assertThat(checker.check(7, below, Set.of("g"), Map.of(0, 10L)).backwards())
                .isEqualTo(1);
    }

    // ------------------------------------------------------------------ per claim: a member that claimed again

    /**
     * Member a claimed partition 0 under token 10 at 0 and processed offsets 0..2 of key k; offset 3 stalled from 100
     * to 900 while a was cut off (a fault at 150); it lost the partition, claimed it again under token 30 at 400,
     * resumed from the committed 2 and processed 2, 3 and 4 at 410..435 — while the old claim's handler of 3 still ran.
     * {@code fourStartsAt}: when the new claim's offset 4 starts (430: after its 3 ended at 425).
     */
    private static ChaosLedger reclaimedRun(long fourStartsAt) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 900, End.LOST, 900, 10));
        l.ownership(new Ownership("g", 0, "a", 400, 2_000, End.REVOKED, 2_000, 30));
        for (long o = 0; o < 3; o++) {
            l.processed(new Processed("g", 0, o, "a", 10 + o * 10, 15 + o * 10, "k", 10));
        }
        l.committed(new CommittedSample("g", 0, 2, 50));
        l.fault(new Fault("expire", "a", 150, false, Set.of("a")));
        l.processed(new Processed("g", 0, 2, "a", 410, 415, "k", 30));
        l.processed(new Processed("g", 0, 3, "a", 420, 425, "k", 30));
        l.processed(new Processed("g", 0, 4, "a", fourStartsAt, fourStartsAt + 5, "k", 30));
        l.processed(new Processed("g", 0, 3, "a", 100, 900, "k", 10)); // the old claim's handler, done last
        return l;
    }

    @Test
    void twoClaimsOfOneMemberInterleavedAreJudgedApartByTheirTokens() {
        ChaosChecker.Report r = new ChaosChecker(10_000).check(7, reclaimedRun(430), Set.of("g"), Map.of(0, 5L));
        assertThat(r.keyOrderViolations()).as(r.problems().toString()).isZero();
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.notes())
                .contains("records whose handler still ran when their member claimed the partition "
                        + "again (judged under their own claim): 1");

        // records whose claim is not known are judged as before: all of a's records inside one interval
        ChaosLedger unknown = new ChaosLedger();
        reclaimedRun(430).ownerships().forEach(unknown::ownership);
        reclaimedRun(430)
                .processed()
                .forEach(p -> unknown.processed(new Processed(
                        p.group(), p.partition(), p.offset(), p.member(), p.atMillis(), p.doneMillis(), p.key())));
        assertThat(checker.check(7, unknown, Set.of("g"), Map.of(0, 5L)).keyOrderViolations())
                .isEqualTo(1);
    }

    @Test
    void withinOneClaimAKeyOutOfOrderIsStillCaught() {
        // the new claim's 4 starts at 422, before its 3 ended at 425
        ChaosChecker.Report r = new ChaosChecker(10_000).check(7, reclaimedRun(422), Set.of("g"), Map.of(0, 5L));
        assertThat(r.keyOrderViolations()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
        assertThat(r.problems())
                .anyMatch(p -> p.contains(
                        "offset 4 started at 422 before the end of offset 3 " + "[420, 425] under token 30"));
    }

    @Test
    void aWriteOfAnOldClaimAfterItsMemberClaimedAgainIsLateAndMustBeRefused() {
        ChaosLedger l = new ChaosLedger();
        l.sink().open("g", 0, "a", 10);
        l.sink().write("g", 0, 2, "a", 10);
        l.sink().open("g", 0, "b", 20); // b took over while a was cut off
        l.sink().write("g", 0, 2, "b", 20);
        l.sink().open("g", 0, "a", 30); // a claimed it again
        l.sink().write("g", 0, 3, "a", 30);
        assertThat(l.sink().write("g", 0, 3, "a", 10)).isFalse(); // the old claim's stalled handler
        l.sink().write("g", 0, 4, "a", 30);
        ChaosChecker.Report r = checker.check(7, l, Set.of("g"), Map.of());
        assertThat(r.zombies().fencingViolations()).as(r.problems().toString()).isZero();
        assertThat(r.zombies().writes()).isEqualTo(1);
        assertThat(r.zombies().writesRefused()).isEqualTo(1);
        assertThat(r.ok()).as(r.problems().toString()).isTrue();

        // the same with nobody in between (a lost it and claimed it again itself)
        ChaosLedger alone = new ChaosLedger();
        alone.sink().open("g", 0, "a", 10);
        alone.sink().open("g", 0, "a", 30);
        alone.sink().write("g", 0, 3, "a", 10);
        ChaosChecker.Report r2 = checker.check(7, alone, Set.of("g"), Map.of());
        assertThat(r2.zombies().fencingViolations())
                .as(r2.problems().toString())
                .isZero();
        assertThat(r2.zombies().writesRefused()).isEqualTo(1);

        // the mutation: a sink that ignored the token took the old claim's write
        ChaosLedger ignored = new ChaosLedger();
        ignored.sinkOp(new SinkOp("g", 0, "a", SinkAction.OPEN, -1, 10, true, 10, 1, 0));
        ignored.sinkOp(new SinkOp("g", 0, "a", SinkAction.OPEN, -1, 30, true, 30, 2, 10));
        ignored.sinkOp(new SinkOp("g", 0, "a", SinkAction.WRITE, 3, 10, true, 30, 3, 20));
        ChaosChecker.Report r3 = checker.check(7, ignored, Set.of("g"), Map.of());
        assertThat(r3.zombies().fencingViolations()).isEqualTo(1);
        assertThat(r3.problems())
                .anyMatch(p -> p.contains("late write of offset 3 by former owner a (token 10) "
                        + "accepted after another claim opened it"));
        assertThat(r3.ok()).isFalse();
    }

    /**
     * a's old claim (10) processed 0..3, but its write of 3 came after a claimed the partition again (30): refused.
     * {@code redone}: the new claim processes 3 again before 4 (the container drops the old claim's completion);
     * otherwise (the mutation) it took the old one's completion of 3 as done and went on at 4.
     */
    private static ChaosLedger oldClaimsCompletionRun(boolean redone) {
        ChaosLedger l = new ChaosLedger();
        l.ownership(new Ownership("g", 0, "a", 0, 900, End.LOST, 900, 10));
        l.ownership(new Ownership("g", 0, "a", 400, 2_000, End.REVOKED, 2_000, 30));
        l.fault(new Fault("expire", "a", 150, false, Set.of("a")));
        l.sink().open("g", 0, "a", 10);
        for (long o = 0; o < 3; o++) {
            l.sink().write("g", 0, o, "a", 10);
            l.processed(new Processed("g", 0, o, "a", 10 + o * 10, 15 + o * 10, "k", 10));
        }
        l.committed(new CommittedSample("g", 0, 3, 50));
        l.sink().open("g", 0, "a", 30);
        if (redone) {
            l.sink().write("g", 0, 3, "a", 30);
            l.processed(new Processed("g", 0, 3, "a", 405, 408, "k", 30));
        }
        l.sink().write("g", 0, 4, "a", 30);
        l.processed(new Processed("g", 0, 4, "a", 410, 415, "k", 30));
        l.sink().write("g", 0, 3, "a", 10);
        l.processed(new Processed("g", 0, 3, "a", 100, 900, "k", 10));
        return l;
    }

    @Test
    void anOffsetWhoseOnlyWriteWasAnOldClaimsRefusedOneIsUnwrittenThoughProcessed() {
        ChaosChecker.Report r =
                new ChaosChecker(10_000).check(7, oldClaimsCompletionRun(false), Set.of("g"), Map.of(0, 5L));
        assertThat(r.lost()).isZero(); // every offset was processed: lost cannot see it
        assertThat(r.unwritten()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
        assertThat(r.summary()).endsWith(" zombie-writes-refused=1/1 unwritten=1");
        assertThat(r.problems())
                .anyMatch(p -> p.equals("group g partition 0: 1 records never written to the sink "
                        + "under a valid token, first at offset 3"));

        ChaosChecker.Report redone =
                new ChaosChecker(10_000).check(7, oldClaimsCompletionRun(true), Set.of("g"), Map.of(0, 5L));
        assertThat(redone.unwritten()).isZero();
        assertThat(redone.ok()).as(redone.problems().toString()).isTrue();
        assertThat(redone.summary()).endsWith(" zombie-writes-refused=1/1");
    }
}

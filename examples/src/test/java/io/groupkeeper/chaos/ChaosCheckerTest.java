package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosLedger.CommittedSample;
import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.Reset;
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
        assertThat(r.summary()).isEqualTo("chaos seed=7 faults=0 records=10 lost=0 overlaps=0 duplicates=0 (bound 0)");
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
        assertThat(r.problems()).anyMatch(p -> p.contains("owned by b")).anyMatch(p -> p.contains("outside its ownership"));
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
        assertThat(checker.check(7, reset, Set.of("g"), Map.of(0, 10L)).duplicates()).isZero();
    }

    @Test
    void aCommittedOffsetMovingBackIsCaughtUnlessAResetDidIt() {
        ChaosLedger l = cleanRun();
        l.committed(new CommittedSample("g", 0, 8, 250));
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).backwards()).isEqualTo(1);
        l.reset(new Reset("g", 0, 8, 240));
        assertThat(checker.check(7, l, Set.of("g"), Map.of(0, 10L)).backwards()).isZero();
    }
}

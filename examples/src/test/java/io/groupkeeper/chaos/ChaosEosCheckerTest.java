package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The transactional chaos run's checker, without servers: it passes a perfect output and fails each defect. */
class ChaosEosCheckerTest {

    private static final Map<Integer, Long> ENDS = Map.of(0, 3L, 1, 2L);

    private static List<String> perfect() {
        List<String> out = new ArrayList<>();
        ENDS.forEach((p, end) -> {
            for (long o = 0; o < end; o++) {
                out.add(ChaosEosChecker.value("chaos", p, o));
            }
        });
        return out;
    }

    private static ChaosEosChecker.Report check(List<String> a, List<String> b) {
        return ChaosEosChecker.check(7, 3, "chaos", ENDS, Map.of("chaos-a", a, "chaos-b", b));
    }

    @Test
    void everyInputOnceInEveryGroupsOutputPasses() {
        List<String> shuffled = new ArrayList<>(perfect());
        java.util.Collections.reverse(shuffled);
        ChaosEosChecker.Report r = check(perfect(), shuffled);
        assertThat(r.ok()).as(r.problems().toString()).isTrue();
        assertThat(r.inputs()).isEqualTo(10); // 5 offsets, two groups
        assertThat(r.summary()).isEqualTo("chaos-eos seed=7 faults=3 inputs=10 lost=0 duplicates=0");
    }

    @Test
    void aLostRecordFails() {
        List<String> b = perfect();
        b.remove(ChaosEosChecker.value("chaos", 1, 1)); // the last of partition 1, in one group only
        ChaosEosChecker.Report r = check(perfect(), b);
        assertThat(r.ok()).isFalse();
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.duplicates()).isZero();
        assertThat(r.problems()).containsExactly("chaos-b: input 1/1 is not in the output");
        assertThat(r.summary()).contains("lost=1 duplicates=0");
    }

    @Test
    void aDuplicatedRecordFails() {
        List<String> a = perfect();
        a.add(ChaosEosChecker.value("chaos", 0, 0));
        a.add(ChaosEosChecker.value("chaos", 0, 0));
        ChaosEosChecker.Report r = check(a, perfect());
        assertThat(r.ok()).isFalse();
        assertThat(r.duplicates()).isEqualTo(2);
        assertThat(r.lost()).isZero();
        assertThat(r.problems()).containsExactly("chaos-a: input 0/0 is in the output 3 times");
    }

    @Test
    void outputsBeyondTheLogEndOrUnreadableFail() {
        List<String> a = perfect();
        a.add(ChaosEosChecker.value("chaos", 1, 2)); // partition 1 ends at 2
        a.add("garbage");
        a.add(ChaosEosChecker.value("other", 0, 0));
        ChaosEosChecker.Report r = check(a, perfect());
        assertThat(r.ok()).isFalse();
        assertThat(r.foreign()).isEqualTo(3);
        assertThat(r.lost()).isZero();
        assertThat(r.duplicates()).isZero();
    }
}

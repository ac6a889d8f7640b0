package io.groupkeeper.benchmarks.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WarmUpTest {

    private static final double BUSY = ScenarioRunner.WarmUp.QUIET_JIT_SHARE * 4;
    private static final double QUIET = ScenarioRunner.WarmUp.QUIET_JIT_SHARE / 2;

    @Test
    void measuringBeginsAfterTheMinimumOnceTheLastRepetitionsWereQuiet() {
        ScenarioRunner.WarmUp w = new ScenarioRunner.WarmUp(2, 50);
        w.dropped(QUIET);
        assertThat(w.over()).as("below the minimum").isFalse();
        w.dropped(BUSY);
        assertThat(w.over()).as("the last one was busy").isFalse();
        for (int i = 1; i < ScenarioRunner.WarmUp.QUIET_REPS; i++) {
            w.dropped(QUIET);
            assertThat(w.over()).as("only %d quiet in a row", i).isFalse();
        }
        w.dropped(QUIET);
        assertThat(w.over()).isTrue();
        assertThat(w.endedBy()).isEqualTo("jit-quiet");
        assertThat(w.done()).isEqualTo(2 + ScenarioRunner.WarmUp.QUIET_REPS);
    }

    @Test
    void aBusyRepetitionStartsTheQuietCountAgain() {
        ScenarioRunner.WarmUp w = new ScenarioRunner.WarmUp(0, 50);
        w.dropped(QUIET);
        w.dropped(QUIET);
        w.dropped(BUSY);
        w.dropped(QUIET);
        assertThat(w.over()).isFalse();
    }

    @Test
    void theCapEndsTheWarmUpWhileTheCompilerIsStillBusy() {
        ScenarioRunner.WarmUp w = new ScenarioRunner.WarmUp(1, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(w.over()).isFalse();
            w.dropped(BUSY);
        }
        assertThat(w.over()).isTrue();
        assertThat(w.endedBy()).isEqualTo("cap");
    }

    @Test
    void noMinimumMeansNoWarmUpAndAJvmThatDoesNotSayCountsAsQuiet() {
        assertThat(new ScenarioRunner.WarmUp(0, 100).over()).isTrue();
        ScenarioRunner.WarmUp w = new ScenarioRunner.WarmUp(1, 100);
        w.dropped(Double.NaN);
        assertThat(w.over()).isTrue();
    }

    @Test
    void aCapBelowTheMinimumIsRaisedToIt() {
        ScenarioRunner.WarmUp w = new ScenarioRunner.WarmUp(2, 0);
        w.dropped(BUSY);
        assertThat(w.over()).isFalse();
        w.dropped(BUSY);
        assertThat(w.over()).isTrue();
    }
}

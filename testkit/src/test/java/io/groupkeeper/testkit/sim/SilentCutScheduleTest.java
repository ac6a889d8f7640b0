package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Schedules with silent cuts, whose requests hang on threads of their own ({@link SimThreads}) while the rest of the
 * world runs on, are still a pure function of their seed: the baton leaves no choice to the operating system.
 */
class SilentCutScheduleTest {

    @Test
    void aScheduleWithHangingRequestsIsAPureFunctionOfItsSeed() {
        long seed = 0;
        Simulation.Result first = null;
        for (long s = 1; s <= 60 && first == null; s++) {
            Simulation sim = simulation(s);
            Simulation.Result r = sim.run();
            if (sim.hangs() > 0) {
                seed = s;
                first = r;
            }
        }
        assertThat(first)
                .as("a schedule among the first 60 in which a request hung")
                .isNotNull();

        Simulation again = simulation(seed);
        Simulation.Result second = again.run();

        assertThat(again.hangs()).isPositive();
        assertThat(second.steps()).isEqualTo(first.steps());
        assertThat(second.hash()).as("seed " + seed).isEqualTo(first.hash());
        assertThat(second.violations()).isEqualTo(first.violations()).isEmpty();
    }

    private static Simulation simulation(long seed) {
        List<Fault> plan = FaultPlan.generate(
                seed,
                SimulationTest.FAULTS,
                Simulation.RUN_MS,
                Simulation.SESSION_TIMEOUT.toMillis(),
                FaultPlan.extraKinds());
        return new Simulation(seed, plan).silentCuts(true);
    }
}

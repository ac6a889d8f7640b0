package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The seeded run loop of the simulations' tests, on made-up schedules whose outcome depends only on their plan. */
class SeededSchedulesTest {

    /** A schedule that fails while its plan holds both a CRASH and an EXPIRE. */
    record Made(long seed, List<Fault> plan) implements ScheduleOutcome {
        @Override
        public long steps() {
            return plan.size();
        }

        @Override
        public List<String> violations() {
            boolean crash = plan.stream().anyMatch(f -> f.kind() == Fault.Kind.CRASH);
            boolean expire = plan.stream().anyMatch(f -> f.kind() == Fault.Kind.EXPIRE);
            return crash && expire ? List.of("crash and expire") : List.of();
        }

        @Override
        public String tail() {
            return "plan " + plan;
        }
    }

    private static List<Fault> plan(Fault.Kind... kinds) {
        List<Fault> plan = new ArrayList<>();
        for (int i = 0; i < kinds.length; i++) {
            plan.add(new Fault(kinds[i], 100L * i, 0, 0, 0, 0));
        }
        return plan;
    }

    @Test
    void shrinkKeepsOnlyTheFaultsTheFailureNeeds() {
        Made failing = new Made(
                7, plan(Fault.Kind.JOIN, Fault.Kind.CRASH, Fault.Kind.LEAVE, Fault.Kind.EXPIRE, Fault.Kind.GROW));

        Made shortest = SeededSchedules.shrink(failing, p -> new Made(7, p));

        assertThat(shortest.plan()).extracting(Fault::kind).containsExactly(Fault.Kind.CRASH, Fault.Kind.EXPIRE);
    }

    @Test
    void aFailingSeedFailsTheRunWithItsReplayAndItsShortestPlan() {
        SeededSchedules<Made> runs = new SeededSchedules<>("seededSchedulesTest", "made simulation", "mode");
        Function<Made, Function<List<Fault>, Made>> replay = r -> p -> new Made(r.seed(), p);

        assertThatThrownBy(() -> runs.run(
                        3,
                        seed -> new Made(
                                seed,
                                seed == 2
                                        ? plan(Fault.Kind.CRASH, Fault.Kind.JOIN, Fault.Kind.EXPIRE)
                                        : plan(Fault.Kind.JOIN)),
                        replay))
                .hasMessageContaining("made simulation (mode) seed 2: replay with -Dgroupkeeper.seededSchedulesTest"
                        + ".seed=2 -Dgroupkeeper.seededSchedulesTest.schedules=1")
                .hasMessageContaining("shortest failing plan (2 of 3 faults)");
    }

    @Test
    void passingSeedsSumTheirCountersInOrder() {
        SeededSchedules<Made> runs = new SeededSchedules<Made>("seededSchedulesTest", "made simulation", "mode")
                .count("faults", r -> r.plan().size())
                .count("seeds", r -> 1);

        assertThat(runs.run(4, seed -> new Made(seed, plan(Fault.Kind.JOIN, Fault.Kind.GROW)), r -> p -> r))
                .containsExactly(java.util.Map.entry("faults", 8L), java.util.Map.entry("seeds", 4L));
    }
}

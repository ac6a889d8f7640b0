package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosSchedule.Kind;
import io.groupkeeper.chaos.ChaosSchedule.Settings;
import io.groupkeeper.chaos.ChaosSchedule.Step;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The schedule is a pure function of the seed, covers every kind, and keeps the separations it promises. */
class ChaosScheduleTest {

    private static Settings settings(int faults) {
        return new Settings(
                faults,
                5_000,
                new int[] {6, 3},
                new int[] {4, 2},
                new int[] {8, 4},
                12,
                24,
                800,
                1_600,
                Kind.allFaults());
    }

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnotherOne() {
        assertThat(ChaosSchedule.generate(42, settings(250))).isEqualTo(ChaosSchedule.generate(42, settings(250)));
        assertThat(ChaosSchedule.describe(42, ChaosSchedule.generate(42, settings(25))))
                .isEqualTo(ChaosSchedule.describe(42, ChaosSchedule.generate(42, settings(25))))
                .startsWith("chaos schedule seed=42 faults=25 ");
        assertThat(ChaosSchedule.generate(43, settings(25))).isNotEqualTo(ChaosSchedule.generate(42, settings(25)));
    }

    @Test
    void everyKindOfFaultOccursEvenInAShortSchedule() {
        for (long seed = 0; seed < 200; seed++) {
            List<Step> steps = ChaosSchedule.generate(seed, settings(20));
            assertThat(ChaosSchedule.faults(steps)).isEqualTo(20);
            assertThat(steps.stream().map(Step::kind).filter(k -> k.fault).collect(Collectors.toSet()))
                    .as("seed %d", seed)
                    .isEqualTo(Kind.allFaults());
        }
    }

    @Test
    void theTransactionalRunsKindsRestartKafkaNeverResetAndLeaveThePlainRunsSchedulesAsTheyWere() {
        Settings eos = new Settings(
                20,
                5_000,
                new int[] {6, 3},
                new int[] {4, 2},
                new int[] {8, 4},
                12,
                24,
                800,
                1_400,
                ChaosEosIT.kinds());
        for (long seed = 0; seed < 100; seed++) {
            List<Step> steps = ChaosSchedule.generate(seed, eos);
            assertThat(steps.stream().map(Step::kind).filter(k -> k.fault).collect(Collectors.toSet()))
                    .as("seed %d", seed)
                    .isEqualTo(ChaosEosIT.kinds())
                    .contains(Kind.KAFKA_RESTART)
                    .doesNotContain(Kind.RESET);
            assertThat(steps.stream().filter(st -> st.kind() == Kind.KAFKA_RESTART))
                    .allSatisfy(st -> assertThat(st.durationMillis()).isBetween(500L, 3_000L));
        }
        assertThat(Kind.allFaults()).doesNotContain(Kind.KAFKA_RESTART);
    }

    @Test
    void sizesPartitionsServersAndStallWindowsStayWithinTheirBounds() {
        for (long seed = 0; seed < 200; seed++) {
            Settings s = settings(250);
            int[] size = s.initialSizes().clone();
            int partitions = s.partitions();
            boolean zkDown = false;
            long t = 0;
            long stallEnd = Long.MIN_VALUE;
            long lastConnection = Long.MIN_VALUE / 4;
            for (Step st : ChaosSchedule.generate(seed, s)) {
                t += st.gapMillis();
                switch (st.kind()) {
                    case LEAVE, CRASH, LEADER_KILL -> size[st.group()]--;
                    case JOIN -> size[st.group()]++;
                    case ADD_PARTITIONS -> partitions += st.amount();
                    case ZK_KILL -> {
                        assertThat(zkDown)
                                .as("seed %d: one server down at a time", seed)
                                .isFalse();
                        zkDown = true;
                    }
                    case ZK_RESTART -> zkDown = false;
                    case STALL -> {
                        assertThat(st.durationMillis()).isGreaterThan(s.sessionTimeout());
                        assertThat(t - lastConnection).isGreaterThan(s.sessionTimeout() + 2_000);
                        assertThat(t)
                                .as("seed %d: no stall during another", seed)
                                .isGreaterThan(stallEnd);
                        assertThat(zkDown).isFalse();
                        stallEnd = t + st.durationMillis() + 2_000;
                    }
                    case ZOMBIE -> {
                        // a cut-off past the session timeout and the server's tick, and a stall that outlasts it
                        assertThat(st.durationMillis()).isGreaterThan(s.sessionTimeout() + 2_000);
                        assertThat(st.amount()).isPositive();
                        assertThat(t - lastConnection)
                                .as("seed %d: the zombie starts with a healthy session", seed)
                                .isGreaterThan(s.sessionTimeout() + 2_000);
                        assertThat(t)
                                .as("seed %d: no zombie during a stall", seed)
                                .isGreaterThan(stallEnd);
                        assertThat(zkDown).isFalse();
                        lastConnection = t + st.durationMillis();
                        stallEnd = t + st.durationMillis() + 2_000; // until 2 s after the heal
                    }
                    default -> {}
                }
                if (st.kind() == Kind.EXPIRE || st.kind() == Kind.ZK_KILL) {
                    assertThat(t)
                            .as("seed %d: no session or connection fault during a stall", seed)
                            .isGreaterThan(stallEnd);
                    lastConnection = t + st.durationMillis(); // a cut-off lasts; a server kill is an instant
                }
                if (st.kind() == Kind.EXPIRE) {
                    assertThat(st.durationMillis())
                            .as("cut off past the session timeout and the server's tick")
                            .isGreaterThan(s.sessionTimeout() + 2_000);
                }
                for (int g = 0; g < size.length; g++) {
                    assertThat(size[g]).as("seed %d group %d", seed, g).isBetween(s.minSizes()[g], s.maxSizes()[g]);
                }
                assertThat(partitions).isLessThanOrEqualTo(s.maxPartitions());
            }
            assertThat(zkDown)
                    .as("seed %d: every server is back at the end", seed)
                    .isFalse();
        }
    }

    @Test
    void onlyTheEnabledKindsAreInjected() {
        Set<Kind> kinds = EnumSet.of(Kind.LEAVE, Kind.CRASH, Kind.RESET);
        Settings s = new Settings(30, 5_000, new int[] {4}, new int[] {3}, new int[] {5}, 12, 12, 500, 500, kinds);
        assertThat(ChaosSchedule.generate(5, s))
                .allMatch(st -> !st.kind().fault || kinds.contains(st.kind()))
                .allMatch(st -> st.group() == 0);
    }

    @Test
    void aServerKillExposesEveryoneWhenItLedOrTheOthersAreNoQuorumWithoutIt() {
        assertThat(ChaosRun.everyoneExposed("follower", List.of("leader", "follower")))
                .isFalse();
        assertThat(ChaosRun.everyoneExposed("leader", List.of("follower", "follower")))
                .isTrue();
        // one of the others restarted a moment ago and is not serving yet ("?": no answer, or looking)
        assertThat(ChaosRun.everyoneExposed("follower", List.of("leader", "?"))).isTrue();
        assertThat(ChaosRun.everyoneExposed("follower", List.of("?", "?"))).isTrue();
    }
}

package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosSchedule.Kind;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The chaos run with every consumer a separate JVM — the examples' {@code consume} command with {@code --events} —
 * killed with {@code SIGKILL} ({@code kill -9}, the OOM killer: no shutdown hook, no final commit, the session times
 * out on the server) and stopped with {@code SIGTERM} (graceful). Also ZooKeeper server kills, leader kills (SIGKILL
 * of the elected leader's process), live resets and partition increases. Session expiry and stalls need the member
 * in the test's JVM and are covered by {@link ChaosIT}.
 *
 * <pre>
 * mvn -pl examples -am test -Plong -Dsurefire.failIfNoSpecifiedTests=false -Dtest=ChaosProcessIT [-Dchaos.seed=S] [-Dchaos.process.faults=N]
 * </pre>
 */
@Tag("long")
class ChaosProcessIT {

    @Test
    void consumersAsSeparateProcessesKilledWithSigkill() throws Exception {
        long seed = ChaosIT.seed();
        int faults = Integer.getInteger("chaos.process.faults", 14);
        EnumSet<Kind> kinds =
                EnumSet.of(Kind.LEAVE, Kind.CRASH, Kind.LEADER_KILL, Kind.ZK_KILL, Kind.RESET, Kind.ADD_PARTITIONS);
        Path logs = Path.of("target", "chaos-processes", "seed-" + seed);
        try (ChaosRun run = new ChaosRun(
                seed,
                ChaosRun.settings(faults, kinds, new int[] {4, 2}, new int[] {3, 1}, new int[] {5, 3}, 2_000, 2_000),
                System.out)) {
            ChaosChecker.Report report = run.run((r, group, label) -> ConsumerProcess.start(r, group, label, logs));
            assertThat(report.faults()).isEqualTo(faults);
            assertThat(report.ok())
                    .as(
                            "%s (replay with -Dchaos.seed=%d)\n%s",
                            report.summary(), seed, String.join("\n", report.problems()))
                    .isTrue();
        }
    }
}

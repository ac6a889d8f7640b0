package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosSchedule.Kind;
import io.groupkeeper.kafka.container.Ordering;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection run over real Kafka records and a 3-node ZooKeeper ensemble, consumers in this JVM (each with
 * its own ZooKeeper session): two groups (6 members wandering between 4 and 8, and 3 between 2 and 4) on a topic of
 * 12 partitions growing up to 24; graceful leaves, crashes (session closed, or left to time out), session expiries,
 * stalls past the session timeout, zombie batches (a stall and a cut-off at once: measured, outside the promise),
 * kills and restarts of the ZooKeeper server a member is on, leader kills, live offset resets and partition increases,
 * in a seeded order; every member writes what it processes to a fenced sink with its fencing token. See
 * docs/reliability.md.
 *
 * <pre>
 * mvn -pl examples -am test -Dsurefire.failIfNoSpecifiedTests=false -Dtest=ChaosIT#shortRun [-Dchaos.seed=S]
 * mvn -pl examples -am test -Plong -Dsurefire.failIfNoSpecifiedTests=false -Dtest=ChaosIT#longRun [-Dchaos.seed=S] [-Dchaos.faults=250]
 * mvn -pl examples -am test -Plong -Dsurefire.failIfNoSpecifiedTests=false -Dtest=ChaosIT#keyOrderedContainers [-Dchaos.faults=200]
 * </pre>
 * {@code -Dchaos.ordering=KEY|PARTITION|UNORDERED} runs the members of any of these as listener containers in that
 * ordering ({@link ChaosContainerMember}; {@code -Dchaos.parallelism=N}, default 8, and {@code -Dchaos.handler.ms=MS},
 * each record's handler taking a random 0 to MS ms, default 5); without it they are the plain consumer loop
 * ({@link ChaosMember}). Either way the checker counts per-key order violations within one claim
 * ({@code key-order-violations=}); they fail the run unless the ordering is {@code UNORDERED}.
 * The seed is printed with the schedule; the same seed replays the same schedule.
 */
class ChaosIT {

    static long seed() {
        String s = System.getProperty("chaos.seed");
        return s == null || s.isBlank()
                ? java.util.concurrent.ThreadLocalRandom.current().nextLong(1_000_000)
                : Long.parseLong(s.trim());
    }

    private static void run(int faults, long minGap, long gapSpread) throws Exception {
        run(faults, minGap, gapSpread, ChaosContainerMember.Mode.fromSystemProperties());
    }

    /** {@code mode} empty: the members are the plain consumer loop ({@link ChaosMember}); else containers. */
    private static void run(int faults, long minGap, long gapSpread, Optional<ChaosContainerMember.Mode> mode)
            throws Exception {
        long seed = seed();
        try (ChaosRun run = new ChaosRun(
                seed,
                ChaosRun.settings(
                        faults,
                        Kind.allFaults(),
                        new int[] {6, 3},
                        new int[] {4, 2},
                        new int[] {8, 4},
                        minGap,
                        gapSpread),
                System.out)) {
            System.out.println("members: "
                    + mode.map(m -> "listener containers, " + m)
                            .orElse("the plain consumer loop (CoordinatedConsumer)"));
            run.keyOrderPromised(
                    mode.map(m -> m.ordering() != Ordering.UNORDERED).orElse(true));
            ChaosChecker.Report report = run.run((r, group, name) -> mode.isPresent()
                    ? ChaosContainerMember.start(group, name, r.memberConfig(), mode.get(), r.ledger())
                    : ChaosMember.start(group, name, r.memberConfig(), r.ledger()));
            assertThat(report.faults()).isEqualTo(faults);
            assertThat(report.ok())
                    .as(
                            "%s (replay with -Dchaos.seed=%d)\n%s",
                            report.summary(), seed, String.join("\n", report.problems()))
                    .isTrue();
        }
    }

    /** 20 faults (every kind occurs: ChaosScheduleTest) in about 45 s: part of the default test run. */
    @Test
    void shortRun() throws Exception {
        run(Integer.getInteger("chaos.short.faults", 20), 800, 1_400);
    }

    /** ≥ 200 faults (default 250, {@code -Dchaos.faults=N}). */
    @Test
    @Tag("long")
    void longRun() throws Exception {
        run(Integer.getInteger("chaos.faults", 250), 800, 1_400);
    }

    /**
     * The members as listener containers in the {@code KEY} ordering (unless {@code -Dchaos.ordering} says another),
     * 8 workers each, handlers of 0–5 ms completing out of order: the line carries {@code key-order-violations=0}.
     * {@code -Dchaos.faults=N} (default 200).
     */
    @Test
    @Tag("long")
    void keyOrderedContainers() throws Exception {
        run(
                Integer.getInteger("chaos.faults", 200),
                800,
                1_400,
                Optional.of(ChaosContainerMember.Mode.fromSystemProperties()
                        .orElse(new ChaosContainerMember.Mode(Ordering.KEY, 8, 5))));
    }
}

package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.chaos.ChaosSchedule.Kind;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The chaos run in the transactional mode (docs/exactly-once.md): the members of both groups run the
 * {@code transform} command's logic — read the input, send one output per record into the input partition's
 * transaction ({@code CoordinatedConsumer.transactional}) — under the chaos run's faults (graceful leaves; crashes with
 * the Kafka side killed, open transactions left to the next owner; session expiries by network cut-off; stalls past
 * the session timeout with transactions open; zombie batches, a stall and a cut-off at once; ZooKeeper server kills;
 * leader kills; partition increases) plus restarts of the Kafka broker, the transaction coordinator, on its log
 * directory and port. Live offset resets are left out: an operator's rewind is an order to process again (the
 * transactional mode adopts it, and the rewound records are in the output twice, by request).
 *
 * <p>In the end each group's output topic is read with {@code isolation.level=read_committed}: every input offset
 * below its log end must be there exactly once. The last line printed is
 * {@code chaos-eos seed=<s> faults=<n> inputs=<n> lost=0 duplicates=0} ({@code inputs}: input records times groups).
 *
 * <pre>
 * mvn -pl examples -am verify -Plong -Dsurefire.failIfNoSpecifiedTests=false -Dtest=ChaosEosIT [-Dchaos.faults=200] [-Dchaos.seed=S]
 * </pre>
 * No default-build variant: the default build is over its time budget; {@link ChaosEosCheckerTest} runs there.
 */
class ChaosEosIT {

    /** The kinds of this run: the chaos run's, without live resets, with Kafka restarts. */
    static Set<Kind> kinds() {
        Set<Kind> kinds = EnumSet.copyOf(Kind.allFaults());
        kinds.remove(Kind.RESET);
        kinds.add(Kind.KAFKA_RESTART);
        return kinds;
    }

    @Test
    @Tag("long")
    void everyInputIsInTheOutputExactlyOnceThroughChaosAndKafkaRestarts() throws Exception {
        long seed = ChaosIT.seed();
        int faults = Integer.getInteger("chaos.faults", 200);
        try (ChaosRun run = new ChaosRun(
                seed,
                ChaosRun.settings(faults, kinds(), new int[] {6, 3}, new int[] {4, 2}, new int[] {8, 4}, 800, 1_400),
                System.out,
                true)) {
            ChaosEosChecker.Report report = run.runExactlyOnce(
                    (r, group, name) -> ChaosMember.start(group, name, r.memberConfig(), r.ledger()));
            assertThat(report.faults()).isEqualTo(faults);
            assertThat(report.ok())
                    .as(
                            "%s (replay with -Dchaos.seed=%d)\n%s",
                            report.summary(), seed, String.join("\n", report.problems()))
                    .isTrue();
            assertThat(report.inputs()).isPositive();
        }
    }
}

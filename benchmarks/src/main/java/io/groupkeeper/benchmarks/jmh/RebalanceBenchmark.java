package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.benchmarks.rebalance.GroupKeeperKafkaSubject;
import io.groupkeeper.benchmarks.rebalance.GroupKeeperZkSubject;
import io.groupkeeper.benchmarks.rebalance.KafkaNativeSubject;
import io.groupkeeper.benchmarks.rebalance.KafkaSetting;
import io.groupkeeper.benchmarks.rebalance.Probe;
import io.groupkeeper.benchmarks.rebalance.RebalanceSubject;
import io.groupkeeper.benchmarks.rebalance.RebalanceSubject.SubjectMember;
import io.groupkeeper.benchmarks.rebalance.RecordProducer;
import io.groupkeeper.benchmarks.support.HostCpu;
import io.groupkeeper.benchmarks.support.ZkRoundTrip;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rebalance latency in JMH (issue 19 item 5): one rebalance per invocation ({@link Mode#SingleShotTime}), with the
 * side-by-side harness's subjects and {@link Probe}. The benchmark method makes the event and returns when the group
 * is balanced and every moved partition has delivered a record (for subjects that consume records) — the
 * side-by-side's "done", without its guard period; the invocation teardown then waits the guard and fails the run if
 * the group changed after the method returned. Everything between events (a joiner leaving again, a replacement
 * joining, the settling) happens in invocation-level setup and teardown, untimed.
 *
 * <ul>
 *   <li>{@code join}: member {@code members + 1} joins (the side-by-side's scale-out, event: the member is created);</li>
 *   <li>{@code leave}: that member leaves gracefully;</li>
 *   <li>{@code crash}: that member crashes (process frozen, sockets open); the figure runs <b>from the crash</b> and
 *   so includes the session timeout ({@code sessionTimeoutMs}) and the system's detection. The side-by-side's crash
 *   figure starts at the detection instead, which a method's wall time cannot.</li>
 * </ul>
 * Subjects: {@code zookeeper} (groupkeeper's ZooKeeper part alone), {@code groupkeeper-kafka} (groupkeeper over
 * Kafka), and any {@link KafkaSetting} key ({@code kafka-classic-hb20}, Kafka classic at its fastest heartbeat, by
 * default). Each trial (one per fork) starts its own ZooKeeper, broker and producer. The warm-up is a fixed 150 shots
 * (the side-by-side's ends when the JIT is quiet), so compare the two after enough warm-up on both. Each trial prints
 * the raw ZooKeeper write round trip at its end, the side-by-side's yardstick: groupkeeper's figures are chains of
 * round trips and move with it, so a JMH run and a side-by-side run can be compared only on a machine as fast. (At the
 * trial's start it would measure a cold JIT: 1.05-1.71 ms there against 0.37-0.74 at the end, 2026-12-02.)
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RebalanceBenchmark -p subject=zookeeper -p scenario=join -f 3
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 150 warm-up shots: with 60, all three subjects were still being compiled (one fork, 2026-12-01, join p50 with 60 ->
// 150 warm-ups: zookeeper 35.2 -> 19.1 ms, groupkeeper-kafka 82.4 -> 56.7, kafka-classic-hb20 88.3 -> 33.7;
// benchmarks/HISTORY.md). The side-by-side's JIT-quiet warm-up needs up to ~100-150 repetitions too.
@Warmup(iterations = 150)
@Measurement(iterations = 30)
@Fork(
        value = 1,
        jvmArgs = {"-Xms1g", "-Xmx1g"})
public class RebalanceBenchmark {

    private static final String TOPIC = "rebalance";
    private static final long TIMEOUT_MS = 90_000;
    /** As the side-by-side's: the state must hold this long without a change to count as settled. */
    private static final long GUARD_MS = 300;

    @Param({"zookeeper", "groupkeeper-kafka", "kafka-classic-hb20"})
    public String subject;

    @Param({"join", "leave", "crash"})
    public String scenario;

    /** Members of the group before the join and after the leave or crash. */
    @Param({"3"})
    public int members;

    @Param({"12"})
    public int partitions;

    /** Session timeout of the crash scenario's members, on every side (ZooKeeper's floor here: 1 s). */
    @Param({"2000"})
    public int sessionTimeoutMs;

    /**
     * Whether the broker and its producer run beside the {@code zookeeper} subject too (the other subjects need them
     * anyway). The side-by-side harness runs its ZooKeeper-only subject with them running (unless {@code --no-kafka}),
     * so its figure includes their share of the two cores; {@code false} measures the ZooKeeper part on a machine
     * that runs nothing else.
     */
    @Param({"true"})
    public boolean brokerLoad;

    private EmbeddedZooKeeper zk;
    private EmbeddedKafka kafka;
    private RecordProducer producer;
    private RebalanceSubject rebalanceSubject;
    private Probe probe;
    private final String group = "jmh-rebalance";
    private final List<String> baseNames = new ArrayList<>();
    private final List<SubjectMember> base = new ArrayList<>();
    /** The joiner, leaver or crash victim of the current invocation. */
    private SubjectMember extra;

    private Probe.Sample returned;
    private int sequence;
    private HostCpu trialStart;

    @Setup(Level.Trial)
    public void startGroup() throws InterruptedException {
        trialStart = HostCpu.now();
        boolean crash = crash();
        zk = EmbeddedZooKeeper.startDefault();
        if (brokerLoad || !subject.equals("zookeeper")) {
            kafka = EmbeddedKafka.builder()
                    .brokerProperties(KafkaNativeSubject.brokerProperties(sessionTimeoutMs))
                    .build()
                    .start();
            kafka.createTopic(TOPIC, partitions);
            producer = new RecordProducer(kafka, TOPIC, partitions, 5);
        }
        rebalanceSubject = switch (subject) {
            case "zookeeper" -> new GroupKeeperZkSubject(zk.connectString(), TOPIC, partitions, sessionTimeoutMs);
            case "groupkeeper-kafka" -> new GroupKeeperKafkaSubject(zk.connectString(), kafka, TOPIC, sessionTimeoutMs);
            default -> new KafkaNativeSubject(KafkaSetting.byKey(subject), kafka, TOPIC, sessionTimeoutMs);
        };
        rebalanceSubject.prepareGroup(group, crash);
        probe = new Probe(partitions);
        for (int i = 0; i < members; i++) {
            baseNames.add("m" + i);
        }
        probe.arm(System.nanoTime(), baseNames, rebalanceSubject.consumesRecords());
        for (String n : baseNames) {
            base.add(rebalanceSubject.start(group, n, crash, probe));
        }
        settle("the first " + members + " members");
    }

    /** leave, crash: the member that will leave or crash joins first, untimed. */
    @Setup(Level.Invocation)
    public void addMemberToRemove() throws InterruptedException {
        if (!scenario.equals("join")) {
            String name = nextName();
            List<String> all = new ArrayList<>(baseNames);
            all.add(name);
            probe.arm(System.nanoTime(), all, rebalanceSubject.consumesRecords());
            extra = rebalanceSubject.start(group, name, crash(), probe);
            settle(name + " joining before the " + scenario);
        }
    }

    @Benchmark
    public Probe.Sample rebalance() throws InterruptedException {
        long t = System.nanoTime();
        switch (scenario) {
            case "join" -> {
                String name = nextName();
                List<String> all = new ArrayList<>(baseNames);
                all.add(name);
                probe.arm(t, all, rebalanceSubject.consumesRecords());
                extra = rebalanceSubject.start(group, name, false, probe);
            }
            case "leave" -> {
                probe.arm(t, baseNames, rebalanceSubject.consumesRecords());
                extra.leave();
            }
            case "crash" -> {
                probe.arm(t, baseNames, rebalanceSubject.consumesRecords());
                probe.kill(extra.name());
                extra.crash();
            }
            default -> throw new IllegalArgumentException("scenario " + scenario + ": join, leave or crash");
        }
        returned = probe.await(0, TIMEOUT_MS + sessionTimeoutMs);
        if (returned == null) {
            throw new IllegalStateException(scenario + " did not finish: " + probe.describe());
        }
        return returned;
    }

    /** Checks the group stayed as the method left it, then (join) lets the joiner leave again, untimed. */
    @TearDown(Level.Invocation)
    public void checkAndRestore() throws InterruptedException {
        Probe.Sample settled = probe.await(GUARD_MS, TIMEOUT_MS);
        if (settled == null || settled.totalMs() > returned.totalMs() + 0.001) {
            throw new IllegalStateException("the group changed after the benchmark method returned (" + returned
                    + " then " + settled + "): " + probe.describe());
        }
        if (scenario.equals("join")) {
            probe.arm(System.nanoTime(), baseNames, rebalanceSubject.consumesRecords());
            extra.leave();
            settle(extra.name() + " leaving after the join");
        }
        extra.awaitStopped(30_000);
    }

    @TearDown(Level.Trial)
    public void stopGroup() {
        printRoundTrip();
        for (SubjectMember m : base) {
            m.leave();
        }
        for (SubjectMember m : base) {
            m.awaitStopped(30_000);
        }
        rebalanceSubject.close();
        if (producer != null) {
            producer.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        zk.close();
    }

    /**
     * Measured while the group still runs, idle (the side-by-side measures before and after all its subjects); JMH
     * shows a fork's output in its log. A failure is printed, not thrown, so that the group still stops. With it, the
     * host's CPU over the whole trial: what the hypervisor took (steal) and what waited for the disk.
     */
    private void printRoundTrip() {
        String what;
        try {
            what = ZkRoundTrip.describe(ZkRoundTrip.measure(zk.connectString()));
        } catch (RuntimeException e) {
            what = "not measured, " + e;
        }
        System.out.println(System.lineSeparator() + "raw ZooKeeper setData round trip (trial end): " + what
                + System.lineSeparator() + "host CPU over the trial: "
                + HostCpu.now().since(trialStart).describe());
    }

    private boolean crash() {
        return scenario.equals("crash");
    }

    private String nextName() {
        return "x" + sequence++;
    }

    private void settle(String what) throws InterruptedException {
        if (probe.await(GUARD_MS, TIMEOUT_MS) == null) {
            throw new IllegalStateException(what + " did not settle within " + TIMEOUT_MS + " ms: " + probe.describe());
        }
    }
}

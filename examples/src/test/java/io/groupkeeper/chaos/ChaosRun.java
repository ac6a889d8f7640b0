package io.groupkeeper.chaos;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Reset;
import io.groupkeeper.chaos.ChaosSchedule.Settings;
import io.groupkeeper.chaos.ChaosSchedule.Step;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.zookeeper.util.ServiceUtils;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One chaos run: a 3-node ZooKeeper ensemble ({@link TestingCluster}), the in-process Kafka broker, a topic whose
 * partitions a producer fills with numbered records, two consumer groups, a committed-offset sampler, and a seeded
 * {@link ChaosSchedule} of faults executed step by step; then the group settles, every partition's committed offset
 * reaches its log end in both groups, everybody leaves gracefully, and the {@link ChaosChecker} judges the
 * {@link ChaosLedger}. Prints the schedule first, each step as it happens, and the summary line last.
 *
 * <p>Over 500 lines because it is the run's one script — set-up, the step of each kind, settling and teardown read
 * top to bottom; what a fault needs beyond a few lines lives in its own class ({@link ZombieFault}, {@link ZkProxy},
 * {@link OffsetSampler}, {@link ChaosSink}), and the judgement in {@link ChaosChecker}.
 */
final class ChaosRun implements AutoCloseable {

    static final String TOPIC = "chaos";
    static final List<String> GROUPS = List.of("chaos-a", "chaos-b");
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(5);
    static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);
    /** Longer than the longest stall the schedule injects (a zombie's: session timeout + 8.5 s); reliability.md. */
    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(20);

    static final int MAX_POLL_RECORDS = 50;
    /** Partitions of each group's output topic in the transactional run. */
    static final int OUTPUT_PARTITIONS = 3;

    /** Starts a member of a group; {@code name} is a suggestion (processes get a generated member id). */
    interface Launcher {
        ChaosConsumer start(ChaosRun run, String group, String name) throws Exception;
    }

    private final long seed;
    private final Settings settings;
    /** Members in the transactional mode writing to an output topic per group ({@link ChaosEosIT}). */
    private final boolean transactional;
    /** Whether the members promise per-key order (every ordering but {@code UNORDERED}). */
    private boolean keyOrderPromised = true;

    private final PrintStream out;
    private final ChaosLedger ledger = new ChaosLedger();
    private final AtomicInteger partitions = new AtomicInteger();
    private final Map<Integer, List<ChaosConsumer>> live = new HashMap<>();
    private final List<ChaosConsumer> leaving = new ArrayList<>();
    private final List<ChaosConsumer> everyone = new ArrayList<>();
    private final ExecutorService cleaner = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "chaos-cleanup");
        t.setDaemon(true);
        return t;
    });
    private final List<Future<?>> cleanups = new ArrayList<>();
    private final int[] joined = new int[GROUPS.size()];
    private final Map<String, Integer> faultCounts = new TreeMap<>();
    /** Paces the schedule (never counted down: a timed wait on the schedule's gaps, not a synchronisation). */
    private final CountDownLatch pacer = new CountDownLatch(1);

    private final ZombieFault zombies = new ZombieFault();

    private TestingCluster cluster;
    private volatile EmbeddedKafka kafka;
    /** The broker's kept log directory, so that a {@link ChaosSchedule.Kind#KAFKA_RESTART} finds its data again. */
    private Path kafkaDir;

    private Admin kafkaAdmin;
    private GroupAdmin groupAdmin;
    private RecordProducer producer;
    private OffsetSampler sampler;
    private InstanceSpec down;
    private long startMillis;

    ChaosRun(long seed, Settings settings, PrintStream out) {
        this(seed, settings, out, false);
    }

    /** {@code transactional}: a chaos run of the transactional mode, judged by {@link #runExactlyOnce}. */
    ChaosRun(long seed, Settings settings, PrintStream out, boolean transactional) {
        this.seed = seed;
        this.settings = settings;
        this.out = out;
        this.transactional = transactional;
        for (int g = 0; g < GROUPS.size(); g++) {
            live.put(g, new ArrayList<>());
        }
    }

    /** Settings for a run of {@code faults} faults of {@code kinds}, with these group sizes. */
    static Settings settings(
            int faults,
            Set<ChaosSchedule.Kind> kinds,
            int[] initial,
            int[] min,
            int[] max,
            long minGapMillis,
            long gapSpreadMillis) {
        return new Settings(
                faults, SESSION_TIMEOUT.toMillis(), initial, min, max, 12, 24, minGapMillis, gapSpreadMillis, kinds);
    }

    /** Under {@code UNORDERED} the checker counts key-order violations but does not fail the run on them. */
    ChaosRun keyOrderPromised(boolean promised) {
        this.keyOrderPromised = promised;
        return this;
    }

    ChaosLedger ledger() {
        return ledger;
    }

    String zkConnect() {
        return cluster.getConnectString();
    }

    String bootstrap() {
        return kafka.bootstrapServers();
    }

    GroupAdmin groupAdmin() {
        return groupAdmin;
    }

    ChaosMember.Config memberConfig() {
        List<Integer> ports = cluster.getInstances().stream()
                .sorted(Comparator.comparingInt(InstanceSpec::getServerId))
                .map(InstanceSpec::getPort)
                .toList();
        return new ChaosMember.Config(
                ports,
                bootstrap(),
                TOPIC,
                SESSION_TIMEOUT,
                COMMIT_INTERVAL,
                REVOCATION_TIMEOUT,
                MAX_POLL_RECORDS,
                transactional);
    }

    // ------------------------------------------------------------------ the run

    ChaosChecker.Report run(Launcher launcher) throws Exception {
        long t0 = injectAndSettle(launcher);
        Map<Integer, Long> logEnd = logEnds();
        ChaosChecker.Report report = checkLedger(logEnd, t0);
        out.println(report.summary());
        out.flush();
        return report;
    }

    /**
     * The transactional run: faults, settling, then every group's output topic read with
     * {@code isolation.level=read_committed} and judged by {@link ChaosEosChecker}, whose summary is the last line.
     * The ledger's checker runs too, as information (its notes and problems are printed, not judged).
     */
    ChaosEosChecker.Report runExactlyOnce(Launcher launcher) throws Exception {
        if (!transactional) {
            throw new IllegalStateException("not a transactional run");
        }
        long t0 = injectAndSettle(launcher);
        Map<Integer, Long> logEnd = logEnds();
        ChaosChecker.Report ledgerReport = checkLedger(logEnd, t0);
        log("ledger (at-least-once processing, information): " + ledgerReport.summary());
        Map<String, List<String>> outputs = readOutputs();
        ChaosEosChecker.Report report = ChaosEosChecker.check(seed, ledgerReport.faults(), TOPIC, logEnd, outputs);
        log("outputs read with read_committed: "
                + outputs.values().stream().mapToInt(List::size).sum() + " records " + "in " + outputs.size()
                + " topics; took " + (System.currentTimeMillis() - t0) / 1000 + " s");
        report.problems().forEach(p -> log("problem: " + p));
        out.println(report.summary());
        out.flush();
        return report;
    }

    /** Every group's output topic, read from the start with read_committed up to its last stable offset. */
    private Map<String, List<String>> readOutputs() {
        Map<String, List<String>> outputs = new TreeMap<>();
        for (String group : GROUPS) {
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                    Map.of(
                            "bootstrap.servers",
                            bootstrap(),
                            "isolation.level",
                            "read_committed",
                            "enable.auto.commit",
                            false),
                    new StringDeserializer(),
                    new StringDeserializer())) {
                List<TopicPartition> tps = new ArrayList<>();
                for (int p = 0; p < OUTPUT_PARTITIONS; p++) {
                    tps.add(new TopicPartition(ChaosMember.outputTopic(group), p));
                }
                reader.assign(tps);
                reader.seekToBeginning(tps);
                // read_committed: the end offsets are the last stable offsets; an open transaction would hold them
                await().atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ZERO)
                        .until(() -> {
                            reader.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                            Map<TopicPartition, Long> ends = reader.endOffsets(tps);
                            return tps.stream().allMatch(tp -> reader.position(tp) >= ends.get(tp));
                        });
            }
            outputs.put(group, values);
        }
        return outputs;
    }

    private ChaosChecker.Report checkLedger(Map<Integer, Long> logEnd, long t0) {
        // A loss may be told well after its fault (the known I7 bug, see docs/reliability.md): 30 s to explain it.
        ChaosChecker checker = new ChaosChecker(COMMIT_INTERVAL.toMillis() + 500, 30_000, keyOrderPromised);
        ChaosChecker.Report report = checker.check(seed, ledger, new HashSet<>(GROUPS), logEnd);
        log("faults by kind " + faultCounts + "; produced " + producer.sent() + " (" + producer.failed()
                + " sends failed), " + logEnd.size() + " partitions, "
                + ledger.ownerships().size()
                + " ownership intervals, " + ledger.committedSamples().size() + " committed-offset changes sampled; "
                + "took " + (System.currentTimeMillis() - t0) / 1000 + " s");
        report.notes().forEach(n -> log("note: " + n));
        report.problems().forEach(p -> log("problem: " + p));
        return report;
    }

    /** Servers and members up, every step of the schedule, then {@link #settle()}; returns when it all began. */
    private long injectAndSettle(Launcher launcher) throws Exception {
        List<Step> schedule = ChaosSchedule.generate(seed, settings);
        out.print(ChaosSchedule.describe(seed, schedule));
        out.flush();
        long t0 = System.currentTimeMillis();
        startServers();
        sampler = new OffsetSampler(zkConnect(), GROUPS, TOPIC, partitions::get, ledger, 75).start();
        producer =
                new RecordProducer(bootstrap(), TOPIC, partitions::get).keyed().start(3, 20);
        for (int g = 0; g < GROUPS.size(); g++) {
            for (int i = 0; i < settings.initialSizes()[g]; i++) {
                join(launcher, g);
            }
        }
        awaitEveryPartitionOwned(Duration.ofSeconds(120));
        startMillis = System.currentTimeMillis();
        log("servers and " + everyone.size() + " members up in " + (startMillis - t0) + " ms; faults begin");
        for (Step st : schedule) {
            if (st.gapMillis() > 0) {
                pacer.await(st.gapMillis(), TimeUnit.MILLISECONDS); // the schedule's pacing (bounded)
            }
            requireNoFailures();
            log(st.describe() + " -> " + execute(launcher, st));
        }
        settle();
        return t0;
    }

    private void startServers() throws Exception {
        // A ZooKeeper server calls System.exit when it cannot bind a port (another build on this machine took one
        // that TestingCluster picked): in this JVM that would end the test run without a word. Log it instead; a
        // cluster that did not form is started again below, and a later failure fails the run on its own terms.
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
        for (int attempt = 1; ; attempt++) {
            cluster = new TestingCluster(3);
            cluster.start();
            try {
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> cluster.getInstances().stream()
                                .map(ChaosRun::mode)
                                .allMatch(m -> m.equals("leader") || m.equals("follower")));
                break;
            } catch (ConditionTimeoutException e) {
                cluster.close();
                if (attempt == 3) {
                    throw e;
                }
                log("the ZooKeeper ensemble did not form (a port taken?); starting it again");
            }
        }
        if (transactional) {
            kafkaDir = Files.createTempDirectory("chaos-eos-kafka");
            kafka = EmbeddedKafka.builder().logDir(kafkaDir).build().start();
            for (String group : GROUPS) {
                kafka.createTopic(ChaosMember.outputTopic(group), OUTPUT_PARTITIONS);
            }
        } else {
            kafka = EmbeddedKafka.builder().build().start();
        }
        kafka.createTopic(TOPIC, settings.partitions());
        partitions.set(settings.partitions());
        kafkaAdmin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
        groupAdmin = ZooKeeperAdmin.builder()
                .connectString(cluster.getConnectString())
                .build();
        log("ZooKeeper ensemble " + cluster.getConnectString() + ", Kafka " + kafka.bootstrapServers());
    }

    private String execute(Launcher launcher, Step st) throws Exception {
        int g = st.group();
        String group = GROUPS.get(g);
        switch (st.kind()) {
            case JOIN -> {
                return "joined " + join(launcher, g).name();
            }
            case LEAVE -> {
                ChaosConsumer c = remove(g, st.target());
                fault(new Fault(
                        c.supportsSessionFaults() ? "leave" : "leave(SIGTERM)",
                        c.name(),
                        System.currentTimeMillis(),
                        false,
                        Set.of()));
                c.leave();
                leaving.add(c);
                return c.name() + " leaves";
            }
            case CRASH -> {
                ChaosConsumer c = remove(g, st.target());
                long at = c.crash(st.abandon());
                fault(new Fault(
                        !c.supportsSessionFaults()
                                ? "crash(SIGKILL)"
                                : st.abandon() ? "crash(session times out)" : "crash",
                        c.name(),
                        at,
                        true));
                cleanUpLater(c);
                return c.name() + " crashed";
            }
            case LEADER_KILL -> {
                Optional<ChaosConsumer> leader = awaitLeader(g);
                ChaosConsumer c = leader.orElseGet(() -> pick(g, st.target()));
                live.get(g).remove(c);
                long at = c.crash(false);
                fault(new Fault(leader.isPresent() ? "leader-kill" : "crash(no leader found)", c.name(), at, true));
                cleanUpLater(c);
                return (leader.isPresent() ? "leader " : "no leader found; crashed ") + c.name();
            }
            case EXPIRE -> {
                ChaosConsumer c = pick(g, st.target());
                fault(new Fault("expire(partition)", c.name(), System.currentTimeMillis(), false, Set.of(c.name())));
                c.partition(st.durationMillis());
                return c.name() + " cut off for " + st.durationMillis() + " ms (its session expires)";
            }
            case STALL -> {
                ChaosConsumer c = pick(g, st.target());
                fault(new Fault("stall", c.name(), System.currentTimeMillis(), false, Set.of()));
                c.stall(st.durationMillis());
                return c.name() + " stalls " + st.durationMillis() + " ms";
            }
            case ZOMBIE -> {
                ChaosConsumer c = pick(g, st.target());
                fault(zombies.inject(c, st.durationMillis(), st.durationMillis() + st.amount()));
                return c.name() + " stalls " + (st.durationMillis() + st.amount()) + " ms on a batch and is cut off "
                        + "for " + st.durationMillis() + " ms (a zombie batch)";
            }
            case ZK_KILL -> {
                return killServerOf(pick(0, st.target()), st.target());
            }
            case ZK_RESTART -> {
                InstanceSpec spec = down;
                cluster.restartServer(spec);
                down = null;
                return "zk" + spec.getServerId() + " restarted";
            }
            case RESET -> {
                return reset(group, st.partitions(), st.amount());
            }
            case KAFKA_RESTART -> {
                return restartKafka(st.durationMillis());
            }
            case ADD_PARTITIONS -> {
                int n = partitions.get();
                long at = System.currentTimeMillis();
                kafkaAdmin
                        .createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(n + st.amount())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                partitions.set(n + st.amount());
                fault(new Fault("add-partitions", TOPIC, at, false, Set.of()));
                return TOPIC + " now has " + (n + st.amount()) + " partitions";
            }
            default -> throw new IllegalStateException(st.kind().name());
        }
    }

    /**
     * The broker (the transaction coordinator, the group coordinator of the offsets of record, every partition's
     * leader) shuts down, stays down {@code downMillis}, and starts again on the same log directory and ports.
     */
    private String restartKafka(long downMillis) throws Exception {
        if (kafkaDir == null) {
            throw new IllegalStateException("a Kafka restart needs the transactional run's kept log directory");
        }
        int port = kafka.port();
        int controllerPort = kafka.controllerPort();
        long at = System.currentTimeMillis();
        fault(new Fault("kafka-restart", "kafka", at, false, Set.of()));
        kafka.close();
        long stopped = System.currentTimeMillis();
        pacer.await(downMillis, TimeUnit.MILLISECONDS); // the schedule's downtime (bounded)
        long starting = System.currentTimeMillis();
        for (int attempt = 1; ; attempt++) {
            try {
                kafka = EmbeddedKafka.builder()
                        .port(port)
                        .controllerPort(controllerPort)
                        .logDir(kafkaDir)
                        .build()
                        .start();
                break;
            } catch (RuntimeException e) { // a port taken meanwhile by another process on this machine
                if (attempt == 5) {
                    throw e;
                }
                log("Kafka did not start again on " + port + "/" + controllerPort + " (attempt " + attempt + "): " + e);
                pacer.await(1_000, TimeUnit.MILLISECONDS);
            }
        }
        return "kafka stopped in " + (stopped - at) + " ms, down " + (starting - stopped) + " ms, up again in "
                + (System.currentTimeMillis() - starting) + " ms on the same log directory and port " + port;
    }

    private ChaosConsumer join(Launcher launcher, int g) throws Exception {
        String name = (g == 0 ? "a" : "b") + (++joined[g]);
        ChaosConsumer c = launcher.start(this, GROUPS.get(g), name);
        live.get(g).add(c);
        everyone.add(c);
        return c;
    }

    private ChaosConsumer pick(int g, int target) {
        List<ChaosConsumer> members = live.get(g);
        return members.get(target % members.size());
    }

    /** A member to leave or crash: not one holding a zombie batch (that would end it early), unless all do. */
    private ChaosConsumer remove(int g, int target) {
        List<ChaosConsumer> members =
                live.get(g).stream().filter(m -> !zombies.inProgress(m)).toList();
        ChaosConsumer c = members.isEmpty() ? pick(g, target) : members.get(target % members.size());
        live.get(g).remove(c);
        return c;
    }

    private void fault(Fault f) {
        ledger.fault(f);
        faultCounts.merge(f.kind(), 1, Integer::sum);
    }

    private void cleanUpLater(ChaosConsumer c) {
        cleanups.add(cleaner.submit(c::cleanUp));
    }

    /** The live member that leads the group; a leader that just died may take a moment to be replaced. */
    private Optional<ChaosConsumer> awaitLeader(int g) {
        try {
            return Optional.of(await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(50))
                    .until(
                            () -> live.get(g).stream()
                                    .filter(c -> c.isLeader() && !zombies.inProgress(c))
                                    .findFirst(),
                            Optional::isPresent)
                    .get());
        } catch (ConditionTimeoutException e) {
            return Optional.empty();
        }
    }

    /** Kills the ZooKeeper server {@code c} is connected to (for a process: server number {@code target % 3}). */
    private String killServerOf(ChaosConsumer c, int target) throws Exception {
        List<InstanceSpec> instances = new ArrayList<>(cluster.getInstances());
        instances.sort(Comparator.comparingInt(InstanceSpec::getServerId));
        Optional<Integer> port = c.zkServerPort();
        InstanceSpec spec = instances.stream()
                .filter(i -> port.isPresent() && i.getPort() == port.get())
                .findFirst()
                .orElse(instances.get(target % instances.size()));
        String killedMode = mode(spec);
        boolean leads = "leader".equals(killedMode);
        boolean quorumGoes = everyoneExposed(
                killedMode,
                instances.stream().filter(i -> i != spec).map(ChaosRun::mode).toList());
        Set<String> exposed = new LinkedHashSet<>();
        for (List<ChaosConsumer> members : live.values()) {
            for (ChaosConsumer m : members) {
                Optional<Integer> on = quorumGoes ? Optional.empty() : m.zkServerPort();
                // members on that server, everybody when the ensemble goes with it (it led, or the others are not a
                // quorum without it: one just restarted and still syncing), and anyone whose server is unknown
                if (on.isEmpty() || on.get() == spec.getPort()) {
                    exposed.add(m.name());
                }
            }
        }
        fault(new Fault("zk-kill", "zk" + spec.getServerId(), System.currentTimeMillis(), false, exposed));
        cluster.killServer(spec);
        down = spec;
        return "killed zk" + spec.getServerId()
                + (leads ? " (the ensemble's leader)" : quorumGoes ? " (the others not a quorum without it)" : "")
                + ", the server of " + c.name()
                + "; exposed " + exposed;
    }

    /**
     * Whether killing a server of mode {@code killed} stops the whole ensemble for a while, so that every member is
     * exposed: it led (an election follows), or fewer than a majority of the ensemble remain serving without it (a
     * server restarted a moment ago is not serving yet: seed 383738 killed zk3 5 ms after zk1 restarted, and every
     * member's connection went in doubt).
     */
    static boolean everyoneExposed(String killed, List<String> others) {
        long serving = others.stream()
                .filter(m -> m.equals("leader") || m.equals("follower"))
                .count();
        return "leader".equals(killed) || serving < (others.size() + 1) / 2 + 1;
    }

    /** The server's mode from the {@code srvr} four-letter word: leader, follower, or "?" */
    private static String mode(InstanceSpec spec) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", spec.getPort()), 2_000);
            s.setSoTimeout(2_000);
            OutputStream o = s.getOutputStream();
            o.write("srvr".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            return text.lines()
                    .filter(l -> l.startsWith("Mode: "))
                    .map(l -> l.substring(6).trim())
                    .findFirst()
                    .orElse("?");
        } catch (Exception e) {
            return "?";
        }
    }

    private String reset(String group, List<Integer> selected, int shift) {
        int n = partitions.get();
        TreeSet<Integer> ps = new TreeSet<>();
        selected.forEach(p -> ps.add(p % n));
        long start = System.currentTimeMillis();
        try {
            ResetPlan plan = groupAdmin.executeReset(
                    group, PartitionSelection.builder().partitions(TOPIC, ps).build(), new ResetSpec.ShiftBy(-shift));
            long end = System.currentTimeMillis();
            List<String> done = new ArrayList<>();
            for (ResetPlan.Entry e : plan.writes()) {
                ledger.reset(new Reset(
                        group,
                        e.partition().partition(),
                        e.target().getAsLong(),
                        end,
                        start,
                        e.current().orElse(Long.MAX_VALUE)));
                done.add(e.partition().partition() + ":" + e.current().orElse(-1) + "->"
                        + e.target().getAsLong());
            }
            fault(new Fault("reset", group, start, false, Set.of()));
            return group + " reset " + done + " in " + (end - start) + " ms (" + plan.attempts() + " plans)";
        } catch (RuntimeException e) {
            fault(new Fault("reset(refused)", group, start, false, Set.of()));
            return group + " reset of " + ps + " refused (nothing written): " + e.getMessage();
        }
    }

    // ------------------------------------------------------------------ settling

    private void settle() throws Exception {
        log("faults over; settling");
        if (down != null) {
            cluster.restartServer(down);
            down = null;
        }
        for (ChaosConsumer c : leaving) {
            c.awaitDone(Duration.ofSeconds(90));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> live.values().stream()
                        .flatMap(List::stream)
                        .noneMatch(ChaosConsumer::isPartitioned)); // cut-offs heal by themselves within their duration
        producer.stop();
        Map<Integer, Long> logEnd = logEnds();
        log("producer stopped at "
                + logEnd.values().stream().mapToLong(Long::longValue).sum() + " records in " + logEnd.size()
                + " partitions; waiting for every committed offset to reach its log end");
        try {
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        requireNoFailures();
                        Map<String, Long> committed = sampler.read();
                        List<String> behind = new ArrayList<>();
                        for (String group : GROUPS) {
                            logEnd.forEach((p, end) -> {
                                Long c = committed.get(group + "/" + p);
                                if (c == null || c.longValue() != end) {
                                    behind.add(group + "/" + p + " " + c + "/" + end);
                                }
                            });
                        }
                        if (!behind.isEmpty()) {
                            throw new AssertionError("not caught up: " + behind);
                        }
                    });
        } catch (ConditionTimeoutException e) {
            for (String group : GROUPS) {
                log("stuck: " + describe(group));
            }
            throw e;
        }
        log("caught up " + (System.currentTimeMillis() - startMillis) / 1000 + " s after the first fault; "
                + "everybody leaves");
        for (List<ChaosConsumer> members : live.values()) {
            members.forEach(ChaosConsumer::leave);
        }
        for (List<ChaosConsumer> members : live.values()) {
            for (ChaosConsumer c : members) {
                c.awaitDone(Duration.ofSeconds(90));
            }
            members.clear();
        }
        for (Future<?> f : cleanups) {
            f.get(120, TimeUnit.SECONDS);
        }
        requireNoFailures();
        sampler.close();
    }

    private String describe(String group) {
        try {
            GroupDescription d = groupAdmin.describe(group);
            StringBuilder s = new StringBuilder(group + " " + d.state() + " gen " + d.generation() + " leader "
                    + d.leader().orElse("-") + " members");
            d.members()
                    .forEach(m -> s.append(' ')
                            .append(m.memberId())
                            .append(m.owned())
                            .append("->")
                            .append(m.target()));
            d.partitions()
                    .forEach(p -> s.append("\n    ")
                            .append(p.partition())
                            .append(" owner ")
                            .append(p.owner().orElse("-"))
                            .append(" target ")
                            .append(p.target().orElse("-"))
                            .append(" committed ")
                            .append(p.committed()));
            return s.toString();
        } catch (RuntimeException e) {
            return group + ": " + e;
        }
    }

    private Map<Integer, Long> logEnds() throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions.get(); p++) {
            request.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new TreeMap<>();
        kafkaAdmin
                .listOffsets(request)
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        return ends;
    }

    /** Every partition of the topic has an owner in both groups. */
    private void awaitEveryPartitionOwned(Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (String group : GROUPS) {
                long owned = groupAdmin.describe(group).partitions().stream()
                        .filter(p -> p.owner().isPresent() && p.partition().partition() < partitions.get())
                        .count();
                if (owned < partitions.get()) {
                    return false;
                }
            }
            return true;
        });
    }

    private void requireNoFailures() {
        for (ChaosConsumer c : everyone) {
            Optional<String> f = c.failure();
            if (f.isPresent()) {
                throw new AssertionError("member failed (seed " + seed + "): " + f.get());
            }
        }
    }

    void log(String line) {
        long since = startMillis == 0 ? 0 : System.currentTimeMillis() - startMillis;
        out.printf("[%7.1fs] %s%n", since / 1000.0, line);
        out.flush();
    }

    @Override
    public void close() {
        for (ChaosConsumer c : everyone) {
            try {
                if (live.values().stream().anyMatch(l -> l.contains(c))) {
                    c.leave();
                }
            } catch (RuntimeException e) {
                // best effort
            }
        }
        for (ChaosConsumer c : everyone) {
            try {
                c.awaitDone(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                // best effort
            }
        }
        everyone.forEach(ChaosConsumer::destroy);
        cleaner.shutdownNow();
        quietly(() -> producer.close());
        quietly(() -> sampler.close());
        quietly(() -> groupAdmin.close());
        quietly(() -> kafkaAdmin.close(Duration.ofSeconds(5)));
        quietly(() -> kafka.close());
        quietly(() -> cluster.close());
        if (kafkaDir != null) {
            quietly(() -> {
                try (var files = Files.walk(kafkaDir)) {
                    files.sorted(Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            });
        }
    }

    private interface Action {
        void run() throws Exception;
    }

    private static void quietly(Action a) {
        try {
            a.run();
        } catch (Exception | AssertionError e) {
            // best effort: tearing down after a failure
        }
    }
}

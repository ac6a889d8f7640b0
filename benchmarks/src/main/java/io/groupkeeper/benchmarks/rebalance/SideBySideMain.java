package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.benchmarks.rebalance.ScenarioRunner.Rep;
import io.groupkeeper.benchmarks.rebalance.ScenarioRunner.Scenario;
import io.groupkeeper.benchmarks.support.Args;
import io.groupkeeper.benchmarks.support.Fmt;
import io.groupkeeper.benchmarks.support.HostCpu;
import io.groupkeeper.benchmarks.support.Json;
import io.groupkeeper.benchmarks.support.Machine;
import io.groupkeeper.benchmarks.support.Stats;
import io.groupkeeper.benchmarks.support.ZkRoundTrip;
import io.groupkeeper.embedded.EmbeddedKafka;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The side-by-side rebalance comparison (issue 7 item 2): the same scenarios for Kafka's own groups under eight
 * settings ({@link KafkaSetting}: defaults, 500 ms, and Kafka at its fastest, issue 19), each subject's idle
 * coordination traffic per member ({@link IdleTraffic}), for groupkeeper over Kafka and for groupkeeper's ZooKeeper
 * part alone, all on one in-process ZooKeeper and one in-process KRaft broker
 * ({@code group.initial.rebalance.delay.ms=0}), with a producer writing to every partition throughout. Writes {@code sidebyside.json} and {@code sidebyside.csv}; the last line
 * printed is {@code scale-out p50: groupkeeper=<ms> kafka-best=<ms> ratio=<x>} (ratio = kafka-best / groupkeeper,
 * i.e. how many times faster).
 *
 * <p>A plain main, the figure of record ({@code RebalanceBenchmark} times the same rebalances in JMH as a
 * cross-check): each sample is one rebalance of milliseconds to seconds with servers, threads and a producer around
 * it, and what matters is the distribution over repetitions (p50/p95/max) of a wall-clock interval that starts and
 * ends on different threads, split into its steps, after a warm-up that lasts until the JIT is quiet (and, for
 * groupkeeper's subjects, at least 150 repetitions; 10 in the crash scenario).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.rebalance.SideBySideMain [--quick]
 *   [--scenarios a,b,c,d] [--settings kafka-classic-default,...] [--reps 10] [--gk-reps 30] [--gkk-reps 30]
 *   [--warmups 1] [--gk-warmups 150 (100 with --quick)] [--gkk-warmups 150 (100)] [--max-warmups 250 (150)]
 *   [--crash-session-timeout-ms 10000] [--producer-interval-ms 5] [--idle-ms 20000 (6000 with --quick)] [--out DIR]
 *   [--no-kafka] [--zk-jvm [--zk-cpus 0]]
 * </pre>
 * {@code --zk-jvm} runs the ZooKeeper server in a JVM of its own, {@code --zk-cpus} pins that JVM to CPUs with
 * {@code taskset} (issue 19's lever "servers in another JVM"; the harness itself is pinned from the outside, e.g.
 * {@code taskset -c 1 java ...}). ZooKeeper's packet count then lives in the other JVM: the idle traffic's
 * {@code requests} column is left out, the members' own counters stay.
 */
public final class SideBySideMain {

    static final String TOPIC = "bench";

    private SideBySideMain() {}

    public static void main(String[] argv) throws Exception {
        Map<String, Object> result = run(argv, System.out);
        System.exit(result.containsKey("error") ? 1 : 0);
    }

    public static Map<String, Object> run(String[] argv, PrintStream out) throws Exception {
        Args args = new Args(
                argv,
                Set.of("quick", "no-kafka", "zk-jvm"),
                Set.of(
                        "scenarios",
                        "settings",
                        "reps",
                        "gk-reps",
                        "warmups",
                        "crash-session-timeout-ms",
                        "producer-interval-ms",
                        "out",
                        "partitions",
                        "timeout-ms",
                        "gkk-reps",
                        "gkk-warmups",
                        "gk-warmups",
                        "max-warmups",
                        "idle-ms",
                        "zk-cpus"));
        if (args.get("zk-cpus", null) != null && !args.flag("zk-jvm")) {
            throw new IllegalArgumentException("--zk-cpus pins the ZooKeeper JVM of --zk-jvm; add --zk-jvm");
        }
        boolean quick = args.flag("quick");
        List<Scenario> scenarios = new ArrayList<>();
        for (String s : args.get("scenarios", quick ? "a" : "a,b,c,d").split(",")) {
            scenarios.add(Scenario.byLetterOrKey(s.trim()));
        }
        List<KafkaSetting> settings = new ArrayList<>();
        if (!args.flag("no-kafka")) {
            String all = String.join(
                    ",",
                    Arrays.stream(KafkaSetting.values()).map(KafkaSetting::key).toList());
            // --quick runs Kafka at its fastest: classic at heartbeat.interval.ms 100 and 20 (issue 19). The slower
            // settings are heartbeat-bound (classic 500 ms: ~205 ms; KIP-848 500 ms: ~1.2 s; the defaults 2.7 s and
            // 5.6 s in every full run) and their warm-up alone would take most of the 3 minutes --quick has.
            String quickSettings = KafkaSetting.CLASSIC_HB100.key() + "," + KafkaSetting.CLASSIC_HB20.key();
            for (String s : args.get("settings", quick ? quickSettings : all).split(",")) {
                settings.add(KafkaSetting.byKey(s.trim()));
            }
        }
        int kafkaReps = args.getInt("reps", quick ? 3 : 10);
        // groupkeeper's figures (~20 ms) move by +-5 ms with the machine and by more in a repetition the JIT
        // compiles through; Kafka's are heartbeat-bound (within a few %). Two full runs of 10 repetitions each put
        // groupkeeper's scale-out p50 at 20.1 and 23.8 ms, so it gets more repetitions for a p50 that holds.
        int gkReps = args.getInt("gk-reps", quick ? 20 : 30);
        int kafkaWarmups = args.getInt("warmups", 1);
        // groupkeeper over Kafka: at least as many repetitions as groupkeeper's ZooKeeper-only subject
        int gkkReps = args.getInt("gkk-reps", Math.max(gkReps, kafkaReps));
        // The least warm-up per subject; every subject then warms up further while the JIT compiler is busy
        // (ScenarioRunner.WarmUp), up to --max-warmups. groupkeeper's subjects run first, while C2 still compiles the
        // broker's and the clients' code. The JIT-quiet rule alone stopped them too early: the ZooKeeper part's
        // scale-out measured 17.9-26.2 ms after at most 60 warm-ups and 11.4-13.5 ms after 150 the same morning
        // (2026-12-02, benchmarks/README.md), so they warm up at least 150 repetitions (100 with --quick).
        int gkWarmups = args.getInt("gk-warmups", quick ? 100 : 150);
        int gkkWarmups = args.getInt("gkk-warmups", quick ? 100 : 150);
        int maxWarmups = args.getInt("max-warmups", quick ? 150 : 250);
        // With --quick the Kafka settings warm up 3 times at most: their figures are heartbeat-bound (hb500 measured
        // 205-213 ms after 0, 1 or 20 warm-ups) and the full rule would take ~40 of --quick's 180 s.
        int kafkaMaxWarmups = quick ? Math.min(3, maxWarmups) : maxWarmups;
        int partitions = args.getInt("partitions", 12);
        long crashSessionMs = args.getInt("crash-session-timeout-ms", 10_000);
        long producerIntervalMs = args.getInt("producer-interval-ms", 5);
        long timeoutMs = args.getInt("timeout-ms", 90_000);
        // Long enough for several of the slowest periodic requests (KIP-848's default 5 s heartbeat, Kafka's 5 s auto
        // commit, a ZooKeeper ping every 5 s at groupkeeper's 15 s session) per member.
        long idleMs = args.getInt("idle-ms", quick ? 6_000 : 20_000);
        Path outDir = args.path("out", "target/bench-results");

        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", "side-by-side");
        doc.put("command", "SideBySideMain " + String.join(" ", argv));
        doc.put("mode", quick ? "quick" : "full");
        doc.put("machine", Machine.describe());
        doc.put("partitions", partitions);
        doc.put("producerIntervalMs", producerIntervalMs);
        doc.put("scenarios", scenarios.stream().map(s -> s.key).toList());
        List<Map<String, Object>> subjects = new ArrayList<>();
        doc.put("subjects", subjects);

        long t0 = System.nanoTime();
        HostCpu cpu0 = HostCpu.now();
        HostCpu.Share hostUsed = null;
        Map<String, Object> summary = Map.of();
        double rttUsed = Double.NaN;
        EmbeddedKafka kafka = null;
        RecordProducer producer = null;
        try (ZooKeeperServerProcess zk = args.flag("zk-jvm")
                ? ZooKeeperServerProcess.ownJvm(args.get("zk-cpus", null))
                : ZooKeeperServerProcess.inProcess()) {
            doc.put("zookeeper", zk.describe());
            if (!settings.isEmpty()) {
                kafka = EmbeddedKafka.builder()
                        .brokerProperties(KafkaNativeSubject.brokerProperties(crashSessionMs))
                        .build()
                        .start();
                kafka.createTopic(TOPIC, partitions);
                producer = new RecordProducer(kafka, TOPIC, partitions, producerIntervalMs);
                doc.put("brokerOverrides", KafkaNativeSubject.brokerProperties(crashSessionMs));
            }
            out.printf(
                    "side-by-side (%s): scenarios %s, %d partitions, %d cpus, load %.2f%n",
                    quick ? "quick" : "full",
                    scenarios.stream().map(s -> s.key).toList(),
                    partitions,
                    Runtime.getRuntime().availableProcessors(),
                    Machine.loadAverage());
            out.println("ZooKeeper server: " + zk.describe());
            Stats rttBefore = ZkRoundTrip.measure(zk.connectString());
            out.println("raw ZooKeeper setData round trip (before): " + ZkRoundTrip.describe(rttBefore));

            ScenarioRunner.Config gkConfig = new ScenarioRunner.Config(
                    partitions,
                    gkReps,
                    gkWarmups,
                    maxWarmups,
                    200,
                    timeoutMs,
                    crashSessionMs > 0 ? crashSessionMs : 15_000,
                    idleMs);
            try (GroupKeeperZkSubject gk =
                    new GroupKeeperZkSubject(zk.connectString(), "bench-" + TOPIC, partitions, crashSessionMs)) {
                subjects.add(runSubject(gk, gkConfig, scenarios, out));
            }

            if (kafka != null) {
                if (GroupKeeperKafkaSubject.available()) {
                    try (GroupKeeperKafkaSubject gkk =
                            new GroupKeeperKafkaSubject(zk.connectString(), kafka, TOPIC, crashSessionMs)) {
                        subjects.add(runSubject(
                                gkk,
                                new ScenarioRunner.Config(
                                        partitions,
                                        gkkReps,
                                        gkkWarmups,
                                        maxWarmups,
                                        300,
                                        timeoutMs,
                                        crashSessionMs > 0 ? crashSessionMs : 15_000,
                                        idleMs),
                                scenarios,
                                out));
                    }
                } else {
                    GroupKeeperKafkaSubject pending = new GroupKeeperKafkaSubject(zk.connectString(), kafka, TOPIC);
                    Map<String, Object> s = subjectHeader(pending);
                    s.put("status", "pending: " + GroupKeeperKafkaSubject.PENDING);
                    subjects.add(s);
                    out.println(pending.label() + ": pending (" + GroupKeeperKafkaSubject.PENDING + ")");
                }
                for (KafkaSetting setting : settings) {
                    try (KafkaNativeSubject k = new KafkaNativeSubject(setting, kafka, TOPIC, crashSessionMs)) {
                        subjects.add(runSubject(
                                k,
                                new ScenarioRunner.Config(
                                        partitions,
                                        kafkaReps,
                                        kafkaWarmups,
                                        kafkaMaxWarmups,
                                        300,
                                        timeoutMs,
                                        crashSessionMs > 0 ? crashSessionMs : 45_000,
                                        idleMs),
                                scenarios,
                                out));
                    }
                }
            }
            Stats rttAfter = ZkRoundTrip.measure(zk.connectString());
            doc.put("zkRoundTripMs", Map.of("before", rttBefore, "after", rttAfter));
            double rtt = Math.min(rttBefore.p50(), rttAfter.p50());
            doc.put("rttMs", rtt);
            doc.put("producedRecords", producer == null ? 0 : producer.sent());
            doc.put("loadAverageAtEnd", Machine.loadAverage());
            doc.put("wallSeconds", (System.nanoTime() - t0) / 1e9);
            hostUsed = HostCpu.now().since(cpu0);
            doc.put("hostCpu", hostUsed.toMap());
            summary = summarize(subjects, rtt);
            rttUsed = rtt;
            doc.put("summary", summary);
            writeFiles(doc, subjects, outDir);
        } catch (Exception e) {
            doc.put("error", e.toString());
            writeFiles(doc, subjects, outDir);
            throw e;
        } finally {
            if (producer != null) {
                producer.close();
            }
            if (kafka != null) {
                kafka.close();
            }
        }
        // Printed after the servers are closed, so their shutdown logs do not follow the promised last line.
        printTable(subjects, rttUsed, out);
        printSummary(summary, rttUsed, hostUsed, out);
        return doc;
    }

    private static Map<String, Object> subjectHeader(RebalanceSubject s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", s.key());
        m.put("label", s.label());
        m.put("system", s.system());
        m.put("consumesRecords", s.consumesRecords());
        m.put("settings", s.settings());
        return m;
    }

    private static Map<String, Object> runSubject(
            RebalanceSubject subject, ScenarioRunner.Config config, List<Scenario> scenarios, PrintStream out)
            throws Exception {
        out.printf(
                "%s: %d repetitions per scenario, after %d to %d warm-up ones (until the JIT is quiet)%n",
                subject.label(), config.reps(), config.warmups(), config.maxWarmups());
        long t0 = System.nanoTime();
        HostCpu cpu0 = HostCpu.now();
        ScenarioRunner runner = new ScenarioRunner(subject, config, out);
        Map<Scenario, List<Rep>> reps = runner.run(scenarios);
        HostCpu.Share host = HostCpu.now().since(cpu0);
        out.println("    host CPU over this subject: " + host.describe());
        Map<String, Object> m = subjectHeader(subject);
        m.put("settings", subject.settings()); // after the run: includes verification notes
        m.put("status", "measured");
        m.put("seconds", (System.nanoTime() - t0) / 1e9);
        m.put("hostCpu", host.toMap());
        Map<String, Object> byScenario = new LinkedHashMap<>();
        reps.forEach((s, list) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("total", stats(list, Rep::totalMs));
            r.put("owned", stats(list, Rep::ownedMs));
            r.put("fetch", stats(list, Rep::fetchMs));
            r.put("publish", stats(list, Rep::publishMs));
            if (s == Scenario.CRASH) {
                r.put("detect", stats(list, Rep::detectMs));
            }
            Map<String, Stats> phases = new LinkedHashMap<>();
            for (Rep rep : list) {
                for (String k : rep.phasesMs().keySet()) {
                    phases.computeIfAbsent(
                            k, key -> stats(list, x -> x.phasesMs().getOrDefault(key, Double.NaN)));
                }
            }
            if (!phases.isEmpty()) {
                r.put("phases", phases);
            }
            if (phases.containsKey("membership")) {
                // The ZooKeeper part of a handoff: from the membership event (member node created or deleted) until
                // every partition is owned.
                r.put(
                        "handoff",
                        stats(
                                list,
                                x -> x.phasesMs().containsKey("membership")
                                        ? x.ownedMs() - x.phasesMs().get("membership")
                                        : Double.NaN));
            }
            r.put("overlaps", list.stream().mapToInt(Rep::overlaps).max().orElse(0));
            r.put("warmUp", runner.warmUp(s));
            r.put("jit", stats(list, Rep::jitMs));
            r.put("cpu", stats(list, Rep::cpuMs));
            r.put("cpuBusy", stats(list, Rep::cpuBusy));
            r.put("reps", list);
            byScenario.put(s.key, r);
        });
        m.put("scenarios", byScenario);
        if (runner.idleTraffic() != null) {
            m.put("idleTraffic", runner.idleTraffic());
        }
        m.put("overlapReports", runner.overlapReports());
        return m;
    }

    static Stats stats(List<Rep> reps, ToDoubleFunction<Rep> f) {
        List<Double> values = new ArrayList<>();
        for (Rep r : reps) {
            double v = f.applyAsDouble(r);
            if (!Double.isNaN(v)) {
                values.add(v);
            }
        }
        return Stats.of(values);
    }

    @SuppressWarnings("unchecked")
    private static Stats scenarioStats(Map<String, Object> subject, String scenario, String part) {
        Object scenarios = subject.get("scenarios");
        if (!(scenarios instanceof Map<?, ?> byScenario) || !byScenario.containsKey(scenario)) {
            return Stats.EMPTY;
        }
        return (Stats) ((Map<String, Object>) byScenario.get(scenario)).get(part);
    }

    static Map<String, Object> summarize(List<Map<String, Object>> subjects, double rtt) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("rttMs", rtt);
        for (Scenario scenario : Scenario.values()) {
            Map<String, Object> line = new LinkedHashMap<>();
            double best = Double.NaN;
            String bestKey = null;
            Double gk = null;
            Double gkZk = null;
            Map<String, Double> kafkaBySetting = new LinkedHashMap<>();
            for (Map<String, Object> subject : subjects) {
                Stats st = scenarioStats(subject, scenario.key, "total");
                if (st.isEmpty()) {
                    continue;
                }
                switch ((String) subject.get("system")) {
                    case "kafka" -> {
                        kafkaBySetting.put((String) subject.get("key"), st.p50());
                        if (Double.isNaN(best) || st.p50() < best) {
                            best = st.p50();
                            bestKey = (String) subject.get("key");
                        }
                    }
                    case "groupkeeper" -> gk = st.p50();
                    case "groupkeeper-zk" -> gkZk = st.p50();
                    default -> {}
                }
            }
            if (bestKey == null && gk == null && gkZk == null) {
                continue;
            }
            line.put("kafkaBestP50Ms", Double.isNaN(best) ? null : best);
            line.put("kafkaBestKey", bestKey);
            line.put("groupkeeperP50Ms", gk);
            line.put("ratioKafkaBestToGroupkeeper", gk == null || Double.isNaN(best) ? null : best / gk);
            line.put("groupkeeperInRtts", gk == null ? null : gk / rtt);
            line.put("groupkeeperZkP50Ms", gkZk);
            line.put("kafkaP50MsBySetting", kafkaBySetting);
            Double hb100 = kafkaBySetting.get(KafkaSetting.CLASSIC_HB100.key());
            line.put("ratioKafkaClassicHb100ToGroupkeeper", gk == null || hb100 == null ? null : hb100 / gk);
            for (Map<String, Object> subject : subjects) {
                if ("groupkeeper-zk".equals(subject.get("system"))) {
                    Stats h = scenarioStats(subject, scenario.key, "handoff");
                    if (h != null && !h.isEmpty()) {
                        line.put("groupkeeperZkHandoffP50Ms", h.p50());
                        line.put("groupkeeperZkHandoffInRtts", h.p50() / rtt);
                    }
                }
            }
            line.put("groupkeeperZkInRtts", gkZk == null ? null : gkZk / rtt);
            line.put("ratioKafkaBestToGroupkeeperZk", gkZk == null || Double.isNaN(best) ? null : best / gkZk);
            s.put(scenario.key, line);
        }
        Map<String, Object> idle = new LinkedHashMap<>();
        for (Map<String, Object> subject : subjects) {
            if (subject.get("idleTraffic") instanceof IdleTraffic t) {
                idle.put((String) subject.get("key"), t.requestsPerMemberPerSecond());
            }
        }
        s.put("idleRequestsPerMemberPerSecond", idle);
        return s;
    }

    private static void printTable(List<Map<String, Object>> subjects, double rtt, PrintStream out) {
        out.println();
        out.println("Rebalance time, ms from the event until every partition is owned once and (Kafka) fetched; "
                + "(c) from expiry detection");
        out.printf(
                "%-64s %-10s %3s  %-22s %10s %10s %11s %14s%n",
                "subject",
                "scenario",
                "n",
                "p50 / p95 / max",
                "owned p50",
                "fetch p50",
                "publish p50",
                "idle req/s/mbr");
        for (Map<String, Object> subject : subjects) {
            if (!"measured".equals(subject.get("status"))) {
                out.printf("%-64s %s%n", subject.get("label"), subject.get("status"));
                continue;
            }
            for (Scenario s : Scenario.values()) {
                Stats total = scenarioStats(subject, s.key, "total");
                if (total.isEmpty()) {
                    continue;
                }
                out.printf(
                        Locale.ROOT,
                        "%-64s %-10s %3d  %-22s %10s %10s %11s %14s%n",
                        subject.get("label"),
                        s.key,
                        total.n(),
                        total.summary(),
                        Fmt.ms(scenarioStats(subject, s.key, "owned").p50()),
                        Fmt.ms(scenarioStats(subject, s.key, "fetch").p50()),
                        Fmt.ms(scenarioStats(subject, s.key, "publish").p50()),
                        subject.get("idleTraffic") instanceof IdleTraffic t && s == Scenario.SCALE_OUT
                                ? String.format(Locale.ROOT, "%.2f", t.requestsPerMemberPerSecond())
                                : "");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void printSummary(Map<String, Object> summary, double rtt, HostCpu.Share host, PrintStream out) {
        out.println();
        out.printf("raw ZooKeeper write round trip p50 in this run: %s ms%n", Fmt.ms(rtt));
        if (host != null) {
            out.println("host CPU over the run: " + host.describe());
        }
        for (Scenario s : Scenario.values()) {
            Map<String, Object> line = (Map<String, Object>) summary.get(s.key);
            if (line == null || line.get("groupkeeperZkP50Ms") == null) {
                continue;
            }
            double zkPart = (Double) line.get("groupkeeperZkP50Ms");
            Object best = line.get("kafkaBestP50Ms");
            out.printf(
                    Locale.ROOT,
                    "%s p50, groupkeeper ZooKeeper part only (no Kafka): %s ms = %s raw ZooKeeper write "
                            + "round trips%s%n",
                    s.key,
                    Fmt.ms(zkPart),
                    Fmt.ratio(zkPart / rtt),
                    best == null
                            ? ""
                            : "; kafka-best (" + line.get("kafkaBestKey") + ") / ZooKeeper part = "
                                    + Fmt.ratio((Double) best / zkPart));
            Object handoff = line.get("groupkeeperZkHandoffP50Ms");
            if (handoff != null) {
                out.printf(
                        Locale.ROOT,
                        "%s p50, groupkeeper handoff (membership event -> every partition owned): %s ms = %s"
                                + " raw ZooKeeper write round trips%n",
                        s.key,
                        Fmt.ms((Double) handoff),
                        Fmt.ratio((Double) handoff / rtt));
            }
        }
        Map<String, Object> a = (Map<String, Object>) summary.getOrDefault(Scenario.SCALE_OUT.key, Map.of());
        Object gk = a.get("groupkeeperP50Ms");
        Object best = a.get("kafkaBestP50Ms");
        Object ratio = a.get("ratioKafkaBestToGroupkeeper");
        if (a.get("ratioKafkaClassicHb100ToGroupkeeper") instanceof Double r100) {
            out.printf(
                    Locale.ROOT,
                    "scale-out p50 against Kafka classic at heartbeat.interval.ms=100: %s ms, ratio=%s%n",
                    Fmt.ms(((Map<String, Double>) a.get("kafkaP50MsBySetting")).get(KafkaSetting.CLASSIC_HB100.key())),
                    Fmt.ratio(r100));
        }
        if (a.get("kafkaBestKey") != null) {
            out.printf("kafka-best is %s%n", a.get("kafkaBestKey"));
        }
        ((Map<String, Double>) summary.getOrDefault("idleRequestsPerMemberPerSecond", Map.of()))
                .forEach((k, v) ->
                        out.printf(Locale.ROOT, "idle coordination traffic, %s: %.2f requests/s per member%n", k, v));
        out.printf(
                Locale.ROOT,
                "scale-out p50: groupkeeper=%s kafka-best=%s ratio=%s%n",
                gk == null ? "n/a" : Fmt.ms((Double) gk),
                best == null ? "n/a" : Fmt.ms((Double) best),
                ratio == null ? "n/a" : Fmt.ratio((Double) ratio));
    }

    private static void writeFiles(Map<String, Object> doc, List<Map<String, Object>> subjects, Path outDir)
            throws IOException {
        Json.write(outDir.resolve("sidebyside.json"), doc);
        StringBuilder csv = new StringBuilder("subject,system,scenario,rep,total_ms,owned_ms,fetch_ms,publish_ms,"
                + "detect_ms,overlaps,zk_watch_events,zk_writes,zk_transactions,zk_reads\n");
        for (Map<String, Object> subject : subjects) {
            if (!(subject.get("scenarios") instanceof Map<?, ?> byScenario)) {
                continue;
            }
            for (Object v : byScenario.values()) {
                @SuppressWarnings("unchecked")
                List<Rep> reps = (List<Rep>) ((Map<String, Object>) v).get("reps");
                for (Rep r : reps) {
                    csv.append(String.format(
                            Locale.ROOT,
                            "%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s%n",
                            subject.get("key"),
                            subject.get("system"),
                            r.scenario(),
                            r.rep(),
                            r.totalMs(),
                            r.ownedMs(),
                            r.fetchMs(),
                            r.publishMs(),
                            r.detectMs(),
                            r.overlaps(),
                            r.zk() == null
                                    ? ",,,"
                                    : r.zk().watchEvents() + "," + r.zk().writes() + "," + r.zk().transactions() + ","
                                            + r.zk().reads()));
                }
            }
        }
        Files.createDirectories(outDir);
        Files.writeString(outDir.resolve("sidebyside.csv"), csv);
    }
}

package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.benchmarks.rebalance.RebalanceSubject.EventMarks;
import io.groupkeeper.benchmarks.rebalance.RebalanceSubject.SubjectMember;
import io.groupkeeper.benchmarks.support.Jit;
import io.groupkeeper.zookeeper.StoreStats;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs the four scenarios of issue 7 item 2 against one {@link RebalanceSubject}, measuring each event with a
 * {@link Probe}:
 * <ul>
 *   <li>(a) {@code scale-out}: a 4th member joins 3 (event: the new member is created);</li>
 *   <li>(b) {@code leave}: that member leaves gracefully (event: the leave is requested);</li>
 *   <li>(c) {@code crash}: the newest of 4 crashes; the figure runs from the system's detection of the session
 *   expiry (a replacement joins between repetitions, unmeasured);</li>
 *   <li>(d) {@code cold-start}: 4 members start at once in a new group.</li>
 * </ul>
 * (a) and (b) alternate in one group, so each repetition starts from the same 3- or 4-member state. Warm-up
 * repetitions are run and dropped until the JVM is warm ({@link WarmUp}): at least {@code warmups}, then more while
 * the JIT compiler is still busy, at most {@code maxWarmups}. Every repetition records how long the JIT compiled
 * during it ({@link Rep#jitMs}).
 */
public final class ScenarioRunner {

    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /** Between a group's settling and its idle window: the last commits and acknowledgements of the join. */
    private static final long IDLE_SETTLE_MS = 1_000;
    /** Warm-up bounds of scenario (c): each of its repetitions waits out a session timeout. */
    private static final int CRASH_MIN_WARMUPS = 10;

    private static final int CRASH_MAX_WARMUPS = 150;

    public enum Scenario {
        SCALE_OUT("a", "scale-out"),
        LEAVE("b", "leave"),
        CRASH("c", "crash"),
        COLD_START("d", "cold-start");

        public final String letter;
        public final String key;

        Scenario(String letter, String key) {
            this.letter = letter;
            this.key = key;
        }

        public static Scenario byLetterOrKey(String s) {
            for (Scenario x : values()) {
                if (x.letter.equals(s) || x.key.equals(s)) {
                    return x;
                }
            }
            throw new IllegalArgumentException(
                    "unknown scenario " + s + " (a|b|c|d or scale-out|leave|crash|cold-start)");
        }
    }

    /**
     * One measured event. Times in ms from the event ((c): from the expiry detection). {@code ownedMs}: until every
     * partition was owned (the coordination part); {@code fetchMs}: from then until every owner had delivered a
     * record; {@code publishMs}: until the new assignment was published (groupkeeper only, else NaN);
     * {@code detectMs} ((c)): from the crash to the detection. {@code zk}: the members' ZooKeeper counters for the
     * event (groupkeeper-zk only). {@code cpuMs}: CPU time the whole JVM used from the event until the rebalance
     * finished; {@code cpuBusy}: that as a share of all cores over the same time (close to 1: waiting for CPU).
     */
    public record Rep(
            String scenario,
            int rep,
            double totalMs,
            double ownedMs,
            double fetchMs,
            double publishMs,
            double detectMs,
            String detectionSource,
            int gains,
            int overlaps,
            StoreStats zk,
            Map<String, Double> phasesMs,
            double jitMs,
            double windowMs,
            double cpuMs,
            double cpuBusy) {

        /** The JIT's compile time during the repetition as a share of its wall time (event to settled + guard). */
        double jitShare() {
            return jitMs / windowMs;
        }
    }

    /** {@code warmups}: the least number of warm-up repetitions; {@code maxWarmups}: the most (see {@link WarmUp}). */
    /** {@code idleMs}: how long the settled group of 3 idles while its coordination traffic is counted (0: not). */
    public record Config(
            int partitions,
            int reps,
            int warmups,
            int maxWarmups,
            long guardMs,
            long timeoutMs,
            long crashTimeoutMs,
            long idleMs) {}

    /** What a repetition started from: the members' ZooKeeper counters and the JIT's compile time. */
    private record Before(long nanos, StoreStats zk, long jitMs) {}

    /**
     * When the warm-up of a scenario ends. One JVM holds ZooKeeper, the broker, the producer and every client on 2
     * cores; for a minute or more after start, and again when a subject exercises code not run before, a C2 compiler
     * thread takes up to a full core, and repetitions measure the compiler as much as the protocol (groupkeeper over
     * Kafka: ~100-400 ms in the first ten, falling to 20-40 ms after sixty). A fixed count either wastes time or
     * stops too early, so: at least {@code warmups} repetitions, then until in each of the last {@link #QUIET_REPS}
     * the JIT compiled for at most {@link #QUIET_JIT_SHARE} of the repetition's wall time, at most
     * {@code maxWarmups}. The rule looks only at repetitions already dropped, never at the one it decides about, and
     * is the same for every subject (a share, not a fixed time, so the seconds-long repetitions of Kafka's default
     * settings are held to the same compiler load as groupkeeper's milliseconds-long ones).
     */
    static final class WarmUp {
        static final double QUIET_JIT_SHARE = 0.05;
        static final int QUIET_REPS = 3;

        private final int min;
        private final int max;
        private int done;
        private int quietStreak;

        WarmUp(int min, int max) {
            this.min = min;
            this.max = Math.max(min, max);
        }

        /** Whether the next repetition is measured. */
        boolean over() {
            return done >= max || done >= min && quietStreak >= Math.min(QUIET_REPS, done);
        }

        /** Records a dropped warm-up repetition's compile share (NaN where the JVM does not say: counts as quiet). */
        void dropped(double jitShare) {
            done++;
            quietStreak = Double.isNaN(jitShare) || jitShare <= QUIET_JIT_SHARE ? quietStreak + 1 : 0;
        }

        int done() {
            return done;
        }

        /** Why measuring began, for the record: the JIT was quiet, or the cap was reached first. */
        String endedBy() {
            return done >= min && quietStreak >= Math.min(QUIET_REPS, done) ? "jit-quiet" : "cap";
        }
    }

    private final RebalanceSubject subject;
    private final Config config;
    private final PrintStream out;
    private final Map<String, Object> overlapReports = new LinkedHashMap<>();
    private final Map<String, WarmUp> warmUps = new LinkedHashMap<>();
    private IdleTraffic idleTraffic;
    private final String runTag =
            Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 24));

    public ScenarioRunner(RebalanceSubject subject, Config config, PrintStream out) {
        this.subject = subject;
        this.config = config;
        this.out = out;
    }

    /** Runs the scenarios asked for, in the order a, b, c, d; (a) and (b) share one loop. */
    public Map<Scenario, List<Rep>> run(Collection<Scenario> scenarios) throws InterruptedException {
        Map<Scenario, List<Rep>> results = new EnumMap<>(Scenario.class);
        if (scenarios.contains(Scenario.SCALE_OUT) || scenarios.contains(Scenario.LEAVE)) {
            List<Rep> a = new ArrayList<>();
            List<Rep> b = new ArrayList<>();
            runJoinLeave(a, b);
            if (scenarios.contains(Scenario.SCALE_OUT)) {
                results.put(Scenario.SCALE_OUT, a);
            }
            if (scenarios.contains(Scenario.LEAVE)) {
                results.put(Scenario.LEAVE, b);
            }
        }
        if (scenarios.contains(Scenario.CRASH)) {
            results.put(Scenario.CRASH, runCrash());
        }
        if (scenarios.contains(Scenario.COLD_START)) {
            results.put(Scenario.COLD_START, runColdStart());
        }
        return results;
    }

    /** (a) and (b) alternating in one group. */
    private void runJoinLeave(List<Rep> scaleOut, List<Rep> leave) throws InterruptedException {
        String group = groupName("ab");
        subject.prepareGroup(group, false);
        Probe probe = new Probe(config.partitions());
        List<SubjectMember> members = new ArrayList<>();
        try {
            probe.arm(System.nanoTime(), List.of("m0", "m1", "m2"), subject.consumesRecords());
            for (String n : List.of("m0", "m1", "m2")) {
                members.add(subject.start(group, n, false, probe));
            }
            settle(probe, "3 members");
            if (config.idleMs() > 0) {
                Thread.sleep(IDLE_SETTLE_MS);
                idleTraffic = IdleTraffic.measure(subject, 3, config.idleMs());
                out.println("    " + idleTraffic.describe());
            }
            WarmUp warm = new WarmUp(config.warmups(), config.maxWarmups());
            for (int i = 0; scaleOut.size() < config.reps(); i++) {
                boolean measured = warm.over();
                String name = "j" + i;
                List<String> live = new ArrayList<>(List.of("m0", "m1", "m2"));
                live.add(name);
                EventMarks marks = subject.beforeEvent(group, null);
                Before before = before();
                probe.arm(before.nanos(), live, subject.consumesRecords());
                SubjectMember joiner = subject.start(group, name, false, probe);
                Rep a = measure(Scenario.SCALE_OUT, i, measured, probe, marks, 0, "", before, config.timeoutMs());

                marks = subject.beforeEvent(group, null);
                Before beforeLeave = before();
                probe.arm(beforeLeave.nanos(), List.of("m0", "m1", "m2"), subject.consumesRecords());
                joiner.leave();
                Rep b = measure(Scenario.LEAVE, i, measured, probe, marks, 0, "", beforeLeave, config.timeoutMs());
                if (measured) {
                    scaleOut.add(a);
                    leave.add(b);
                } else {
                    warm.dropped(Math.max(a.jitShare(), b.jitShare()));
                }
                joiner.awaitStopped(30_000);
            }
            warmedUp(warm, Scenario.SCALE_OUT, Scenario.LEAVE);
        } finally {
            report("scale-out+leave", probe);
            stopAll(members);
        }
    }

    private List<Rep> runCrash() throws InterruptedException {
        String group = groupName("c");
        subject.prepareGroup(group, true);
        Probe probe = new Probe(config.partitions());
        List<SubjectMember> members = new ArrayList<>();
        List<String> names = new ArrayList<>(List.of("m0", "m1", "m2", "m3"));
        List<Rep> reps = new ArrayList<>();
        try {
            probe.arm(System.nanoTime(), names, subject.consumesRecords());
            for (String n : names) {
                members.add(subject.start(group, n, true, probe));
            }
            settle(probe, "4 members");
            // Each crash waits out a session timeout (10 s by default): its warm-up is bounded to 10-150 repetitions,
            // not the other scenarios' 150-250 (which would add ~25 min per subject to a full run).
            WarmUp warm = new WarmUp(
                    Math.min(config.warmups(), CRASH_MIN_WARMUPS), Math.min(config.maxWarmups(), CRASH_MAX_WARMUPS));
            for (int i = 0; reps.size() < config.reps(); i++) {
                boolean measured = warm.over();
                SubjectMember victim = members.get(members.size() - 1);
                List<String> live = new ArrayList<>(names);
                live.remove(victim.name());
                EventMarks marks = subject.beforeEvent(group, victim);
                Before before = before();
                probe.arm(before.nanos(), live, subject.consumesRecords());
                probe.kill(victim.name());
                victim.crash();
                Rep c = measure(
                        Scenario.CRASH,
                        i,
                        measured,
                        probe,
                        marks,
                        config.crashTimeoutMs(),
                        "crash + session timeout (latest possible detection)",
                        before,
                        config.timeoutMs() + config.crashTimeoutMs());
                if (measured) {
                    reps.add(c);
                } else {
                    warm.dropped(c.jitShare());
                }
                victim.awaitStopped(5_000);
                members.remove(victim);
                names.remove(victim.name());
                String replacement = "r" + i;
                names.add(replacement);
                probe.arm(System.nanoTime(), names, subject.consumesRecords());
                members.add(subject.start(group, replacement, true, probe));
                settle(probe, "replacement " + replacement);
            }
            warmedUp(warm, Scenario.CRASH);
        } finally {
            report("crash", probe);
            stopAll(members);
        }
        return reps;
    }

    private List<Rep> runColdStart() throws InterruptedException {
        List<Rep> reps = new ArrayList<>();
        WarmUp warm = new WarmUp(config.warmups(), config.maxWarmups());
        for (int i = 0; reps.size() < config.reps(); i++) {
            boolean measured = warm.over();
            String group = groupName("d" + i);
            subject.prepareGroup(group, false);
            Probe probe = new Probe(config.partitions());
            List<String> names = List.of("m0", "m1", "m2", "m3");
            List<SubjectMember> members = new ArrayList<>();
            try {
                Before before = before();
                probe.arm(before.nanos(), names, subject.consumesRecords());
                for (String n : names) {
                    members.add(subject.start(group, n, false, probe));
                }
                Rep d = measure(
                        Scenario.COLD_START,
                        i,
                        measured,
                        probe,
                        RebalanceSubject.EventMarks.NONE,
                        0,
                        "",
                        before,
                        config.timeoutMs());
                if (measured) {
                    reps.add(d);
                } else {
                    warm.dropped(d.jitShare());
                }
            } finally {
                if (probe.overlaps() > 0) {
                    report("cold-start " + i, probe);
                }
                stopAll(members);
            }
        }
        warmedUp(warm, Scenario.COLD_START);
        return reps;
    }

    private Before before() {
        StoreStats zk = zkStats();
        long jit = Jit.compileMs();
        return new Before(System.nanoTime(), zk, jit);
    }

    private Rep measure(
            Scenario s,
            int i,
            boolean measured,
            Probe probe,
            EventMarks marks,
            long sessionTimeoutMs,
            String fallbackSource,
            Before before,
            long timeoutMs)
            throws InterruptedException {
        long t = before.nanos();
        Probe.Sample sample = probe.await(config.guardMs(), timeoutMs);
        long jitAfter = Jit.compileMs();
        double windowMs = (System.nanoTime() - t) / 1e6;
        if (sample == null) {
            throw new IllegalStateException(subject.key() + " " + s.key + " repetition " + i + " did not finish within "
                    + timeoutMs + " ms: " + probe.describe());
        }
        StoreStats after = zkStats();
        StoreStats zk = before.zk() == null || after == null ? null : after.minus(before.zk());
        double jitMs = before.jitMs() < 0 || jitAfter < 0 ? Double.NaN : jitAfter - before.jitMs();
        double shift = 0;
        double detectMs = Double.NaN;
        String source = "";
        if (s == Scenario.CRASH) {
            long detected = marks.expiryDetectedAt();
            source = marks.expirySource();
            if (detected == 0) {
                detected = t + sessionTimeoutMs * 1_000_000L;
                source = fallbackSource;
            }
            detectMs = (detected - t) / 1e6;
            shift = detectMs;
        }
        double publishMs = marks.publishedAt() == 0 ? Double.NaN : (marks.publishedAt() - t) / 1e6 - shift;
        Rep rep = new Rep(
                s.key,
                i,
                sample.totalMs() - shift,
                Math.max(0, sample.ownedMs() - shift),
                sample.fetchMs() + Math.min(0, sample.ownedMs() - shift),
                publishMs,
                detectMs,
                source,
                sample.gains(),
                sample.overlaps(),
                zk,
                phasesMs(marks, t, shift),
                jitMs,
                windowMs,
                sample.cpuMs(),
                sample.cpuMs() / (sample.totalMs() * CORES));
        StringBuilder phases = new StringBuilder();
        rep.phasesMs().forEach((k, v) -> phases.append(String.format(Locale.ROOT, ", %s %.1f", k, v)));
        out.printf(
                "    %-10s %s%2d: %8.1f ms  (owned %.1f, fetch %.1f%s%s%s; CPU %.0f%%; JIT %.0f ms in %.0f)%n",
                s.key,
                measured ? "#" : "w",
                i,
                rep.totalMs(),
                rep.ownedMs(),
                rep.fetchMs(),
                phases,
                Double.isNaN(publishMs) ? "" : String.format(", publish %.1f", publishMs),
                s == Scenario.CRASH ? String.format(", detected %.0f ms after crash", detectMs) : "",
                100 * rep.cpuBusy(),
                jitMs,
                windowMs);
        return rep;
    }

    private void warmedUp(WarmUp warm, Scenario... scenarios) {
        for (Scenario s : scenarios) {
            warmUps.put(s.key, warm);
        }
        out.printf("    warm-up: %d repetitions dropped (%s)%n", warm.done(), warm.endedBy());
    }

    /** Per scenario: how many warm-up repetitions ran before measuring, and why measuring began. */
    public Map<String, Object> warmUp(Scenario s) {
        WarmUp w = warmUps.get(s.key);
        return w == null ? Map.of() : Map.of("repetitions", w.done(), "endedBy", w.endedBy());
    }

    /** The settled group's idle coordination traffic, if measured ({@link Config#idleMs()}). */
    public IdleTraffic idleTraffic() {
        return idleTraffic;
    }

    /** Per group run: the probe's overlap counters by kind and the first few, for the record. */
    public Map<String, Object> overlapReports() {
        return overlapReports;
    }

    private void report(String what, Probe probe) {
        overlapReports.put(what, probe.overlapReport());
    }

    private static Map<String, Double> phasesMs(EventMarks marks, long t, double shift) {
        Map<String, Double> m = new LinkedHashMap<>();
        marks.phases().forEach((k, v) -> m.put(k, (v - t) / 1e6 - shift));
        return m;
    }

    private void settle(Probe probe, String what) throws InterruptedException {
        if (probe.await(config.guardMs(), config.timeoutMs()) == null) {
            throw new IllegalStateException(subject.key() + ": " + what + " did not settle within " + config.timeoutMs()
                    + " ms: " + probe.describe());
        }
    }

    private StoreStats zkStats() {
        if (subject instanceof GroupKeeperKafkaSubject gkk) {
            return gkk.stats();
        }
        return subject instanceof GroupKeeperZkSubject gk ? gk.stats() : null;
    }

    private static void stopAll(List<SubjectMember> members) {
        for (SubjectMember m : members) {
            m.leave();
        }
        for (SubjectMember m : members) {
            m.awaitStopped(30_000);
        }
    }

    private String groupName(String what) {
        return "bench-" + subject.key() + "-" + what + "-" + runTag;
    }
}

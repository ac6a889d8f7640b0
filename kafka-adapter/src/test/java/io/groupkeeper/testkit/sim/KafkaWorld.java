package io.groupkeeper.testkit.sim;

import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.kafka.sim.KafkaModel;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The world of {@link AdapterSimulation} and {@link ContainerSimulation}: the clock, the ZooKeeper model (lagging
 * followers), the scheduler, the {@link KafkaModel} with topic {@value #TOPIC}, the members on processes of their own
 * ({@link WorldProcess}), production every 100 ms, testkit's faults applied to them, healing after {@link #RUN_MS} and
 * the run until the checker sees the partitions caught up (or {@link #SETTLE_MS} more). A simulation keeps its members
 * and its checks; its seeded draws come in the same order as when each had a world of its own.
 *
 * @param <M> the simulation's member
 */
final class KafkaWorld<M extends KafkaWorld.Member> {

    static final String GROUP = "sim";
    static final String TOPIC = "t";
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    static final long RUN_MS = 15_000;
    static final long SETTLE_MS = 60_000;
    static final int MAX_MEMBERS = 5;
    static final int MAX_PARTITIONS = 8;
    static final long MAX_STEPS = Long.getLong("groupkeeper.simulation.maxSteps", 400_000L);

    /** A simulation's member on its process: what the world needs of it. */
    abstract static class Member {
        final String id;
        final WorldProcess proc;
        /** Its start failed (final, as for what ships). */
        boolean gaveUp;
        /** A LEAVE came: it closes (or stops) gracefully. */
        boolean leaving;

        Member(String id, WorldProcess proc) {
            this.id = id;
            this.proc = proc;
        }

        boolean gone() {
            return gaveUp || leaving;
        }

        abstract boolean leads();

        /** Starts it on its process. */
        abstract void start();

        /** A LEAVE: it closes gracefully. */
        abstract void leave();

        /** The thread a STALL slows down (null: none yet). */
        abstract String stallTag();
    }

    /** What a simulation does with a fault the world leaves to it; false: not simulated there. */
    interface OwnFaults {
        boolean apply(Fault f, int partition);
    }

    final long seed;
    final List<Fault> plan;
    final ManualClock clock = new ManualClock();
    final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    final SimScheduler scheduler;
    final SimLog log;
    final ScheduledExecutorService sim;
    final KafkaModel kafka;
    final List<M> members = new ArrayList<>();
    int partitions;
    boolean producing = true;
    /** The records' draws (how many per partition, what a simulation draws for each). */
    final Random produce;

    /** Kafka's retention deletes the start of the input's partitions during the run ({@link #retention}). */
    private boolean retention;

    private final Set<Long> exclusiveHangs = new HashSet<>();
    private final BiFunction<String, String, M> newMember;
    private int nextId;

    /**
     * {@code pollsWait}: the model's clock ({@link SimKafkaClients#time}); {@code newMember}: a member of the given id on
     * a new process of the given tag.
     */
    KafkaWorld(
            long seed,
            List<Fault> plan,
            boolean pollsWait,
            KafkaModel.Faults faults,
            BiFunction<String, String, M> newMember) {
        this.seed = seed;
        this.plan = plan;
        this.newMember = newMember;
        this.scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        this.log = new SimLog(scheduler);
        this.sim = scheduler.executor("sim");
        this.produce = new Random(seed * 31 + 7);
        this.partitions = 3 + (int) Math.floorMod(seed, 4);
        zk.lagFollowers(2, new Random(seed * 17 + 3), 5);
        zk.simulatedThreads(scheduler.threads());
        this.kafka =
                new KafkaModel(new Random(seed * 7 + 1), SimKafkaClients.time(scheduler, clock, pollsWait), faults);
    }

    static List<Fault> plan(long seed, int faults) {
        return FaultPlan.generate(seed, faults, RUN_MS, SESSION_TIMEOUT.toMillis(), Set.of());
    }

    /**
     * Kafka's retention in this world: 0 to 2 times during the run, a partition's records before a drawn offset are
     * deleted (half the time anywhere in the log, half the time within 4 of its end, past where a member that keeps up
     * stands), from draws of their own. An owner whose position falls below the log start is moved by the adapter's
     * out-of-range policy.
     */
    void retention() {
        this.retention = true;
    }

    /** Hangs the threads run alone (from a contended run before). */
    void exclusiveHangs(Set<Long> hangs) {
        exclusiveHangs.addAll(hangs);
        scheduler.threads().exclusiveHangs(hangs);
    }

    /**
     * Runs the schedule ({@code bounded}); a contended hang runs it again from its start ({@code again}: a new world of
     * the same seed and plan with those hangs exclusive), as testkit's.
     */
    <R> R run(Supplier<R> bounded, Function<Set<Long>, R> again) {
        SimThreads.Contended contended;
        try {
            return bounded.get();
        } catch (SimThreads.Contended c) {
            contended = c;
        } finally {
            scheduler.close();
        }
        Set<Long> hangs = new HashSet<>(exclusiveHangs);
        if (!hangs.add(contended.hang) || hangs.size() > 50) {
            throw new IllegalStateException(
                    "seed " + seed + ": hang " + contended.hang + " contended again", contended);
        }
        return again.apply(hangs);
    }

    /**
     * The schedule: {@code start} as the simulation (topics, the first members), production from 50 ms (a batch of
     * 0 to 4 records per partition each 100 ms, {@code record} appends one), the plan's faults ({@code own}: those
     * the world leaves to the simulation), healing at {@link #RUN_MS} ({@code heal} first); then until {@code checker}
     * sees every partition caught up, or settled at the end.
     */
    void runBounded(
            AdapterChecker checker, Runnable start, Consumer<TopicPartition> record, OwnFaults own, Runnable heal) {
        Instant begin = clock.instant();
        scheduler.runAs("sim", start);
        sim.schedule(() -> produce(checker, record), 50, TimeUnit.MILLISECONDS);
        for (Fault f : plan) {
            sim.schedule(() -> apply(f, checker, own), f.atMillis(), TimeUnit.MILLISECONDS);
        }
        sim.schedule(() -> heal(heal), RUN_MS, TimeUnit.MILLISECONDS);
        if (retention) {
            scheduleRetention(checker);
        }
        Instant end = begin.plusMillis(RUN_MS + SETTLE_MS);
        long nextLook = begin.toEpochMilli() + RUN_MS + 1_000;
        boolean caughtUp = false;
        while (!caughtUp && scheduler.runNext(end)) {
            if (scheduler.steps() > MAX_STEPS) {
                checker.violations().add("simulator: more than " + MAX_STEPS + " steps (a livelock)");
                break;
            }
            if (!producing && clock.millis() >= nextLook) {
                nextLook = clock.millis() + 500;
                caughtUp = checker.caughtUp(partitions);
            }
        }
        if (!caughtUp && checker.violations().isEmpty()) {
            checker.settled(partitions);
        }
    }

    private void produce(AdapterChecker checker, Consumer<TopicPartition> record) {
        if (!producing) {
            return;
        }
        for (int p = 0; p < partitions; p++) {
            int n = produce.nextInt(5);
            TopicPartition tp = new TopicPartition(TOPIC, p);
            for (int i = 0; i < n; i++) {
                record.accept(tp);
            }
            checker.produced(p, kafka.logEnd(tp));
        }
        sim.schedule(() -> produce(checker, record), 100, TimeUnit.MILLISECONDS);
    }

    private void scheduleRetention(AdapterChecker checker) {
        Random r = new Random(seed * 13 + 5);
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            long at = 500 + r.nextInt((int) RUN_MS - 500);
            int pick = r.nextInt(MAX_PARTITIONS);
            boolean nearEnd = r.nextBoolean();
            double share = r.nextDouble();
            int back = r.nextInt(5);
            sim.schedule(() -> retain(checker, pick % partitions, nearEnd, share, back), at, TimeUnit.MILLISECONDS);
        }
    }

    private void retain(AdapterChecker checker, int partition, boolean nearEnd, double share, int back) {
        TopicPartition tp = new TopicPartition(TOPIC, partition);
        long start = kafka.logStart(tp);
        long end = kafka.logEnd(tp);
        long to = nearEnd ? end - back : start + (long) Math.ceil((end - start) * share);
        if (to <= start) {
            return;
        }
        kafka.deleteBefore(tp, to);
        checker.retained(partition, to);
        log.event("retention: " + TOPIC + "-" + partition + " starts at " + to + " (log end " + end + ")");
    }

    List<M> live() {
        return members.stream().filter(m -> !m.proc.crashed && !m.gone()).toList();
    }

    void join() {
        String id = "m" + (++nextId);
        M m = newMember.apply(id, "p" + nextId);
        members.add(m);
        log.event(id + " joins");
        m.start();
    }

    /** A member whose start failed: a new one if none is left after healing. */
    void gaveUp() {
        if (live().isEmpty() && !producing) {
            sim.execute(this::join);
        }
    }

    private void apply(Fault f, AdapterChecker checker, OwnFaults own) {
        List<M> live = live();
        M m = live.isEmpty() ? null : live.get(f.member() % live.size());
        int partition = f.partition() % partitions;
        log.event("fault " + f.kind() + (m == null ? "" : " " + m.id) + " " + TOPIC + "-" + partition);
        switch (f.kind()) {
            case JOIN, JOIN_LOST_REPLY -> {
                if (live.size() < MAX_MEMBERS) {
                    join();
                }
            }
            case LEAVE -> {
                if (m != null && live.size() > 1) {
                    m.leave();
                }
            }
            case CRASH -> crash(m);
            case LEADER_CRASH ->
                crash(live.stream().filter(Member::leads).findFirst().orElse(null));
            case EXPIRE -> {
                if (m != null) {
                    m.proc.store.expireSession();
                }
            }
            case DISCONNECT -> {
                if (m != null) {
                    m.proc.cut(f.durationMillis());
                }
            }
            case PAUSE -> {
                if (m != null) {
                    m.proc.pause(f.durationMillis());
                }
            }
            case STALL -> {
                if (m != null && m.stallTag() != null) {
                    m.proc.stall(m.stallTag(), f.durationMillis());
                }
            }
            case GROW -> {
                if (partitions < MAX_PARTITIONS) {
                    partitions = Math.min(MAX_PARTITIONS, partitions + 1 + (int) (f.value() % 2));
                    kafka.createTopic(TOPIC, partitions);
                    log.event("topic " + TOPIC + " grows to " + partitions + " partitions");
                }
            }
            case WRITE_FAILS -> {
                if (m != null) {
                    m.proc.store.failNextWrites(1 + (int) (f.value() % 3), f.value() % 2 == 0);
                }
            }
            case PUBLISH_CUT ->
                live.stream().filter(Member::leads).findFirst().ifPresent(l -> l.proc.store.cutNextPublish());
            default -> {
                if (!own.apply(f, partition)) {
                    log.event("(not simulated here: " + f.kind() + ")");
                }
            }
        }
    }

    /** An operator's RESET (just below the log end) or EDIT (anywhere up to it): the value, from the fault's. */
    static long resetValue(Fault f, long logEnd) {
        return f.kind() == Fault.Kind.RESET ? Math.max(0, logEnd - 1 - f.value() % 40) : f.value() % (logEnd + 1);
    }

    /** Whether {@code value} is in the partition's last Kafka commit's {@code groupkeeper:zk=} values and not its offset. */
    static boolean namedByKafkasMetadata(KafkaModel kafka, int partition, long value) {
        java.util.Optional<org.apache.kafka.clients.consumer.OffsetAndMetadata> k =
                kafka.committed(GROUP, new org.apache.kafka.common.TopicPartition(TOPIC, partition));
        if (k.isEmpty() || k.get().offset() == value || k.get().metadata() == null) {
            return false;
        }
        String m = k.get().metadata();
        int at = m.indexOf("zk=");
        if (at < 0) {
            return false;
        }
        for (String v : m.substring(at + 3).split("[,;\\s]")) {
            if (v.equals(Long.toString(value))) {
                return true;
            }
        }
        return false;
    }

    static String offsetPath(int partition) {
        return ZkLayout.offset(GROUP, new io.groupkeeper.TopicPartition(TOPIC, partition));
    }

    /** A process dies; not the last one with a live member. */
    private void crash(M m) {
        if (m == null || live().size() <= 1) {
            return;
        }
        m.proc.crash();
    }

    private void heal(Runnable first) {
        log.event("heal");
        producing = false;
        first.run();
        for (M m : members) {
            m.proc.cutUntil = 0;
            m.proc.resume();
        }
        if (live().isEmpty()) {
            join();
        }
    }
}

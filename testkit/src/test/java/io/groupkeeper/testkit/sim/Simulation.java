package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One simulated schedule: the real member, leader and store code (the in-memory store over a model of ZooKeeper) of a
 * group of processes, their user code, a producer, and the faults of a {@link FaultPlan}, every thread stepped by one
 * seeded {@link SimScheduler} on a simulated clock. A run is a pure function of its seed and plan. The invariants are
 * checked as things happen ({@link SimChecker}); after the faults the world heals (paused processes resume, cut
 * connections come back, typos are repaired), the producer stops, and the settled group is checked once more.
 */
final class Simulation {

    static final String GROUP = "sim";
    static final String TOPIC = "t";
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    static final long RUN_MS = 15_000;
    static final long SETTLE_MS = 30_000;
    static final int MAX_MEMBERS = 6;
    static final int MAX_PARTITIONS = 12;

    /** What one schedule did. */
    record Result(long seed, List<Fault> plan, long steps, List<String> violations, long zombieRecords, long hash,
                  String tail) {
        boolean failed() {
            return !violations.isEmpty();
        }
    }

    private final long seed;
    private final List<Fault> plan;
    private final ManualClock clock = new ManualClock();
    private final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    private final SimScheduler scheduler;
    private final SimLog log;
    private final SimChecker checker;
    private final List<SimMember> members = new ArrayList<>();
    private final Set<TopicPartition> corrupt = new LinkedHashSet<>();
    /** Typos the heal does not repair (one in three): repaired only once the rest of the group has settled. */
    private final Set<TopicPartition> lingering = new LinkedHashSet<>();
    private final Random produce;
    private final ScheduledExecutorService simExecutor;
    private InMemoryCoordinationStore admin;
    private GroupStore adminGroup;
    private int partitions;
    private int nextId;
    private boolean producing = true;

    Simulation(long seed, List<Fault> plan) {
        this.seed = seed;
        this.plan = plan;
        this.produce = new Random(seed * 31 + 7);
        this.scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        this.log = new SimLog(scheduler);
        this.checker = new SimChecker(zk, GROUP, log);
        this.checker.members(members);
        this.simExecutor = scheduler.executor("sim");
        this.partitions = 3 + (int) Math.floorMod(seed, 4);
    }

    static Result run(long seed, int faults) {
        return new Simulation(seed, FaultPlan.generate(seed, faults, RUN_MS, SESSION_TIMEOUT.toMillis())).run();
    }

    Result run() {
        Instant start = clock.instant();
        scheduler.runAs("sim", () -> {
            admin = InMemoryCoordinationStore.builder(zk).sessionTimeout(SESSION_TIMEOUT)
                    .eventExecutor(scheduler.executor("admin")).build();
            admin.start();
            admin.topics().ensureTopic(TOPIC, partitions);
            adminGroup = admin.group(GROUP);
            checker.targets(id -> adminGroup.readTarget(id, null).map(t -> (Set<TopicPartition>) t.partitions())
                    .orElse(Set.of()));
            for (int i = 0; i < 3; i++) {
                join();
            }
        });
        simExecutor.schedule(this::produce, 50, TimeUnit.MILLISECONDS);
        for (Fault f : plan) {
            simExecutor.schedule(() -> apply(f), f.atMillis(), TimeUnit.MILLISECONDS);
        }
        simExecutor.schedule(this::heal, RUN_MS, TimeUnit.MILLISECONDS);
        settle(start.toEpochMilli() + RUN_MS + 2_000, start.plusMillis(RUN_MS + SETTLE_MS), lingering);
        if (checker.violations().isEmpty() && !lingering.isEmpty()) {
            // Typos the heal left in place: every other partition must have settled around them ("other partitions
            // are unaffected"); then they are repaired too and the whole group must settle.
            Set<TopicPartition> still = Set.copyOf(lingering);
            scheduler.runAs("sim", () -> checker.settled(partitions, TOPIC, this::committed, still));
            scheduler.runAs("sim", () -> new ArrayList<>(lingering).forEach(this::repair));
            lingering.clear();
            settle(clock.millis() + 2_000, clock.instant().plusMillis(SETTLE_MS), Set.of());
        }
        if (checker.violations().isEmpty()) {
            scheduler.runAs("sim", () -> checker.settled(partitions, TOPIC, this::committed, Set.of()));
        }
        return new Result(seed, plan, scheduler.steps(), List.copyOf(checker.violations()), checker.zombieRecords(),
                log.hash(), log.tail());
    }

    /** Runs until the group looks settled around {@code excluded} (checked every simulated half second) or {@code end}. */
    private void settle(long firstLook, Instant end, Set<TopicPartition> excluded) {
        long nextLook = firstLook;
        boolean settled = false;
        while (!settled && scheduler.runNext(end) && checker.violations().isEmpty()) {
            if (clock.millis() >= nextLook) {
                nextLook = clock.millis() + 500;
                boolean[] now = {false};
                Set<TopicPartition> ex = Set.copyOf(excluded);
                scheduler.runAs("sim", () -> now[0] = checker.looksSettled(partitions, TOPIC, this::committed, ex));
                settled = now[0];
            }
        }
    }

    private java.util.OptionalLong committed(TopicPartition tp) {
        return adminGroup.readOffset(tp, null).offset();
    }

    // ------------------------------------------------------------------ the world

    private void produce() {
        if (!producing) {
            return;
        }
        for (int p = 0; p < partitions; p++) {
            checker.produced(new TopicPartition(TOPIC, p), produce.nextInt(5));
        }
        simExecutor.schedule(this::produce, 100, TimeUnit.MILLISECONDS);
    }

    private void join() {
        SimMember m = new SimMember("m" + (++nextId), zk, scheduler, checker, log, SESSION_TIMEOUT, GROUP, TOPIC);
        members.add(m);
        log.event(m.id + " joins");
        m.start();
    }

    private List<SimMember> live() {
        return members.stream().filter(m -> m.alive() && !m.leaving).toList();
    }

    /** Live members not paused or cut off right now: the ones a fault may pick. */
    private List<SimMember> available() {
        return live().stream().filter(m -> !scheduler.isFrozen(m.tag) && !scheduler.isFrozen(m.appTag)
                && m.store.isConnected()).toList();
    }

    private void apply(Fault f) {
        List<SimMember> candidates = available();
        SimMember m = candidates.isEmpty() ? null : candidates.get(f.member() % candidates.size());
        TopicPartition tp = new TopicPartition(TOPIC, f.partition() % partitions);
        String path = checker.offsetPath(tp);
        log.event("fault " + f.kind() + (m == null ? "" : " " + m.id) + " " + tp);
        switch (f.kind()) {
            case JOIN -> {
                if (live().size() < MAX_MEMBERS) {
                    join();
                }
            }
            case LEAVE -> {
                if (m != null && live().size() > 1) {
                    m.leave();
                }
            }
            case CRASH -> crash(m);
            case LEADER_CRASH -> crash(candidates.stream().filter(SimMember::isLeader).findFirst().orElse(null));
            case EXPIRE -> {
                if (m != null) {
                    m.store.expireSession();
                }
            }
            case DISCONNECT -> {
                if (m != null) {
                    m.store.disconnect();
                    simExecutor.schedule(() -> reconnect(m), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case PAUSE -> {
                if (m != null) {
                    scheduler.freeze(m.tag);
                    scheduler.freeze(m.appTag);
                    m.store.disconnect();
                    simExecutor.schedule(() -> resume(m), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case STALL -> {
                if (m != null) {
                    scheduler.freeze(m.appTag);
                    simExecutor.schedule(() -> scheduler.unfreeze(m.appTag), f.durationMillis(),
                            TimeUnit.MILLISECONDS);
                }
            }
            case RESET, EDIT -> {
                if (!corrupt.contains(tp)) {
                    long end = checker.logEnd(tp);
                    long value = f.kind() == Fault.Kind.RESET ? Math.max(0, end - 1 - f.value() % 40)
                            : f.value() % (end + 1);
                    zk.setOffset(path, value);
                    checker.external(tp, f.kind().name().toLowerCase(), value);
                }
            }
            case TYPO -> {
                zk.writeGarbage(path, "1200O");
                corrupt.add(tp);
                checker.external(tp, "typo", null);
                if (f.value() % 3 == 0) {
                    lingering.add(tp);
                } else {
                    simExecutor.schedule(() -> repair(tp), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case DELETE -> {
                if (zk.exists(path)) {
                    zk.delete(path);
                    corrupt.remove(tp);
                    lingering.remove(tp);
                    checker.external(tp, "delete", null);
                }
            }
            case WRITE_FAILS -> {
                if (m != null) {
                    m.store.failNextWrites(1 + (int) (f.value() % 3), f.value() % 2 == 0);
                }
            }
            case PUBLISH_CUT -> candidates.stream().filter(SimMember::isLeader).findFirst()
                    .ifPresent(l -> l.store.cutNextPublish());
            case GROW -> {
                if (partitions < MAX_PARTITIONS) {
                    partitions = Math.min(MAX_PARTITIONS, partitions + 1 + (int) (f.value() % 2));
                    admin.topics().ensureTopic(TOPIC, partitions);
                }
            }
        }
    }

    private void crash(SimMember m) {
        if (m == null || live().size() <= 1) {
            return;
        }
        m.crashed = true;
        scheduler.freeze(m.tag);
        scheduler.freeze(m.appTag);
        m.store.disconnect();
        scheduler.kill(m.tag);
        scheduler.kill(m.appTag);
    }

    private void reconnect(SimMember m) {
        if (!m.crashed && !m.store.isConnected()) {
            m.store.reconnect();
        }
    }

    private void resume(SimMember m) {
        if (m.crashed) {
            return;
        }
        scheduler.unfreeze(m.tag);
        scheduler.unfreeze(m.appTag);
        reconnect(m);
    }

    private void repair(TopicPartition tp) {
        if (corrupt.remove(tp)) {
            lingering.remove(tp);
            long value = checker.logEnd(tp) / 2;
            zk.setOffset(checker.offsetPath(tp), value);
            checker.external(tp, "repair", value);
        }
    }

    /** The end of the faults: everything paused resumes, every cut heals, every typo is repaired, production stops. */
    private void heal() {
        log.event("heal");
        producing = false;
        for (SimMember m : members) {
            if (!m.crashed) {
                scheduler.unfreeze(m.appTag);
                resume(m);
            }
        }
        corrupt.stream().filter(tp -> !lingering.contains(tp)).toList().forEach(this::repair);
        if (live().isEmpty()) {
            join();
        }
    }
}

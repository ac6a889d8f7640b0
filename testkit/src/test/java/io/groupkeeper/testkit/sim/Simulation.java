package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
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
 *
 * <p>About 730 lines, about 150 of them the faults' effects ({@link #apply}): one switch over every fault kind reads
 * better than a class per kind, each a few lines.
 */
final class Simulation {

    static final String GROUP = "sim";
    static final String TOPIC = "t";
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    static final long RUN_MS = 15_000;
    static final long SETTLE_MS = 30_000;
    static final int MAX_MEMBERS = 6;
    static final int MAX_PARTITIONS = 12;
    /**
     * Whether one disconnection in three of a process running normally is silent (noticed at two thirds of the session
     * timeout): {@code -Dgroupkeeper.simulation.silentCuts=true}. Off by default, so the default schedules stay the same:
     * it was written to find issue 34's finding 4 (a handed-over final offset forgotten after a new session; seed 47),
     * fixed since.
     */
    static final boolean SILENT_CUTS =
            Boolean.parseBoolean(System.getProperty("groupkeeper.simulation.silentCuts", "false"));
    /**
     * Whether clients read from two followers up to 5 transactions behind (seeded):
     * {@code -Dgroupkeeper.simulation.followerLag=false} reads from the leader.
     */
    static final boolean FOLLOWER_LAG =
            Boolean.parseBoolean(System.getProperty("groupkeeper.simulation.followerLag", "true"));

    /**
     * A schedule takes a few thousand steps at most (about 600 on average); one that takes more than this is stuck
     * in a livelock (tasks that keep submitting each other without simulated time moving, or a retry loop that
     * never ends) and fails with its seed: {@code -Dgroupkeeper.simulation.maxSteps=N}.
     */
    static final long MAX_STEPS = Long.getLong("groupkeeper.simulation.maxSteps", 200_000L);

    /**
     * The schedules running now, by thread: what a watchdog ({@code SimulationTest}) reads to name a schedule that
     * stopped moving at all (a thread blocked in the code under test: the scheduler's one thread cannot run the task
     * that would release it).
     */
    static final java.util.concurrent.ConcurrentHashMap<Thread, Running> RUNNING =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** A schedule that is running: its seed, when it began (wall clock) and how far it got. */
    record Running(long seed, long startedNanos, SimScheduler scheduler, ManualClock clock) {}

    /** What one schedule did. */
    /** One schedule's outcome; {@code silentCuts}: whether it ran with them (a shrink or replay runs the same way). */
    record Result(
            long seed,
            List<Fault> plan,
            long steps,
            List<String> violations,
            long zombieRecords,
            long hash,
            String tail,
            boolean silentCuts) {
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
    private final List<SimProcess> processes = new ArrayList<>();
    /** The extra fault kinds of this run ({@link FaultPlan#extraKinds()}); static members if a restart is among them. */
    private final Set<Fault.Kind> extra;

    private final Set<TopicPartition> corrupt = new LinkedHashSet<>();
    /** Typos the heal does not repair (one in three): repaired only once the rest of the group has settled. */
    private final Set<TopicPartition> lingering = new LinkedHashSet<>();

    private final Random produce;
    private final ScheduledExecutorService simExecutor;
    private InMemoryCoordinationStore admin;
    private GroupStore adminGroup;
    private int partitions;
    private int nextId;
    private int nextProcess;
    private int incarnations;
    private boolean producing = true;
    /** Whether the faults are over ({@link #heal}): a failed start then leaving no one live is replaced. */
    private boolean healed;

    private long maxSteps = MAX_STEPS;
    private boolean silentCuts = SILENT_CUTS;
    /** Resets as raw writes of the offset node, as before they ran the shipped admin ({@link #rawResets}). */
    private boolean rawResets;
    /** The hangs that hold their process's other tasks ({@link SimThreads}): contended in a former run of this seed. */
    private final Set<Long> exclusiveHangs = new java.util.HashSet<>();
    /**
     * Kafka's side of the worlds whose members mirror their offsets to Kafka (the adapter's offset mirror over a model
     * of Kafka's offset store): set by kafka-adapter's {@code MirrorSimulationTest}; null (no mirror) in testkit.
     */
    static volatile java.util.function.Function<SimMirror.World, SimMirror.Kafka> mirrorKafka;
    /** This world's Kafka (null: its members do not mirror) and the store commits its checks compare. */
    private final SimMirror.Kafka kafka;

    private final StoreCommits commits;
    /** The operator's resets, run by the shipped admin on the admin's session, and their checks. */
    private final SimResets resets;
    /** The run this one gave way to (its world given up at a contended hang), if any. */
    private Simulation rerun;

    Simulation(long seed, List<Fault> plan) {
        this.seed = seed;
        this.plan = plan;
        this.produce = new Random(seed * 31 + 7);
        this.scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        this.log = new SimLog(scheduler);
        this.checker = new SimChecker(zk, GROUP, log);
        this.checker.members(members);
        this.resets = new SimResets(zk, clock, checker, log, GROUP, TOPIC, () -> partitions, scheduler);
        this.checker.alsoProcessed(resets::processed);
        this.resets.onOverwrite(
                tp -> { // an absolute reset over a typo repairs it (seed 5804)
                    if (corrupt.remove(tp)) {
                        lingering.remove(tp);
                        log.event("the reset of " + tp + " wrote over its typo: repaired");
                    }
                });
        this.simExecutor = scheduler.executor("sim");
        this.partitions = 3 + (int) Math.floorMod(seed, 4);
        if (FOLLOWER_LAG) {
            zk.lagFollowers(2, new Random(seed * 17 + 3), 5);
        }
        zk.simulatedThreads(scheduler.threads());
        scheduler.threads().lands(new Random(seed * 13 + 5));
        this.extra = plan.stream()
                .map(Fault::kind)
                .filter(FaultPlan.EXTRA::contains)
                .collect(java.util.stream.Collectors.toCollection(() -> java.util.EnumSet.noneOf(Fault.Kind.class)));
        this.extra.addAll(FaultPlan.extraKinds());
        java.util.function.Function<SimMirror.World, SimMirror.Kafka> mirrors = mirrorKafka;
        this.commits = mirrors == null ? null : new StoreCommits(checker::offsetPath);
        if (commits != null) {
            checker.alsoObserve(commits::applied);
        }
        this.kafka = mirrors == null
                ? null
                : mirrors.apply(new SimMirror.World(seed, scheduler.executor("kafka"), checker::report, commits));
    }

    /** Silent cuts on or off for this run, whatever {@link #SILENT_CUTS} says (a test of them). */
    Simulation silentCuts(boolean on) {
        this.silentCuts = on;
        return this;
    }

    /** How many times a simulated thread hung in a request a silent cut held, so far. */
    long hangs() {
        return rerun != null ? rerun.hangs() : scheduler.threads().hangs();
    }

    /** How many times the schedule was run again from its start, a contended hang made exclusive each time. */
    int reruns() {
        return rerun == null ? 0 : 1 + rerun.reruns();
    }

    private Simulation exclusiveHangs(Set<Long> hangs) {
        exclusiveHangs.addAll(hangs);
        scheduler.threads().exclusiveHangs(hangs);
        return this;
    }

    /**
     * The operator's resets as the simulator made them before they ran the shipped admin: a raw write of one offset
     * node, at once (pinned seeds found then replay as found).
     */
    Simulation rawResets() {
        this.rawResets = true;
        return this;
    }

    /** A lower step bound (a test of the bound itself). */
    Simulation maxSteps(long bound) {
        this.maxSteps = bound;
        return this;
    }

    /** The checker's zombie bound as it was before seed 72775: counted from the claim's end (a test of the bound). */
    Simulation zombieBoundFromClaimEnd() {
        checker.zombieBoundFromClaimEnd();
        return this;
    }

    static Result run(long seed, int faults) {
        return new Simulation(
                        seed,
                        FaultPlan.generate(seed, faults, RUN_MS, SESSION_TIMEOUT.toMillis(), FaultPlan.extraKinds()))
                .run();
    }

    /**
     * The schedule of {@code seed} on the unkindest model, whatever the switches say: silent cuts, and the fault kinds
     * that are off by default as they were before claims landing late ({@link FaultPlan#EXTRA_BEFORE_LATE_CLAIMS}), so
     * that these schedules stay the ones recorded.
     */
    static Result runUnkindest(long seed, int faults) {
        return new Simulation(
                        seed,
                        FaultPlan.generate(
                                seed, faults, RUN_MS, SESSION_TIMEOUT.toMillis(), FaultPlan.EXTRA_BEFORE_LATE_CLAIMS))
                .silentCuts(true)
                .run();
    }

    /**
     * Runs the schedule. A thread that blocks on a lock a hanging thread holds gives the world up ({@link
     * SimThreads.Contended}): the schedule runs again from its start (the same up to that hang, a pure function of the
     * seed), that hang holding its process's other tasks this time.
     */
    Result run() {
        RUNNING.put(Thread.currentThread(), new Running(seed, System.nanoTime(), scheduler, clock));
        SimThreads.Contended contended;
        try {
            return runBounded();
        } catch (SimThreads.Contended c) {
            contended = c;
        } finally {
            scheduler.close();
            RUNNING.remove(Thread.currentThread());
        }
        Set<Long> hangs = new java.util.HashSet<>(exclusiveHangs);
        if (!hangs.add(contended.hang) || hangs.size() > 50) {
            throw new IllegalStateException(
                    "seed " + seed + ": hang " + contended.hang + " contended again", contended);
        }
        rerun = new Simulation(seed, plan)
                .maxSteps(maxSteps)
                .silentCuts(silentCuts)
                .exclusiveHangs(hangs);
        rerun.rawResets = rawResets;
        return rerun.run();
    }

    private Result runBounded() {
        Instant start = clock.instant();
        scheduler.runAs("sim", () -> {
            admin = InMemoryCoordinationStore.builder(zk)
                    .sessionTimeout(SESSION_TIMEOUT)
                    .eventExecutor(scheduler.executor("admin"))
                    .instrument(resets::port)
                    .build();
            admin.start();
            admin.topics().ensureTopic(TOPIC, partitions);
            adminGroup = GroupStores.of(admin, GROUP);
            checker.targets(id -> adminGroup
                    .readTarget(id, null)
                    .map(t -> (Set<TopicPartition>) t.partitions())
                    .orElse(Set.of()));
            checker.admin(admin::sessionId);
            // Half the seeds start with two members sharing one keeper.
            SimProcess first = join(null);
            join(seed % 2 == 0 ? first : null);
            join(null);
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
        return new Result(
                seed,
                plan,
                scheduler.steps(),
                List.copyOf(checker.violations()),
                checker.zombieRecords(),
                log.hash(),
                log.tail(),
                silentCuts);
    }

    /** Runs until the group looks settled around {@code excluded} (checked every simulated half second) or {@code end}. */
    private void settle(long firstLook, Instant end, Set<TopicPartition> excluded) {
        long nextLook = firstLook;
        boolean settled = false;
        while (!settled && scheduler.runNext(end) && checker.violations().isEmpty()) {
            if (scheduler.steps() > maxSteps) {
                checker.stuck("simulator: more than " + maxSteps + " steps, at simulated " + clock.instant()
                        + " (a livelock: tasks that keep submitting each other, or a retry that never ends); "
                        + "-Dgroupkeeper.simulation.maxSteps raises the bound");
                break;
            }
            if (clock.millis() >= nextLook) {
                nextLook = clock.millis() + 500;
                boolean[] now = {false};
                Set<TopicPartition> ex = Set.copyOf(excluded);
                scheduler.runAs("sim", () -> now[0] = checker.looksSettled(partitions, TOPIC, this::committed, ex));
                settled = now[0];
            }
        }
    }

    /** The stored offset; empty while the node is corrupt (a typo not repaired yet: not settled). */
    private java.util.OptionalLong committed(TopicPartition tp) {
        try {
            return adminGroup.readOffset(tp, null).offset();
        } catch (io.groupkeeper.spi.CorruptNodeException e) {
            return java.util.OptionalLong.empty();
        }
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

    /** A new member, on a keeper of its own (a new process) or on {@code shared}'s; returns its process. */
    private SimProcess join(SimProcess shared) {
        SimProcess proc = shared;
        if (proc == null) {
            proc = new SimProcess("p" + (++nextProcess), zk, scheduler, SESSION_TIMEOUT, checker::claimReads);
            processes.add(proc);
        }
        return join("m" + (++nextId), proc);
    }

    private SimProcess join(String id, SimProcess proc) {
        SimMember m = new SimMember(
                id,
                ++incarnations,
                extra.contains(Fault.Kind.RESTART_IN_PLACE),
                proc,
                scheduler,
                checker,
                log,
                GROUP,
                TOPIC,
                kafka,
                commits);
        members.add(m);
        log.event(m.id + " joins" + (proc.members.size() > 1 ? " " + proc.tag + "'s keeper" : ""));
        m.start(() -> {
            if (healed) { // no task for a start failing during the faults: those schedules stay as they were
                simExecutor.execute(this::startFailed);
            }
        });
        return proc;
    }

    /** Running processes another member may join (at most three members on one keeper). */
    private List<SimProcess> hosts() {
        return processes.stream()
                .filter(p -> p.alive()
                        && !p.liveMembers().isEmpty()
                        && p.members.size() < 3
                        && !scheduler.isFrozen(p.tag)
                        && !p.silentCut)
                .toList();
    }

    private List<SimMember> live() {
        return members.stream().filter(m -> m.alive() && !m.leaving).toList();
    }

    /** Live members not paused or cut off right now: the ones most faults may pick. */
    private List<SimMember> available() {
        return live().stream()
                .filter(m ->
                        !scheduler.isFrozen(m.proc.tag) && !scheduler.isFrozen(m.appTag) && m.proc.store.isConnected())
                .toList();
    }

    /**
     * The members a fault may pick: leaves, expiries and cuts strike members in doubt too (cut off, paused, already
     * leaving's partners); the others pick among members running normally.
     */
    private List<SimMember> candidates(Fault.Kind kind) {
        return switch (kind) {
            case LEAVE, EXPIRE, DISCONNECT -> live();
            default -> available();
        };
    }

    private void apply(Fault f) {
        List<SimMember> candidates = candidates(f.kind());
        SimMember m = candidates.isEmpty() ? null : candidates.get(f.member() % candidates.size());
        TopicPartition tp = new TopicPartition(TOPIC, f.partition() % partitions);
        String path = checker.offsetPath(tp);
        String doubt = m == null || available().contains(m)
                ? ""
                : scheduler.isFrozen(m.proc.tag)
                        ? " (paused)"
                        : !m.proc.store.isConnected() ? " (cut off)" : " (stalled)";
        log.event("fault " + f.kind() + (m == null ? "" : " " + m.id + doubt) + " " + tp);
        switch (f.kind()) {
            case JOIN -> {
                if (live().size() < MAX_MEMBERS) {
                    // One join in three shares the keeper of a running process (at most three members on one).
                    // Not a keeper whose writes were made to fail: see JOIN_LOST_REPLY.
                    List<SimProcess> hosts =
                            hosts().stream().filter(p -> !p.writesFailed).toList();
                    join(f.value() % 3 == 0 && !hosts.isEmpty() ? hosts.get(f.member() % hosts.size()) : null);
                }
            }
            case JOIN_LOST_REPLY -> {
                List<SimProcess> hosts = hosts();
                if (live().size() < MAX_MEMBERS && !hosts.isEmpty()) {
                    SimProcess p = hosts.get(f.member() % hosts.size());
                    p.writesFailed = true;
                    p.store.failNextWrites(1 + (int) (f.value() % 2), true);
                    join(p);
                }
            }
            case LEAVE -> {
                if (m != null && live().size() > 1) {
                    m.leave();
                }
            }
            case CRASH -> crash(m == null ? null : m.proc);
            case LEADER_CRASH ->
                crash(candidates.stream()
                        .filter(SimMember::isLeader)
                        .findFirst()
                        .map(l -> l.proc)
                        .orElse(null));
            case EXPIRE -> {
                if (m != null) {
                    m.proc.lastUnwarnedAt = clock.millis();
                    m.proc.store.expireSession();
                }
            }
            case DISCONNECT -> {
                if (m != null && silentCuts && f.value() % 3 == 0 && available().contains(m)) {
                    silentCut(m.proc, f.durationMillis());
                } else if (m != null) {
                    cut(m.proc, f.durationMillis());
                }
            }
            case PAUSE -> {
                if (m != null) {
                    SimProcess p = m.proc;
                    freeze(p);
                    p.lastUnwarnedAt = clock.millis();
                    p.store.disconnect();
                    simExecutor.schedule(() -> resume(p), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case CLOSE_IN_BLIP -> {
                // Bug 1 of issue 34: a close that starts connected, the connection dropping during its revocation or
                // releases and coming back in the same session, the keeper outliving the member.
                if (m != null && live().size() > 1) {
                    m.close();
                    SimProcess p = m.proc;
                    simExecutor.execute(() -> cut(p, f.durationMillis()));
                }
            }
            case CLAIM_LANDS_LATE -> {
                // Issue 34, finding 3: a claim lands, its answer is lost, and the client reads from a follower that
                // has not applied it for about a second. Right after it lands the target moves under it: a join, or
                // the struck member leaves.
                // In half of them the connection stays down for a while first (100 to 900 ms): the claim's retries
                // fail before they reach a server, and the member judges the partition after the reconnection.
                if (m != null) {
                    SimProcess p = m.proc;
                    boolean join = f.value() % 2 == 0;
                    boolean staysDown = f.value() / 2 % 2 == 0;
                    long down = staysDown ? 100 + f.value() / 4 % 800 : 0;
                    p.store.landNextClaimLate(
                            java.time.Duration.ofMillis(down + f.durationMillis()),
                            staysDown,
                            () -> simExecutor.execute(() -> {
                                if (staysDown) {
                                    cut(p, down);
                                }
                                lateClaimLanded(p, m, join);
                            }));
                }
            }
            case RESTART_IN_PLACE -> {
                // Bug 2 of issue 34: a static member closing, and a new one with its instance id built on the same
                // keeper before the close is done.
                if (m != null) {
                    m.close();
                    join(m.id, m.proc);
                }
            }
            case STALL -> {
                if (m != null) {
                    scheduler.freeze(m.appTag);
                    simExecutor.schedule(
                            () -> { // not while its whole process is paused
                                if (!scheduler.isFrozen(m.proc.tag)) {
                                    scheduler.unfreeze(m.appTag);
                                }
                            },
                            f.durationMillis(),
                            TimeUnit.MILLISECONDS);
                }
            }
            case RESET, EDIT -> {
                if (f.kind() == Fault.Kind.RESET && !rawResets) {
                    resets.reset(f, tp, corrupt, admin); // the shipped admin's reset, lost replies included
                } else if (!corrupt.contains(tp)) {
                    long end = checker.logEnd(tp);
                    long value = f.kind() == Fault.Kind.RESET
                            ? Math.max(0, end - 1 - f.value() % 40)
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
                    m.proc.writesFailed = true;
                    // One in three: the session expires while the first write's outcome is in doubt (the
                    // connection stays down until then).
                    int count = 1 + (int) (f.value() % 3);
                    boolean applied = f.value() % 2 == 0;
                    if (f.value() / 2 % 3 == 0) {
                        m.proc.store.failNextWritesAndExpire(count, applied);
                    } else {
                        m.proc.store.failNextWrites(count, applied);
                    }
                }
            }
            case PUBLISH_CUT ->
                candidates.stream()
                        .filter(SimMember::isLeader)
                        .findFirst()
                        .ifPresent(l -> l.proc.store.cutNextPublish());
            case GROW -> {
                if (partitions < MAX_PARTITIONS) {
                    partitions = Math.min(MAX_PARTITIONS, partitions + 1 + (int) (f.value() % 2));
                    admin.topics().ensureTopic(TOPIC, partitions);
                }
            }
        }
    }

    /** A claim of {@code p} landed late (its answer lost): the target moves under it, by a join or {@code m}'s leave. */
    private void lateClaimLanded(SimProcess p, SimMember m, boolean join) {
        log.event("a claim of " + p.tag + " landed late; then " + (join ? "a join" : m.id + " leaves"));
        if (join && live().size() < MAX_MEMBERS) {
            join(null);
        } else if (!join && m.alive() && !m.leaving && live().size() > 1) {
            m.leave();
        }
    }

    /** A process dies, every member on it; not the last process with live members. */
    private void crash(SimProcess p) {
        if (p == null || live().stream().allMatch(m -> m.proc == p)) {
            return;
        }
        p.crashed = true;
        freeze(p);
        p.store.disconnect();
        scheduler.kill(p.tag);
        p.members.forEach(m -> m.threads().forEach(scheduler::kill));
    }

    private void freeze(SimProcess p) {
        scheduler.freeze(p.tag);
        p.members.forEach(m -> m.threads().forEach(scheduler::freeze));
    }

    /** The process's connection drops (again, if it is down already) for {@code millis}. */
    private void cut(SimProcess p, long millis) {
        p.store.disconnect();
        p.cutUntil = Math.max(p.cutUntil, clock.millis() + millis);
        simExecutor.schedule(() -> reconnect(p), millis, TimeUnit.MILLISECONDS);
    }

    /**
     * A silent cut: the servers stop hearing the process at once, but its client notices only at its read timeout (two
     * thirds of the session timeout); meanwhile each of the process's threads that sends a request hangs in it (its
     * tasks run on threads of their own from now on: {@link SimScheduler#carry}), while its other threads (user code
     * between commits, timers, lanes that wait for nothing) run on. Noticed: the hanging requests fail with a lost
     * connection, SUSPENDED, and the cut goes on as any other. Over before that: nothing was noticed, the requests are
     * sent and answered.
     */
    private void silentCut(SimProcess p, long millis) {
        long session = p.store.sessionId();
        scheduler.carry(p.tag);
        p.store.cutSilently();
        p.silentCut = true;
        p.cutUntil = Math.max(p.cutUntil, clock.millis() + millis);
        long notice = SESSION_TIMEOUT.toMillis() * 2 / 3;
        simExecutor.schedule(() -> endSilence(p, session), Math.min(millis, notice), TimeUnit.MILLISECONDS);
        simExecutor.schedule(() -> reconnect(p), millis, TimeUnit.MILLISECONDS);
    }

    /** The silent part of a cut ends: noticed (SUSPENDED) if the cut goes on, else the connection is simply back. */
    private void endSilence(SimProcess p, long session) {
        if (!p.silentCut || p.crashed) {
            return;
        }
        p.silentCut = false;
        if (clock.millis() < p.cutUntil && p.store.sessionId() == session) {
            p.store.noticeCut();
        }
        reconnect(p);
    }

    /** The connection comes back once every cut of it has ended (and the process is not paused). */
    private void reconnect(SimProcess p) {
        if (!p.crashed && !p.store.isConnected() && clock.millis() >= p.cutUntil && !scheduler.isFrozen(p.tag)) {
            p.store.reconnect();
        }
    }

    private void resume(SimProcess p) {
        if (p.crashed) {
            return;
        }
        thaw(p);
        reconnect(p);
    }

    /** A frozen process's threads run again: one resumption more ({@link SimProcess#resumptions}). */
    private void thaw(SimProcess p) {
        if (scheduler.isFrozen(p.tag)) {
            p.resumptions++;
        }
        scheduler.unfreeze(p.tag);
        p.members.forEach(m -> m.threads().forEach(scheduler::unfreeze));
    }

    private void repair(TopicPartition tp) {
        if (corrupt.remove(tp)) {
            lingering.remove(tp);
            long value = checker.logEnd(tp) / 2;
            zk.setOffset(checker.offsetPath(tp), value);
            checker.external(tp, "repair", value);
        }
    }

    /**
     * The end of the faults: everything paused resumes, every cut heals, every typo is repaired, production stops, and
     * if no member is live a new process joins. A member whose start is still under way counts as live here; if that
     * start fails later (seed 9856 of silent cuts and every extra kind: a restarted static member waiting for its id,
     * its process cut off until the heal, its next attempt before the reconnection was heard), {@link #startFailed}
     * looks again.
     */
    private void heal() {
        log.event("heal");
        healed = true;
        producing = false;
        for (SimProcess p : processes) {
            p.cutUntil = 0;
            p.silentCut = false;
            resume(p);
        }
        corrupt.stream().filter(tp -> !lingering.contains(tp)).toList().forEach(this::repair);
        if (live().isEmpty()) {
            join(null);
        }
    }

    /**
     * A member's start failed: final for that member (as for what ships, see {@link SimMember#start}). During the
     * faults the schedule goes on as it is; after the heal, a group left with no live member gets a new process, as an
     * orchestrator restarts a process whose start failed.
     */
    private void startFailed() {
        if (live().isEmpty()) {
            log.event("heal: no live member after a failed start");
            join(null);
        }
    }
}

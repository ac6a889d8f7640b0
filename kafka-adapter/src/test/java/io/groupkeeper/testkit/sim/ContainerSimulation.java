package io.groupkeeper.testkit.sim;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.kafka.container.internal.DefaultListenerContainer;
import io.groupkeeper.kafka.sim.KafkaModel;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One seeded schedule of the shipped <b>listener container</b>: every member is a {@code DefaultListenerContainer}
 * (one worker, a record handler, an ordering and a parallelism) on a process of its own, over the in-memory store on
 * the ZooKeeper model and over the {@link KafkaModel}, on {@link SimKafkaClients}: its worker's polling thread, its
 * handler pool's threads and its watchdog's timer are simulated threads of the process, its dead-letter producer and
 * Admin are the model's, its waits (start, stop, a revocation's drain) are in simulated time. The handler takes a
 * seeded 0 to {@link #MAX_HANDLER_MS} ms of simulated time (so records complete out of order) and fails every time on
 * a poison record, which the error policy retries twice and then dead-letters. The faults are
 * {@link AdapterSimulation}'s (testkit's {@link FaultPlan}): joins, crashes, expiries, cuts, pauses of a process,
 * stalls of the worker's polling thread, graceful stops, operators' resets and edits of an offset node, partition
 * growth, lost writes, cut publications; not typos or deletes of an offset node. What users see is checked by
 * {@link AdapterChecker} (at least once, ZooKeeper's offset never backwards, a reset taken up) and
 * {@link ContainerChecker} (order, progress).
 *
 * <p>About 520 lines: half of it is the world it shares in kind with {@link AdapterSimulation} (faults, processes,
 * healing), kept apart so that the member simulation's pinned seeds do not move with the container's draws.
 */
final class ContainerSimulation {

    /** The container's ordering and parallelism in a schedule. */
    enum Mode {
        PARTITION(Ordering.PARTITION, 4), KEY(Ordering.KEY, 4), UNORDERED(Ordering.UNORDERED, 4);

        final Ordering ordering;
        final int parallelism;

        Mode(Ordering ordering, int parallelism) {
            this.ordering = ordering;
            this.parallelism = parallelism;
        }
    }

    static final String GROUP = "sim";
    static final String TOPIC = "t";
    static final String DLT = "t.dlt";
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(500);
    static final long RUN_MS = 15_000;
    static final long SETTLE_MS = 60_000;
    static final int MAX_MEMBERS = 5;
    static final int MAX_PARTITIONS = 8;
    /** The handler takes up to this many ms of simulated time. */
    static final int MAX_HANDLER_MS = 30;
    /** Keys of the records: few, so that a key has many records in flight together in KEY ordering. */
    static final int KEYS = 5;
    /** One record in this many is poison: it fails at every attempt and is dead-lettered after three. */
    static final int POISON_ONE_IN = 40;
    static final long MAX_STEPS = Long.getLong("groupkeeper.simulation.maxSteps", 400_000L);
    /** Kafka's faults (no transactions here): slow requests, one in five, up to 300 ms. */
    static final KafkaModel.Faults KAFKA_FAULTS = new KafkaModel.Faults(0, 0, 0, 0.2, 300);

    /** One schedule's outcome. */
    record Result(long seed, Mode mode, List<Fault> plan, long steps, List<String> violations, long hash, String tail,
                  long resets, long done, long deadLettered, long handled) implements ScheduleOutcome {
    }

    private final long seed;
    private final Mode mode;
    private final List<Fault> plan;
    private final ManualClock clock = new ManualClock();
    private final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    private final SimScheduler scheduler;
    private final SimLog log;
    private final AdapterChecker checker;
    private final ContainerChecker order;
    private final KafkaModel kafka;
    private final ScheduledExecutorService simExecutor;
    private final Random produce;
    private final Random handlerTimes;
    private int partitions;
    private final List<Member> members = new ArrayList<>();
    private final Set<Long> exclusiveHangs = new HashSet<>();
    private boolean producing = true;
    private int nextId;

    ContainerSimulation(long seed, Mode mode, List<Fault> plan) {
        this.seed = seed;
        this.mode = mode;
        this.plan = plan;
        this.scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        this.log = new SimLog(scheduler);
        this.checker = new AdapterChecker(zk, GROUP, TOPIC, false, log);
        this.order = new ContainerChecker(zk, GROUP, TOPIC, mode.ordering, checker, log, clock::millis);
        this.simExecutor = scheduler.executor("sim");
        this.produce = new Random(seed * 31 + 7);
        this.handlerTimes = new Random(seed * 13 + 5);
        this.partitions = 3 + (int) Math.floorMod(seed, 4);
        zk.lagFollowers(2, new Random(seed * 17 + 3), 5);
        zk.simulatedThreads(scheduler.threads());
        this.kafka = new KafkaModel(new Random(seed * 7 + 1), SimKafkaClients.time(scheduler, clock, true),
                KAFKA_FAULTS);
    }

    static Result run(long seed, Mode mode, int faults) {
        return new ContainerSimulation(seed, mode, FaultPlan.generate(seed, faults, RUN_MS,
                SESSION_TIMEOUT.toMillis(), Set.of())).run();
    }

    private ContainerSimulation exclusiveHangs(Set<Long> hangs) {
        exclusiveHangs.addAll(hangs);
        scheduler.threads().exclusiveHangs(hangs);
        return this;
    }

    /** Runs the schedule; a contended hang runs it again from its start with that hang exclusive (as testkit's). */
    Result run() {
        SimThreads.Contended contended;
        try {
            return runBounded();
        } catch (SimThreads.Contended c) {
            contended = c;
        } finally {
            scheduler.close();
        }
        Set<Long> hangs = new HashSet<>(exclusiveHangs);
        if (!hangs.add(contended.hang) || hangs.size() > 50) {
            throw new IllegalStateException("seed " + seed + ": hang " + contended.hang + " contended again", contended);
        }
        return new ContainerSimulation(seed, mode, plan).exclusiveHangs(hangs).run();
    }

    private Result runBounded() {
        Instant start = clock.instant();
        scheduler.runAs("sim", () -> {
            kafka.createTopic(TOPIC, partitions);
            join();
            join();
            join();
        });
        simExecutor.schedule(this::produce, 50, TimeUnit.MILLISECONDS);
        for (Fault f : plan) {
            simExecutor.schedule(() -> apply(f), f.atMillis(), TimeUnit.MILLISECONDS);
        }
        simExecutor.schedule(this::heal, RUN_MS, TimeUnit.MILLISECONDS);
        Instant end = start.plusMillis(RUN_MS + SETTLE_MS);
        long nextLook = start.toEpochMilli() + RUN_MS + 1_000;
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
        return new Result(seed, mode, plan, scheduler.steps(), List.copyOf(checker.violations()), log.hash(),
                log.tail(), checker.resets(), checker.doneRecords(), order.deadLettered(), order.handled());
    }

    /** PARTITION ordering alternates between parallelism 1 (handler calls on the polling thread) and 4. */
    private int parallelism() {
        return mode == Mode.PARTITION && seed % 2 == 1 ? 1 : mode.parallelism;
    }

    // ------------------------------------------------------------------ the world

    private void produce() {
        if (!producing) {
            return;
        }
        for (int p = 0; p < partitions; p++) {
            int n = produce.nextInt(5);
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(TOPIC, p);
            for (int i = 0; i < n; i++) {
                String value = produce.nextInt(POISON_ONE_IN) == 0 ? "poison" : "v";
                kafka.append(tp, ("k" + produce.nextInt(KEYS)).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        value.getBytes(java.nio.charset.StandardCharsets.UTF_8)); // as a broker holds them
            }
            checker.produced(p, kafka.logEnd(tp));
        }
        simExecutor.schedule(this::produce, 100, TimeUnit.MILLISECONDS);
    }

    private List<Member> live() {
        return members.stream().filter(m -> !m.proc.crashed && !m.gaveUp && !m.leaving).toList();
    }

    private void join() {
        String id = "m" + (++nextId);
        Process proc = new Process("p" + nextId, id);
        Member m = new Member(id, proc);
        members.add(m);
        log.event(id + " joins");
        m.start();
    }

    private void apply(Fault f) {
        List<Member> live = live();
        Member m = live.isEmpty() ? null : live.get(f.member() % live.size());
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
                    m.stop(); // a graceful stop: drain, final commit with the done set, leave
                }
            }
            case CRASH -> crash(m);
            case LEADER_CRASH -> crash(live.stream().filter(Member::leads).findFirst().orElse(null));
            case EXPIRE -> {
                if (m != null) {
                    m.proc.store.expireSession();
                }
            }
            case DISCONNECT -> {
                if (m != null) {
                    cut(m.proc, f.durationMillis());
                }
            }
            case PAUSE -> {
                if (m != null) {
                    Process p = m.proc;
                    p.tags.forEach(scheduler::freeze);
                    p.paused = true;
                    p.store.disconnect();
                    simExecutor.schedule(() -> resume(p), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case STALL -> {
                if (m != null && m.proc.workerTag != null) { // the worker's polling thread is slow
                    String tag = m.proc.workerTag;
                    scheduler.freeze(tag);
                    simExecutor.schedule(() -> {
                        if (!m.proc.paused && !m.proc.crashed) {
                            scheduler.unfreeze(tag);
                        }
                    }, f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case RESET, EDIT -> {
                long end = checker.logEnd(partition);
                long value = f.kind() == Fault.Kind.RESET ? Math.max(0, end - 1 - f.value() % 40) : f.value() % (end + 1);
                zk.setOffset(ZkLayout.offset(GROUP, new io.groupkeeper.TopicPartition(TOPIC, partition)), value);
                order.reset(partition, value);
                checker.reset(partition, value);
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
            case PUBLISH_CUT -> live.stream().filter(Member::leads).findFirst()
                    .ifPresent(l -> l.proc.store.cutNextPublish());
            default -> log.event("(not simulated here: " + f.kind() + ")");
        }
    }

    /** A process dies; not the last one with a live member. */
    private void crash(Member m) {
        if (m == null || live().size() <= 1) {
            return;
        }
        Process p = m.proc;
        p.crashed = true;
        p.tags.forEach(scheduler::freeze);
        p.store.disconnect();
        p.tags.forEach(scheduler::kill);
    }

    private void cut(Process p, long millis) {
        p.store.disconnect();
        p.cutUntil = Math.max(p.cutUntil, clock.millis() + millis);
        simExecutor.schedule(() -> reconnect(p), millis, TimeUnit.MILLISECONDS);
    }

    private void reconnect(Process p) {
        if (!p.crashed && !p.store.isConnected() && clock.millis() >= p.cutUntil && !p.paused) {
            p.store.reconnect();
        }
    }

    private void resume(Process p) {
        if (!p.crashed) {
            p.paused = false;
            p.tags.forEach(scheduler::unfreeze);
            reconnect(p);
        }
    }

    private void heal() {
        log.event("heal");
        producing = false;
        for (Member m : members) {
            m.proc.cutUntil = 0;
            resume(m.proc);
        }
        if (live().isEmpty()) {
            join();
        }
    }

    // ------------------------------------------------------------------ processes and members

    /** A process: its store (client, session), its keeper, and the tags of its threads (the container's among them). */
    private final class Process {
        final String tag;
        final String ctlTag;
        final String timerTag;
        final InMemoryCoordinationStore store;
        final GroupKeeper keeper;
        final List<String> tags = new ArrayList<>();
        /** The worker's polling thread (its stalls). */
        String workerTag;
        boolean crashed;
        boolean paused;
        long cutUntil;

        Process(String tag, String memberId) {
            this.tag = tag;
            this.ctlTag = tag + "/ctl";
            this.timerTag = tag + "/timer";
            tags.add(tag);
            register(ctlTag);
            register(timerTag);
            scheduler.carry(tag); // its threads wait (the start, revocations, drains, handlers) as simulated threads
            this.store = InMemoryCoordinationStore.builder(zk).sessionTimeout(SESSION_TIMEOUT)
                    .eventExecutor(scheduler.eventExecutor(tag)).build();
            ScheduledExecutorService internal = scheduler.executor(tag);
            this.keeper = GroupKeeper.builder().store(store).clock(zk.clock()).executors(internal, internal)
                    .memberIds(() -> memberId).build().start();
        }

        /** A thread of the process (the container's worker and its handler threads are named as they name them). */
        String register(String tag) {
            scheduler.belongs(tag, this.tag);
            tags.add(tag);
            if (paused || crashed) {
                scheduler.freeze(tag);
            }
            return tag;
        }

        String thread(String name) {
            String t = register(tag + "/" + name);
            if (workerTag == null && !name.contains("-w")) {
                workerTag = t;
            }
            return t;
        }
    }

    /** A member: the shipped listener container, with the simulation's handler. */
    private final class Member {
        final String id;
        final Process proc;
        final SimKafkaClients clients;
        final DefaultListenerContainer<String, String> container;
        final ScheduledExecutorService ctl;
        boolean gaveUp;
        boolean leaving;

        Member(String id, Process proc) {
            this.id = id;
            this.proc = proc;
            this.ctl = scheduler.executor(proc.ctlTag);
            this.clients = new SimKafkaClients(kafka, scheduler, clock, proc.timerTag, proc.store::isConnected, v -> {
                if (!proc.crashed) {
                    checker.violations().add(v);
                }
            }).threads(proc::thread);
            ListenerContainer<String, String> built = ListenerContainer.<String, String>builder(proc.keeper)
                    .group(GROUP).topics(TOPIC)
                    .kafkaProperties(Map.of("bootstrap.servers", "model:9092", "max.poll.records", "40"))
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .ordering(mode.ordering).parallelism(parallelism())
                    .recordHandler(this::handle)
                    .errorPolicy(ErrorPolicy.builder().otherwise(ErrorAction.retry(3, Backoff.fixed(
                            Duration.ofMillis(20))).thenDeadLetter()).build())
                    .deadLetterTopic(DLT).createDeadLetterTopics(true)
                    .pollTimeout(Duration.ofMillis(100)).stopDeadline(Duration.ofSeconds(2))
                    .watchdog(Duration.ofSeconds(5))
                    .ticker(() -> clock.millis() * 1_000_000L)
                    .listener(new ContainerListener() {
                        @Override
                        public void deadLettered(ConsumerRecord<byte[], byte[]> record, String topic,
                                                 Throwable cause) {
                            if (!proc.crashed) {
                                order.deadLettered(id, record.partition(), record.offset());
                            }
                        }
                    })
                    .onPartitionsAssigned((assigned, seeker) -> {
                        checker.detail(id + " assigned " + assigned);
                        assigned.forEach(tp -> {
                            checker.assigned(id, seeker.fencingToken(tp), tp.partition());
                            order.assigned(id, tp.partition());
                        });
                    })
                    .consumerOptions(b -> b.commitInterval(COMMIT_INTERVAL).revocationTimeout(REVOCATION_TIMEOUT)
                            .metadataRefreshInterval(Duration.ofSeconds(5)).kafkaTimeout(Duration.ofSeconds(5))
                            .startPosition(StartPosition.earliest()).outOfRange(OutOfRangePolicy.EARLIEST))
                    .build();
            this.container = ((DefaultListenerContainer<String, String>) built).on(clients);
        }

        boolean leads() {
            return container.workers().stream().anyMatch(WorkerStatus::leader);
        }

        void start() {
            ctl.execute(() -> {
                try {
                    container.start();
                    log.event(id + " started");
                } catch (RuntimeException e) {
                    gaveUp = true; // a failed start is final, as for what ships
                    log.event(id + " failed to start: " + e);
                    if (live().isEmpty() && !producing) {
                        simExecutor.execute(ContainerSimulation.this::join);
                    }
                }
            });
        }

        void stop() {
            leaving = true;
            ctl.execute(() -> {
                log.event(id + " stops");
                boolean all = container.stop(Duration.ofSeconds(5));
                log.event(id + " stopped (" + (all ? "every worker exited" : "not every worker exited") + ")");
            });
        }

        /** The user's handler: takes simulated time; a poison record fails every time (dead-lettered after three). */
        private void handle(ConsumerRecord<String, String> r) {
            if (proc.crashed) {
                throw new IllegalStateException("crashed");
            }
            order.started(id, r.partition(), r.key(), r.offset(),
                    io.groupkeeper.kafka.container.HandlerContext.fencingToken());
            boolean ok = false;
            try {
                int ms = handlerTimes.nextInt(MAX_HANDLER_MS + 1);
                if (ms > 0) {
                    clients.sleepUntil(new CompletableFuture<>(), ms);
                }
                if ("poison".equals(r.value())) {
                    throw new IllegalArgumentException("poison record " + r.topic() + "-" + r.partition() + "@"
                            + r.offset());
                }
                ok = true;
            } finally {
                if (!proc.crashed) {
                    order.ended(id, r.partition(), r.key(), r.offset(), ok);
                }
            }
        }
    }
}

package io.groupkeeper.testkit.sim;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.internal.AdapterConfig;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.kafka.internal.TransactionalConfig;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One seeded schedule of the shipped Kafka adapter: every member is a {@code DefaultCoordinatedConsumer} (at least once,
 * or the transactional mode) on a process of its own, over the in-memory store on the ZooKeeper model and over the
 * {@link KafkaModel} ({@link SimKafkaClients}); its polling thread is a simulated thread that polls, processes (in the
 * transactional mode: sends each record's output into the partition's transaction, and aborts when an output is
 * rejected, as the listener container does) and polls again. The faults are testkit's {@link FaultPlan}'s: joins,
 * crashes, expiries, cuts, pauses, stalls of the polling thread (callbacks queue; a revocation waits up to the
 * revocation timeout, then releases without a final commit), graceful closes on the polling thread, operators' resets
 * (a raw write of the offset node), typos in offset nodes (repaired later), deleted offset nodes, partition growth, lost
 * writes, cut publications; Kafka's requests take simulated time, and some time out before or after they land. What
 * users see is checked by {@link AdapterChecker}.
 *
 * <p>The listener container runs in {@link ContainerSimulation} (docs/simulation-adapter.md).
 */
final class AdapterSimulation {

    static final String GROUP = "sim";
    static final String TOPIC = "t";
    static final String OUT = "out";
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(500);
    static final long RUN_MS = 15_000;
    static final long SETTLE_MS = 60_000;
    static final long POLL_MS = 100;
    static final int MAX_MEMBERS = 5;
    static final int MAX_PARTITIONS = 8;
    static final long MAX_STEPS = Long.getLong("groupkeeper.simulation.maxSteps", 400_000L);
    /**
     * Kafka's faults in these schedules: requests that time out before or after they land (2 % each), rejected sends
     * (1 %), slow requests (one in five, up to 300 ms).
     */
    static final KafkaModel.Faults KAFKA_FAULTS = new KafkaModel.Faults(0.02, 0.02, 0.01, 0.2, 300);

    /** One schedule's outcome. */
    record Result(long seed, boolean transactional, List<Fault> plan, long steps, List<String> violations, long hash,
                  String tail, long resets, long landedLate, long abortedByInit, long done, long outputs,
                  long handovers) implements ScheduleOutcome {
    }

    private final long seed;
    private final boolean transactional;
    private final List<Fault> plan;
    private final ManualClock clock = new ManualClock();
    private final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    private final SimScheduler scheduler;
    private final SimLog log;
    private final AdapterChecker checker;
    private final KafkaModel kafka;
    private final ScheduledExecutorService simExecutor;
    private final Random produce;
    private int partitions;
    /** Offset nodes an operator's typo left unparsable, not repaired yet. */
    private final Set<Integer> corrupt = new HashSet<>();
    private final List<Member> members = new ArrayList<>();
    private final Set<Long> exclusiveHangs = new HashSet<>();
    /** The members whose graceful leave ended (the keepers' metrics: {@code memberClosed}). */
    private final Set<String> left = new HashSet<>();
    private boolean producing = true;
    private int nextId;

    AdapterSimulation(long seed, boolean transactional, List<Fault> plan) {
        this.seed = seed;
        this.transactional = transactional;
        this.plan = plan;
        this.scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        this.log = new SimLog(scheduler);
        this.checker = new AdapterChecker(zk, GROUP, TOPIC, transactional, log);
        this.simExecutor = scheduler.executor("sim");
        this.produce = new Random(seed * 31 + 7);
        this.partitions = 3 + (int) Math.floorMod(seed, 4);
        zk.lagFollowers(2, new Random(seed * 17 + 3), 5);
        zk.simulatedThreads(scheduler.threads());
        this.kafka = new KafkaModel(new Random(seed * 7 + 1), SimKafkaClients.time(scheduler, clock, false),
                KAFKA_FAULTS);
        kafka.observe(checker.kafkaObserver());
        kafka.observe(new KafkaModel.Observer() { // which of Kafka's commits is a closing member's final transaction
            @Override
            public void groupOffsetCommitted(String g, org.apache.kafka.common.TopicPartition tp, long offset,
                                             Long before, String by) {
                for (Member m : members) {
                    if (m.closing && m.proc.pollTag.equals(scheduler.running()) && tp.topic().equals(TOPIC)) {
                        checker.closerCommitted(m.id, tp.partition(), offset);
                    }
                }
            }
        });
    }

    static Result run(long seed, boolean transactional, int faults) {
        return new AdapterSimulation(seed, transactional, FaultPlan.generate(seed, faults, RUN_MS,
                SESSION_TIMEOUT.toMillis(), Set.of())).run();
    }

    private AdapterSimulation exclusiveHangs(Set<Long> hangs) {
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
        return new AdapterSimulation(seed, transactional, plan).exclusiveHangs(hangs).run();
    }

    private Result runBounded() {
        Instant start = clock.instant();
        scheduler.runAs("sim", () -> {
            kafka.createTopic(TOPIC, partitions);
            kafka.createTopic(OUT, 1);
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
        return new Result(seed, transactional, plan, scheduler.steps(), List.copyOf(checker.violations()), log.hash(),
                log.tail(), checker.resets(), kafka.landedLate(), kafka.abortedByInit(), checker.doneRecords(),
                checker.outputs(), checker.handoversJudged());
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
                kafka.append(tp, null, "v");
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
                    m.leaving = true; // its polling thread closes it gracefully at its next turn
                }
            }
            case CRASH -> crash(m);
            case LEADER_CRASH -> crash(live.stream().filter(x -> x.consumer.isLeader()).findFirst().orElse(null));
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
                    p.tags().forEach(scheduler::freeze);
                    p.store.disconnect();
                    simExecutor.schedule(() -> resume(p), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case STALL -> {
                if (m != null) { // the polling thread is slow: its callbacks queue, its revocations wait
                    scheduler.freeze(m.proc.pollTag);
                    simExecutor.schedule(() -> {
                        if (!scheduler.isFrozen(m.proc.tag)) {
                            scheduler.unfreeze(m.proc.pollTag);
                        }
                    }, f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case RESET, EDIT -> {
                long end = checker.logEnd(partition);
                long value = f.kind() == Fault.Kind.RESET ? Math.max(0, end - 1 - f.value() % 40) : f.value() % (end + 1);
                if (transactional && namedByKafkasMetadata(partition, value)) {
                    // A value the last Kafka commit's metadata names (not its offset): a claim cannot tell it from
                    // the committer's own write and Kafka's offset wins (docs/exactly-once.md, "What remains
                    // ambiguous"; seed 138: an edit of t-4 to 20 after its owner crashed).
                    log.event("(operator's write of t-" + partition + " to " + value + " skipped: Kafka's metadata "
                            + "names it)");
                    return;
                }
                zk.setOffset(offsetPath(partition), value);
                corrupt.remove(partition);
                checker.reset(partition, value);
            }
            case TYPO -> { // a hand edit that does not parse, repaired later (a valid edit: the operator's reset)
                if (corrupt.add(partition)) {
                    zk.writeGarbage(offsetPath(partition), "1200O");
                    log.event("operator's typo in the offset node of " + TOPIC + "-" + partition);
                    simExecutor.schedule(() -> repair(partition), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case DELETE -> { // a fresh start: the start position (earliest, the log start 0), stored at once
                if (transactional && zk.exists(offsetPath(partition)) && namedByKafkasMetadata(partition, -1)) {
                    // "No offset" is what the last Kafka commit's metadata names (committed while ZooKeeper held
                    // none): a claim cannot tell the deletion from that and Kafka's offset wins (docs/exactly-once.md,
                    // "What remains ambiguous"), as for an edit to a value the metadata names.
                    log.event("(operator's delete of t-" + partition + " skipped: Kafka's metadata names no offset)");
                    return;
                }
                if (zk.exists(offsetPath(partition))) {
                    zk.delete(offsetPath(partition));
                    corrupt.remove(partition);
                    checker.reset(partition, 0);
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
            case PUBLISH_CUT -> live.stream().filter(x -> x.consumer.isLeader()).findFirst()
                    .ifPresent(l -> l.proc.store.cutNextPublish());
            default -> log.event("(not simulated here: " + f.kind() + ")");
        }
    }

    /** Whether {@code value} is in the partition's last Kafka commit's {@code groupkeeper:zk=} values and not its offset. */
    private boolean namedByKafkasMetadata(int partition, long value) {
        java.util.Optional<org.apache.kafka.clients.consumer.OffsetAndMetadata> k = kafka.committed(GROUP,
                new org.apache.kafka.common.TopicPartition(TOPIC, partition));
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

    private static String offsetPath(int partition) {
        return ZkLayout.offset(GROUP, new io.groupkeeper.TopicPartition(TOPIC, partition));
    }

    /**
     * The operator repairs a typo: a valid value (half the log end), which the owner takes up as a reset. In the
     * transactional mode not a value the last Kafka commit's metadata names (other than its offset): the next lower one
     * that is not (none: Kafka's offset). The owner stopped the partition at the typo (its offset node did not parse),
     * so the repair is read at a claim, where Kafka's offset wins over such a value (docs/exactly-once.md, "What
     * remains ambiguous"; seed 117: t-1 repaired to 108, the offset Kafka's last commit, 120, names as ZooKeeper's,
     * and the next owner starts at 120), as for an edit to such a value.
     */
    private void repair(int partition) {
        if (corrupt.remove(partition)) {
            long value = checker.logEnd(partition) / 2;
            long asked = value;
            while (transactional && value >= 0 && namedByKafkasMetadata(partition, value)) {
                value--;
            }
            if (value < 0) {
                value = kafka.committed(GROUP, new org.apache.kafka.common.TopicPartition(TOPIC, partition))
                        .orElseThrow().offset();
            }
            if (value != asked) {
                log.event("(operator's repair of t-" + partition + " to " + asked + " made " + value + ": Kafka's "
                        + "metadata names " + asked + ")");
            }
            zk.setOffset(offsetPath(partition), value);
            checker.reset(partition, value);
        }
    }

    /** A process dies; not the last one with a live member. */
    private void crash(Member m) {
        if (m == null || live().size() <= 1) {
            return;
        }
        Process p = m.proc;
        p.crashed = true;
        p.tags().forEach(scheduler::freeze);
        p.store.disconnect();
        p.tags().forEach(scheduler::kill);
    }

    private void cut(Process p, long millis) {
        p.store.disconnect();
        p.cutUntil = Math.max(p.cutUntil, clock.millis() + millis);
        simExecutor.schedule(() -> reconnect(p), millis, TimeUnit.MILLISECONDS);
    }

    private void reconnect(Process p) {
        if (!p.crashed && !p.store.isConnected() && clock.millis() >= p.cutUntil && !scheduler.isFrozen(p.tag)) {
            p.store.reconnect();
        }
    }

    private void resume(Process p) {
        if (!p.crashed) {
            p.tags().forEach(scheduler::unfreeze);
            reconnect(p);
        }
    }

    private void heal() {
        log.event("heal");
        producing = false;
        List.copyOf(corrupt).forEach(this::repair);
        for (Member m : members) {
            m.proc.cutUntil = 0;
            resume(m.proc);
        }
        if (live().isEmpty()) {
            join();
        }
    }

    // ------------------------------------------------------------------ processes and members

    /** A process: its store (client, session), its keeper, and the tags of its threads. */
    private final class Process {
        final String tag;
        final String pollTag;
        final String timerTag;
        final InMemoryCoordinationStore store;
        final GroupKeeper keeper;
        boolean crashed;
        long cutUntil;

        Process(String tag, String memberId) {
            this.tag = tag;
            this.pollTag = tag + "/poll";
            this.timerTag = tag + "/timer";
            scheduler.belongs(pollTag, tag);
            scheduler.belongs(timerTag, tag);
            scheduler.carry(tag); // its threads wait (revocations, the join) as simulated threads
            this.store = InMemoryCoordinationStore.builder(zk).sessionTimeout(SESSION_TIMEOUT)
                    .eventExecutor(scheduler.eventExecutor(tag)).build();
            ScheduledExecutorService internal = scheduler.executor(tag);
            this.keeper = GroupKeeper.builder().store(store).clock(zk.clock()).executors(internal, internal)
                    .metrics(new io.groupkeeper.metrics.GroupMetrics() {
                        @Override
                        public void memberClosed(String group, String member) {
                            left.add(member);
                        }
                    })
                    .memberIds(() -> memberId).build().start();
        }

        List<String> tags() {
            return List.of(tag, pollTag, timerTag);
        }
    }

    /** A member: the shipped adapter, and user code on its polling thread. */
    private final class Member {
        final String id;
        final Process proc;
        final DefaultCoordinatedConsumer<String, String> consumer;
        final ScheduledExecutorService poller;
        boolean started;
        boolean gaveUp;
        /** A LEAVE: its polling thread closes the consumer ({@code close()}: final commit, graceful leave). */
        boolean leaving;
        /** Inside {@code close()} on its polling thread: its Kafka commits now are the close's final transactions. */
        boolean closing;

        Member(String id, Process proc) {
            this.id = id;
            this.proc = proc;
            this.poller = scheduler.executor(proc.pollTag);
            AdapterConfig<String, String> config = new AdapterConfig<>(proc.keeper, GROUP, Set.of(TOPIC),
                    Map.of("bootstrap.servers", "model:9092", "max.poll.records", "40"), new StringDeserializer(),
                    new StringDeserializer(), COMMIT_INTERVAL, Duration.ofSeconds(5), REVOCATION_TIMEOUT,
                    Duration.ofSeconds(5), StartPosition.earliest(), OutOfRangePolicy.EARLIEST,
                    new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(java.util.Collection<org.apache.kafka.common.TopicPartition> p) {
                            checker.detail(id + " revoked " + p);
                        }

                        @Override
                        public void onPartitionsAssigned(
                                java.util.Collection<org.apache.kafka.common.TopicPartition> p) {
                            checker.detail(id + " assigned " + p);
                            p.forEach(tp -> checker.assigned(id, Member.this.consumer.fencingToken(tp), tp.partition()));
                        }
                    }, null, mb -> { }, null,
                    transactional ? new TransactionalConfig(new StringSerializer(), new StringSerializer(), "sim-",
                            Map.of()) : null,
                    new KafkaClientListener() { });
            this.consumer = new DefaultCoordinatedConsumer<>(config, new SimKafkaClients(kafka, scheduler, clock,
                    proc.timerTag, proc.store::isConnected, v -> {
                        if (!proc.crashed) { // (a crashed process's threads unwind, running what a real one would not)
                            checker.violations().add(v);
                        }
                    }));
        }

        void start() {
            poller.execute(this::loop);
        }

        private void loop() {
            if (proc.crashed || gaveUp) {
                return;
            }
            if (leaving) {
                close();
                return;
            }
            if (!started) {
                try {
                    consumer.start();
                    started = true;
                    log.event(id + " started");
                } catch (RuntimeException e) {
                    gaveUp = true; // a failed start is final, as for what ships
                    log.event(id + " failed to start: " + e);
                    if (live().isEmpty() && !producing) {
                        simExecutor.execute(AdapterSimulation.this::join);
                    }
                    return;
                }
            }
            try {
                pollOnce();
            } catch (WakeupException e) {
                // the user's wakeup(): none here
            } catch (RuntimeException e) {
                log.event(id + " poll failed: " + e);
            }
            poller.schedule(this::loop, POLL_MS, TimeUnit.MILLISECONDS);
        }

        /** A graceful close on the polling thread: the final commit, the releases with it, the leave. */
        private void close() {
            log.event(id + " closes");
            checker.closing(id, proc.store.sessionId(),
                    consumer.assignment().stream().map(org.apache.kafka.common.TopicPartition::partition).toList());
            closing = true;
            try {
                consumer.close();
            } finally {
                closing = false;
            }
            if (!left.contains(id) && !proc.crashed) { // a wait outside the simulation gave up (a real future's)
                checker.violations().add("simulator: " + id + "'s close() returned before its member had left");
            }
            checker.closed(id);
            log.event(id + " closed");
        }

        private void pollOnce() {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ZERO);
            for (org.apache.kafka.common.TopicPartition tp : records.partitions()) {
                List<ConsumerRecord<String, String>> got = records.records(tp);
                checker.detail(id + " receives " + tp + " " + got.get(0).offset() + ".."
                        + got.get(got.size() - 1).offset());
                for (ConsumerRecord<String, String> r : records.records(tp)) {
                    checker.received(id, tp.partition(), r.offset());
                    if (!transactional) {
                        checker.processed(tp.partition(), r.offset());
                        continue;
                    }
                    Future<RecordMetadata> sent = consumer.send(tp, new ProducerRecord<>(OUT, 0,
                            tp.partition() + ":" + r.offset(), r.value()));
                    if (rejected(sent)) { // the container's path: abort, the records come again
                        long at = consumer.abort(tp);
                        checker.aborted(id, tp.partition(), at);
                        log.event(id + " output of " + tp + "@" + r.offset() + " rejected; aborted, back at " + at);
                        break;
                    }
                }
            }
        }

        private boolean rejected(Future<RecordMetadata> sent) {
            if (!sent.isDone()) {
                return false;
            }
            try {
                sent.get();
                return false;
            } catch (ExecutionException e) {
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }
    }
}

package io.groupkeeper.testkit.sim;

import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ContainerListener;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.kafka.container.internal.DefaultListenerContainer;
import io.groupkeeper.kafka.sim.KafkaModel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

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
 * {@link ContainerChecker} (order, progress, nothing named done runs again, a graceful handover replays none, the
 * node's size within its bound). KEY and UNORDERED schedules of seeds 3, 7, 11, ... run with a max span of
 * {@link #SMALL_SPAN}.
 *
 * <p>Besides the record handler at least once ({@code PARTITION}, {@code KEY}, {@code UNORDERED}): the
 * <b>transactional mode</b> ({@link Mode#TRANSACTIONAL}: the container built with {@code transactional(...)}, the
 * handler sending one output per input to {@value #OUT} with {@code HandlerContext.sender()}, dead letters in the same
 * transaction, under {@link AdapterSimulation}'s Kafka faults; checked by {@link AdapterChecker} in its transactional
 * mode: every input's output, or its dead letter, committed exactly once), the <b>batch handler</b> ({@link Mode#BATCH})
 * and the <b>asynchronous handler</b> ({@link Mode#ASYNC}, its stages completing on a thread of the process). A
 * partition the container stops (a dead letter the broker rejected) is resumed by the operator after
 * {@link #STOPPED_FOR}.
 *
 * <p>The world (processes, faults, production, healing, the bounded run) is {@link KafkaWorld}'s, shared with
 * {@link AdapterSimulation}; what is the container's own here: its members, its records' keys and poison, its
 * operator's resets and its checks. The seeded draws come in the order they came when it had a world of its own.
 * (Over 500 lines: a member is one builder of the container with the simulation's three handlers and its listener,
 * which read best beside the modes that choose them; the checks are {@link ContainerChecker}'s.)
 */
final class ContainerSimulation {

    /** The user's handler in a schedule. */
    enum Handler {
        RECORD,
        BATCH,
        ASYNC
    }

    /** The container's ordering, parallelism, handler and delivery in a schedule. */
    enum Mode {
        PARTITION(Ordering.PARTITION, 4, Handler.RECORD, false, 1),
        KEY(Ordering.KEY, 4, Handler.RECORD, false, 1),
        UNORDERED(Ordering.UNORDERED, 4, Handler.RECORD, false, 1),
        /** Exactly once into Kafka: each record's output sent with the container's transactional sender. */
        TRANSACTIONAL(Ordering.PARTITION, 1, Handler.RECORD, true, 1),
        /** A batch handler: one partition's fetched records per call. */
        BATCH(Ordering.PARTITION, 1, Handler.BATCH, false, 1),
        /** Exactly once with a batch handler: each record's output sent with the transactional sender, in its call. */
        TRANSACTIONAL_BATCH(Ordering.PARTITION, 1, Handler.BATCH, true, 1),
        /** An asynchronous handler: each record's stage completes after a seeded time, up to 4 in flight. */
        ASYNC(Ordering.KEY, 4, Handler.ASYNC, false, 1),
        /** Two workers per container (two members of the group in one process), the handler on each worker's thread. */
        CONCURRENT(Ordering.PARTITION, 1, Handler.RECORD, false, 2);

        final Ordering ordering;
        final int parallelism;
        final Handler handler;
        final boolean transactional;
        final int concurrency;

        Mode(Ordering ordering, int parallelism, Handler handler, boolean transactional, int concurrency) {
            this.ordering = ordering;
            this.parallelism = parallelism;
            this.handler = handler;
            this.transactional = transactional;
            this.concurrency = concurrency;
        }
    }

    static final String GROUP = KafkaWorld.GROUP;
    static final String TOPIC = KafkaWorld.TOPIC;
    static final String DLT = "t.dlt";
    /** The transactional mode's output topic: one record per input, keyed "partition:offset". */
    static final String OUT = "out";

    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(500);
    /** How long a stopped partition waits for the operator's {@code resume}. */
    static final Duration STOPPED_FOR = Duration.ofMillis(500);
    /** The handler takes up to this many ms of simulated time. */
    static final int MAX_HANDLER_MS = 30;
    /** Keys of the records: few, so that a key has many records in flight together in KEY ordering. */
    static final int KEYS = 5;
    /** One record in this many is poison: it fails at every attempt and is dead-lettered after three. */
    static final int POISON_ONE_IN = 40;
    /** Kafka's faults (no transactions here): slow requests, one in five, up to 300 ms. */
    static final KafkaModel.Faults KAFKA_FAULTS = new KafkaModel.Faults(0, 0, 0, 0.2, 300);

    /** One schedule's outcome. */
    record Result(
            long seed,
            Mode mode,
            List<Fault> plan,
            long steps,
            List<String> violations,
            long hash,
            String tail,
            long resets,
            long done,
            long deadLettered,
            long handled,
            long outputs,
            long rewoundByAborts,
            long handovers,
            long stopsBegun,
            long finalTransactions,
            long maxDone,
            long maxNode)
            implements ScheduleOutcome {}

    /**
     * The container's max span in every schedule of a mode with per-partition progress (not the batch handler's nor
     * the transactional mode's): {@code -Dgroupkeeper.containerSimulation.maxSpan=N}; unset: {@link #SMALL_SPAN} in one
     * schedule of four of {@code KEY} and {@code UNORDERED} ordering (seeds 3, 7, 11, ...), the container's default
     * (10,000) otherwise.
     */
    static final Integer MAX_SPAN = Integer.getInteger("groupkeeper.containerSimulation.maxSpan");

    /**
     * A span the schedules reach (a partition's records complete out of order, a poison record's retries hold its
     * low-water mark): dispatching stops at its end and the partition's fetching pauses, and the done set is bounded by
     * it.
     */
    static final int SMALL_SPAN = 8;

    private final Mode mode;
    private final KafkaWorld<Member> world;
    private final AdapterChecker checker;
    private final ContainerChecker order;
    private final Random handlerTimes;

    ContainerSimulation(long seed, Mode mode, List<Fault> plan) {
        this.mode = mode;
        this.world = new KafkaWorld<>(
                seed, plan, true, mode.transactional ? AdapterSimulation.KAFKA_FAULTS : KAFKA_FAULTS, this::member);
        this.checker = new AdapterChecker(world.zk, GROUP, TOPIC, mode.transactional, world.log);
        this.order =
                new ContainerChecker(world.zk, GROUP, TOPIC, mode.ordering, checker, world.log, world.clock::millis);
        this.handlerTimes = new Random(seed * 13 + 5);
        if (span() != null) {
            order.handovers().maxSpan(span());
        }
        if (mode.transactional) {
            checker.outputsOf(ContainerSimulation::inputOf);
            world.kafka.observe(checker.kafkaObserver());
            order.rewindsToKafka(p -> world.kafka
                    .committed(GROUP, new org.apache.kafka.common.TopicPartition(TOPIC, p))
                    .map(org.apache.kafka.clients.consumer.OffsetAndMetadata::offset)
                    .orElse(-1L));
            world.kafka.observe(closersFinalTransactions());
        }
    }

    /**
     * The transactional mode: which of Kafka's commits is a stopping container's final transaction (committed on its
     * worker's polling thread during its {@code stop}), and which outputs it carried, for {@link AdapterChecker}'s
     * judgement of graceful handovers.
     */
    private KafkaModel.Observer closersFinalTransactions() {
        return new KafkaModel.Observer() {
            @Override
            public void groupOffsetCommitted(
                    String g, org.apache.kafka.common.TopicPartition tp, long offset, Long before, String by) {
                Member m = stopping();
                if (m != null && tp.topic().equals(TOPIC)) {
                    checker.closerCommitted(m.id, tp.partition(), offset);
                }
            }

            @Override
            public void outputCommitted(org.apache.kafka.common.TopicPartition out, Object key, Object value) {
                Member m = stopping();
                String input = m == null ? null : inputOf(out, key, value); // "partition:offset"
                if (input != null) {
                    int colon = input.indexOf(':');
                    checker.closerOutput(
                            m.id,
                            Integer.parseInt(input.substring(0, colon)),
                            Long.parseLong(input.substring(colon + 1)));
                }
            }
        };
    }

    /** The member whose worker's polling thread runs now, if it is stopping. */
    private Member stopping() {
        String running = world.scheduler.running();
        for (Member m : world.members) {
            if (m.stopping && m.workerTag != null && m.workerTag.equals(running)) {
                return m;
            }
        }
        return null;
    }

    /**
     * The input record ("partition:offset") an output committed to Kafka is of: an output's key names it, a dead
     * letter's value ends with it (the transactional mode's records are "v@p:o" and "poison@p:o").
     */
    private static String inputOf(org.apache.kafka.common.TopicPartition out, Object key, Object value) {
        if (out.topic().equals(OUT)) {
            return text(key);
        }
        if (out.topic().equals(DLT)) {
            String v = text(value);
            return v.substring(v.indexOf('@') + 1);
        }
        return null;
    }

    private static String text(Object bytesOrString) {
        return bytesOrString instanceof byte[] b
                ? new String(b, java.nio.charset.StandardCharsets.UTF_8)
                : String.valueOf(bytesOrString);
    }

    static Result run(long seed, Mode mode, int faults) {
        return new ContainerSimulation(seed, mode, KafkaWorld.plan(seed, faults)).run();
    }

    /** Runs the schedule; a contended hang runs it again from its start with that hang exclusive (as testkit's). */
    Result run() {
        return world.run(this::runBounded, hangs -> {
            ContainerSimulation again = new ContainerSimulation(world.seed, mode, world.plan);
            again.world.exclusiveHangs(hangs);
            return again.run();
        });
    }

    /** The member id of the process whose simulated thread {@code tag} is; null: none. */
    private String processOf(String tag) {
        for (Member m : world.members) {
            if (m.proc.tags.contains(tag)) {
                return m.id;
            }
        }
        return null;
    }

    /** The container's max span in this schedule ({@link #MAX_SPAN}); null: the container's default. */
    private Integer span() {
        if (mode.handler == Handler.BATCH || mode.transactional) {
            return null; // (no per-partition progress: the builder refuses limits)
        }
        if (MAX_SPAN != null) {
            return MAX_SPAN;
        }
        return mode.ordering != Ordering.PARTITION && world.seed % 4 == 3 ? SMALL_SPAN : null;
    }

    private Result runBounded() {
        DrainWarnings drains =
                new DrainWarnings(order.handovers(), world.scheduler::running, this::processOf, () -> world.partitions);
        try {
            drains.attach();
            world.runBounded(
                    checker,
                    () -> {
                        world.kafka.createTopic(TOPIC, world.partitions);
                        if (mode.transactional) {
                            world.kafka.createTopic(OUT, 1);
                        }
                        world.join();
                        world.join();
                        world.join();
                    },
                    this::produce,
                    this::apply,
                    () -> {});
        } finally {
            drains.detach();
        }
        return new Result(
                world.seed,
                mode,
                world.plan,
                world.scheduler.steps(),
                List.copyOf(checker.violations()),
                world.log.hash(),
                world.log.tail(),
                checker.resets(),
                checker.doneRecords(),
                order.deadLettered(),
                order.handled(),
                checker.outputs(),
                order.rewoundByAborts(),
                mode.transactional
                        ? checker.handoversJudged()
                        : order.handovers().judged(),
                checker.handoversBegun(),
                checker.finalTransactions(),
                order.handovers().maxDone(),
                order.handovers().maxNode());
    }

    /** PARTITION ordering alternates between parallelism 1 (handler calls on the polling thread) and 4. */
    private int parallelism() {
        return mode == Mode.PARTITION && world.seed % 2 == 1 ? 1 : mode.parallelism;
    }

    private Member member(String id, String processTag) {
        if (mode.concurrency == 1) {
            return new Member(id, new WorldProcess(world, processTag, "ctl", id, null));
        }
        int[] made = {0}; // one member id per worker: m1, m1-1, ...
        return new Member(
                id,
                new WorldProcess(world, processTag, "ctl", () -> made[0]++ == 0 ? id : id + "-" + (made[0] - 1), null));
    }

    private static boolean poison(ConsumerRecord<String, String> r) {
        return r.value() != null && r.value().startsWith("poison");
    }

    // ------------------------------------------------------------------ the world's own

    /** One record: a poison one in {@link #POISON_ONE_IN}, one of {@link #KEYS} keys, as a broker holds them. */
    private void produce(org.apache.kafka.common.TopicPartition tp) {
        String value = world.produce.nextInt(POISON_ONE_IN) == 0 ? "poison" : "v";
        if (mode.transactional) { // a dead letter names its input
            value += "@" + tp.partition() + ":" + world.kafka.logEnd(tp);
        }
        world.kafka.append(
                tp,
                ("k" + world.produce.nextInt(KEYS)).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The faults of this world alone: operators' resets and edits of an offset node (no typos, no deletes). */
    private boolean apply(Fault f, int partition) {
        if (f.kind() != Fault.Kind.RESET && f.kind() != Fault.Kind.EDIT) {
            return false;
        }
        long value = KafkaWorld.resetValue(f, checker.logEnd(partition));
        if (mode.transactional && KafkaWorld.namedByKafkasMetadata(world.kafka, partition, value)) {
            // A value the last Kafka commit's metadata names: a claim cannot tell it from the committer's own write
            // and Kafka's offset wins (docs/exactly-once.md, "What remains ambiguous"), as in AdapterSimulation.
            world.log.event("(operator's write of t-" + partition + " to " + value + " skipped: Kafka's metadata "
                    + "names it)");
            return true;
        }
        world.zk.setOffset(KafkaWorld.offsetPath(partition), value);
        order.reset(partition, value);
        checker.reset(partition, value);
        return true;
    }

    // ------------------------------------------------------------------ members

    /** A member: the shipped listener container, with the simulation's handler. */
    private final class Member extends KafkaWorld.Member {
        final SimKafkaClients clients;
        final DefaultListenerContainer<String, String> container;
        final ScheduledExecutorService ctl;
        /** The worker's polling thread (its stalls). */
        String workerTag;
        /** In a graceful stop (transactional mode): Kafka's commits on the worker's thread are its final transaction. */
        boolean stopping;
        /** Where the asynchronous handler's stages complete (a thread of the process). */
        final String asyncTag;

        Member(String id, WorldProcess proc) {
            super(id, proc);
            this.ctl = world.scheduler.executor(proc.mainTag);
            this.clients = proc.clients(checker.violations()).threads(this::thread);
            ListenerContainerBuilder<String, String> b = ListenerContainer.<String, String>builder(proc.keeper)
                    .group(GROUP)
                    .topics(TOPIC)
                    .kafkaProperties(Map.of("bootstrap.servers", "model:9092", "max.poll.records", "40"))
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .ordering(mode.ordering)
                    .parallelism(parallelism())
                    .concurrency(mode.concurrency)
                    .errorPolicy(ErrorPolicy.builder()
                            .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(20)))
                                    .thenDeadLetter())
                            .build())
                    .deadLetterTopic(DLT)
                    .createDeadLetterTopics(true)
                    .pollTimeout(Duration.ofMillis(100))
                    .stopDeadline(Duration.ofSeconds(2))
                    .watchdog(Duration.ofSeconds(5))
                    .ticker(() -> world.clock.millis() * 1_000_000L)
                    .listener(new ContainerListener() {
                        /**
                         * A partition stopped (a dead letter the broker rejected: the transactional mode's rejected
                         * sends): the operator resumes it a while later, as the log line asks.
                         */
                        @Override
                        public void partitionStopped(io.groupkeeper.kafka.container.StoppedPartition stopped) {
                            world.log.event(id + " stopped " + stopped.partition() + " at " + stopped.offset());
                            ctl.schedule(
                                    () -> {
                                        if (!proc.crashed && container.resume(stopped.partition())) {
                                            world.log.event(id + " resumed " + stopped.partition());
                                        }
                                    },
                                    STOPPED_FOR.toMillis(),
                                    java.util.concurrent.TimeUnit.MILLISECONDS);
                        }

                        @Override
                        public void deadLettered(ConsumerRecord<byte[], byte[]> record, String topic, Throwable cause) {
                            if (!proc.crashed) {
                                order.deadLettered(id, record.partition(), record.offset());
                            }
                            if (!proc.crashed && mode.transactional) {
                                // A poison record is processed when it is dead-lettered (a batch's without a call of
                                // its own once the last attempt split the batch before it: seed 220).
                                checker.received(who(), record.partition(), record.offset());
                            }
                        }
                    })
                    .onPartitionsAssigned((assigned, seeker) -> {
                        checker.detail(who() + " assigned " + assigned);
                        assigned.forEach(tp -> {
                            checker.assigned(who(), seeker.fencingToken(tp), tp.partition());
                            order.assigned(who(), tp.partition());
                        });
                    })
                    .consumerOptions(o -> o.commitInterval(COMMIT_INTERVAL)
                            .revocationTimeout(REVOCATION_TIMEOUT)
                            .metadataRefreshInterval(Duration.ofSeconds(5))
                            .kafkaTimeout(Duration.ofSeconds(5))
                            .startPosition(StartPosition.earliest())
                            .outOfRange(OutOfRangePolicy.EARLIEST));
            if (span() != null) {
                b.maxSpan(span());
            }
            switch (mode.handler) {
                case RECORD -> b.recordHandler(this::handle);
                case BATCH -> b.batchHandler(this::handleBatch);
                case ASYNC -> b.asyncHandler(this::handleAsync);
            }
            if (mode.transactional) {
                b.transactional(new StringSerializer(), new StringSerializer());
            }
            this.container = ((DefaultListenerContainer<String, String>) b.build()).on(clients);
            this.asyncTag = mode.handler == Handler.ASYNC ? proc.register(proc.tag + "/async") : null;
        }

        /**
         * Who the checkers judge: the member; with several workers, the worker whose thread runs now (its polling
         * thread: the assignment hook, the handler at parallelism 1), each a member of the group of its own.
         */
        private String who() {
            return mode.concurrency == 1 ? id : world.scheduler.running();
        }

        /** A thread of the container (its worker and its handler threads are named as they name them). */
        private String thread(String name) {
            String t = proc.register(proc.tag + "/" + name);
            if (workerTag == null && !name.contains("-w")) {
                workerTag = t;
            }
            return t;
        }

        @Override
        boolean leads() {
            return container.workers().stream().anyMatch(WorkerStatus::leader);
        }

        @Override
        String stallTag() { // the worker's polling thread is slow
            return workerTag;
        }

        @Override
        void start() {
            ctl.execute(() -> {
                try {
                    container.start();
                    world.log.event(id + " started");
                } catch (RuntimeException e) {
                    gaveUp = true; // a failed start is final, as for what ships
                    world.log.event(id + " failed to start: " + e);
                    world.gaveUp();
                }
            });
        }

        /**
         * A graceful stop: drain, final commit with the done set (transactional: the final transaction, judged by
         * {@link AdapterChecker#closing}), leave.
         */
        @Override
        void leave() {
            leaving = true;
            ctl.execute(() -> {
                world.log.event(id + " stops");
                if (mode.transactional) {
                    checker.closing(
                            id,
                            proc.store.sessionId(),
                            container.workers().stream()
                                    .flatMap(w -> w.owned().stream())
                                    .map(org.apache.kafka.common.TopicPartition::partition)
                                    .toList());
                    stopping = true;
                }
                boolean all;
                try {
                    all = container.stop(Duration.ofSeconds(5));
                } finally {
                    stopping = false;
                }
                if (mode.transactional) {
                    checker.closed(id);
                }
                world.log.event(id + " stopped (" + (all ? "every worker exited" : "not every worker exited") + ")");
            });
        }

        /** The user's handler: takes simulated time; a poison record fails every time (dead-lettered after three). */
        private void handle(ConsumerRecord<String, String> r) {
            if (proc.crashed) {
                throw new IllegalStateException("crashed");
            }
            java.util.OptionalLong token = io.groupkeeper.kafka.container.HandlerContext.fencingToken();
            order.started(who(), r.partition(), r.key(), r.offset(), token);
            boolean ok = false;
            try {
                int ms = handlerTimes.nextInt(MAX_HANDLER_MS + 1);
                if (ms > 0) {
                    clients.sleepUntil(new CompletableFuture<>(), ms);
                }
                if (poison(r)) {
                    throw new IllegalArgumentException(
                            "poison record " + r.topic() + "-" + r.partition() + "@" + r.offset());
                }
                if (mode.transactional) { // sent into the partition's transaction when the call returns
                    io.groupkeeper.kafka.container.HandlerContext.<String, String>sender()
                            .send(OUT, r.partition() + ":" + r.offset(), r.value());
                    // Processed when the call returns, not when it starts: a call that fails leaves the record to
                    // its retry, and a stop hands it over undone (seed 746).
                    checker.received(who(), r.partition(), r.offset());
                }
                ok = true;
            } finally {
                if (!proc.crashed) {
                    order.ended(who(), r.partition(), r.key(), r.offset(), ok, token);
                }
            }
        }

        /**
         * The batch handler: takes simulated time for the batch; a poison record fails the batch at it
         * ({@link BatchFailedException}: the records before it are done, the policy retries it, the rest come again).
         */
        private void handleBatch(List<ConsumerRecord<String, String>> records) throws Exception {
            if (proc.crashed) {
                throw new IllegalStateException("crashed");
            }
            ConsumerRecord<String, String> first = records.get(0);
            java.util.OptionalLong token = io.groupkeeper.kafka.container.HandlerContext.fencingToken();
            order.started(id, first.partition(), first.key(), first.offset(), token);
            checker.detail(id + " batch " + first.topic() + "-" + first.partition() + " " + first.offset() + ".."
                    + records.get(records.size() - 1).offset());
            int failed = -1;
            try {
                int ms = handlerTimes.nextInt(MAX_HANDLER_MS + 1);
                if (ms > 0) {
                    clients.sleepUntil(new CompletableFuture<>(), ms);
                }
                for (int i = 0; i < records.size() && failed < 0; i++) {
                    ConsumerRecord<String, String> r = records.get(i);
                    if (poison(r)) {
                        failed = i;
                    } else if (mode.transactional) { // the records before a failing one are done: their outputs go
                        io.groupkeeper.kafka.container.HandlerContext.<String, String>sender()
                                .send(OUT, r.partition() + ":" + r.offset(), r.value());
                        checker.received(who(), r.partition(), r.offset());
                    }
                }
            } finally {
                if (!proc.crashed) {
                    int done = failed < 0 ? records.size() : failed;
                    order.ended(id, first.partition(), first.key(), first.offset(), done > 0, token);
                    for (int i = 1; i < done; i++) {
                        order.handledWithBatch(first.partition(), records.get(i).offset(), token);
                    }
                }
            }
            if (failed >= 0) {
                ConsumerRecord<String, String> r = records.get(failed);
                throw new BatchFailedException(
                        failed,
                        new IllegalArgumentException(
                                "poison record " + r.topic() + "-" + r.partition() + "@" + r.offset()));
            }
        }

        /**
         * The asynchronous handler: starts on the polling thread, its stage completes after a seeded 0 to
         * {@link #MAX_HANDLER_MS} ms on a thread of the process (exceptionally for a poison record).
         */
        private java.util.concurrent.CompletionStage<Void> handleAsync(ConsumerRecord<String, String> r) {
            if (proc.crashed) {
                throw new IllegalStateException("crashed");
            }
            java.util.OptionalLong token = io.groupkeeper.kafka.container.HandlerContext.fencingToken();
            order.started(id, r.partition(), r.key(), r.offset(), token);
            CompletableFuture<Void> stage = new CompletableFuture<>();
            int ms = handlerTimes.nextInt(MAX_HANDLER_MS + 1);
            world.scheduler
                    .executor(asyncTag)
                    .schedule(
                            () -> {
                                if (proc.crashed) {
                                    return;
                                }
                                boolean ok = !poison(r);
                                order.ended(id, r.partition(), r.key(), r.offset(), ok, token);
                                if (ok) {
                                    stage.complete(null);
                                } else {
                                    stage.completeExceptionally(new IllegalArgumentException(
                                            "poison record " + r.topic() + "-" + r.partition() + "@" + r.offset()));
                                }
                            },
                            ms,
                            java.util.concurrent.TimeUnit.MILLISECONDS);
            return stage;
        }
    }
}

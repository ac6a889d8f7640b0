package io.groupkeeper.testkit.sim;

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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
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
 * <p>The world (processes, faults, production, healing, the bounded run) is {@link KafkaWorld}'s, shared with
 * {@link AdapterSimulation}; what is the container's own here: its members, its records' keys and poison, its
 * operator's resets and its checks. The seeded draws come in the order they came when it had a world of its own.
 */
final class ContainerSimulation {

    /** The container's ordering and parallelism in a schedule. */
    enum Mode {
        PARTITION(Ordering.PARTITION, 4),
        KEY(Ordering.KEY, 4),
        UNORDERED(Ordering.UNORDERED, 4);

        final Ordering ordering;
        final int parallelism;

        Mode(Ordering ordering, int parallelism) {
            this.ordering = ordering;
            this.parallelism = parallelism;
        }
    }

    static final String GROUP = KafkaWorld.GROUP;
    static final String TOPIC = KafkaWorld.TOPIC;
    static final String DLT = "t.dlt";
    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(500);
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
            long handled)
            implements ScheduleOutcome {}

    private final Mode mode;
    private final KafkaWorld<Member> world;
    private final AdapterChecker checker;
    private final ContainerChecker order;
    private final Random handlerTimes;

    ContainerSimulation(long seed, Mode mode, List<Fault> plan) {
        this.mode = mode;
        this.world = new KafkaWorld<>(seed, plan, true, KAFKA_FAULTS, this::member);
        this.checker = new AdapterChecker(world.zk, GROUP, TOPIC, false, world.log);
        this.order =
                new ContainerChecker(world.zk, GROUP, TOPIC, mode.ordering, checker, world.log, world.clock::millis);
        this.handlerTimes = new Random(seed * 13 + 5);
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

    private Result runBounded() {
        world.runBounded(
                checker,
                () -> {
                    world.kafka.createTopic(TOPIC, world.partitions);
                    world.join();
                    world.join();
                    world.join();
                },
                this::produce,
                this::apply,
                () -> {});
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
                order.handled());
    }

    /** PARTITION ordering alternates between parallelism 1 (handler calls on the polling thread) and 4. */
    private int parallelism() {
        return mode == Mode.PARTITION && world.seed % 2 == 1 ? 1 : mode.parallelism;
    }

    private Member member(String id, String processTag) {
        return new Member(id, new WorldProcess(world, processTag, "ctl", id, null));
    }

    // ------------------------------------------------------------------ the world's own

    /** One record: a poison one in {@link #POISON_ONE_IN}, one of {@link #KEYS} keys, as a broker holds them. */
    private void produce(org.apache.kafka.common.TopicPartition tp) {
        String value = world.produce.nextInt(POISON_ONE_IN) == 0 ? "poison" : "v";
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

        Member(String id, WorldProcess proc) {
            super(id, proc);
            this.ctl = world.scheduler.executor(proc.mainTag);
            this.clients = proc.clients(checker.violations()).threads(this::thread);
            ListenerContainer<String, String> built = ListenerContainer.<String, String>builder(proc.keeper)
                    .group(GROUP)
                    .topics(TOPIC)
                    .kafkaProperties(Map.of("bootstrap.servers", "model:9092", "max.poll.records", "40"))
                    .deserializers(new StringDeserializer(), new StringDeserializer())
                    .ordering(mode.ordering)
                    .parallelism(parallelism())
                    .recordHandler(this::handle)
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
                        @Override
                        public void deadLettered(ConsumerRecord<byte[], byte[]> record, String topic, Throwable cause) {
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
                    .consumerOptions(b -> b.commitInterval(COMMIT_INTERVAL)
                            .revocationTimeout(REVOCATION_TIMEOUT)
                            .metadataRefreshInterval(Duration.ofSeconds(5))
                            .kafkaTimeout(Duration.ofSeconds(5))
                            .startPosition(StartPosition.earliest())
                            .outOfRange(OutOfRangePolicy.EARLIEST))
                    .build();
            this.container = ((DefaultListenerContainer<String, String>) built).on(clients);
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

        /** A graceful stop: drain, final commit with the done set, leave. */
        @Override
        void leave() {
            leaving = true;
            ctl.execute(() -> {
                world.log.event(id + " stops");
                boolean all = container.stop(Duration.ofSeconds(5));
                world.log.event(id + " stopped (" + (all ? "every worker exited" : "not every worker exited") + ")");
            });
        }

        /** The user's handler: takes simulated time; a poison record fails every time (dead-lettered after three). */
        private void handle(ConsumerRecord<String, String> r) {
            if (proc.crashed) {
                throw new IllegalStateException("crashed");
            }
            order.started(
                    id,
                    r.partition(),
                    r.key(),
                    r.offset(),
                    io.groupkeeper.kafka.container.HandlerContext.fencingToken());
            boolean ok = false;
            try {
                int ms = handlerTimes.nextInt(MAX_HANDLER_MS + 1);
                if (ms > 0) {
                    clients.sleepUntil(new CompletableFuture<>(), ms);
                }
                if ("poison".equals(r.value())) {
                    throw new IllegalArgumentException(
                            "poison record " + r.topic() + "-" + r.partition() + "@" + r.offset());
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

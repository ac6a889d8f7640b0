package io.groupkeeper.testkit.sim;

import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.internal.AdapterConfig;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.kafka.internal.TransactionalConfig;
import io.groupkeeper.kafka.sim.KafkaModel;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * <p>The world (processes, faults, production, healing, the bounded run) is {@link KafkaWorld}'s, shared with
 * {@link ContainerSimulation}, where the listener container runs (docs/simulation-adapter.md); what is the member
 * simulation's own here: its members, its operator's faults (typos, deletes, writes Kafka's metadata names) and its
 * checks.
 */
final class AdapterSimulation {

    static final String GROUP = KafkaWorld.GROUP;
    static final String TOPIC = KafkaWorld.TOPIC;
    static final String OUT = "out";
    static final Duration REVOCATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(500);
    static final long POLL_MS = 100;
    /**
     * Kafka's faults in these schedules: requests that time out before or after they land (2 % each), rejected sends
     * (1 %), slow requests (one in five, up to 300 ms).
     */
    static final KafkaModel.Faults KAFKA_FAULTS = new KafkaModel.Faults(0.02, 0.02, 0.01, 0.2, 300);

    /** One schedule's outcome. */
    record Result(
            long seed,
            boolean transactional,
            List<Fault> plan,
            long steps,
            List<String> violations,
            long hash,
            String tail,
            long resets,
            long retentions,
            long corrected,
            long landedLate,
            long abortedByInit,
            long done,
            long outputs,
            long handovers,
            long handoversBegun,
            long finalTransactions)
            implements ScheduleOutcome {}

    private final boolean transactional;
    private final KafkaWorld<Member> world;
    private final AdapterChecker checker;
    /** Offset nodes an operator's typo left unparsable, not repaired yet. */
    private final Set<Integer> corrupt = new HashSet<>();
    /** The members whose graceful leave ended (the keepers' metrics: {@code memberClosed}). */
    private final Set<String> left = new HashSet<>();
    /** Offsets the out-of-range policy corrected and stored (the keepers' metrics: {@code offsetCorrected}). */
    private long corrected;

    AdapterSimulation(long seed, boolean transactional, List<Fault> plan) {
        this.transactional = transactional;
        this.world = new KafkaWorld<>(seed, plan, false, KAFKA_FAULTS, this::member);
        world.retention();
        this.checker = new AdapterChecker(world.zk, GROUP, TOPIC, transactional, world.log);
        world.kafka.observe(checker.kafkaObserver());
        world.kafka.observe(
                new KafkaModel.Observer() { // which of Kafka's commits is a closing member's final transaction
                    @Override
                    public void groupOffsetCommitted(
                            String g, org.apache.kafka.common.TopicPartition tp, long offset, Long before, String by) {
                        for (Member m : world.members) {
                            if (m.closing
                                    && m.proc.mainTag.equals(world.scheduler.running())
                                    && tp.topic().equals(TOPIC)) {
                                checker.closerCommitted(m.id, tp.partition(), offset);
                            }
                        }
                    }

                    @Override
                    public void outputCommitted(org.apache.kafka.common.TopicPartition out, Object key, Object value) {
                        for (Member m : world.members) {
                            if (m.closing && m.proc.mainTag.equals(world.scheduler.running())) {
                                String input = (String) key; // "partition:offset"
                                int colon = input.indexOf(':');
                                checker.closerOutput(
                                        m.id,
                                        Integer.parseInt(input.substring(0, colon)),
                                        Long.parseLong(input.substring(colon + 1)));
                            }
                        }
                    }
                });
    }

    static Result run(long seed, boolean transactional, int faults) {
        return new AdapterSimulation(seed, transactional, KafkaWorld.plan(seed, faults)).run();
    }

    /** Runs the schedule; a contended hang runs it again from its start with that hang exclusive (as testkit's). */
    Result run() {
        return world.run(this::runBounded, hangs -> {
            AdapterSimulation again = new AdapterSimulation(world.seed, transactional, world.plan);
            again.world.exclusiveHangs(hangs);
            return again.run();
        });
    }

    private Result runBounded() {
        world.runBounded(
                checker,
                () -> {
                    world.kafka.createTopic(TOPIC, world.partitions);
                    world.kafka.createTopic(OUT, 1);
                    world.join();
                    world.join();
                    world.join();
                },
                tp -> world.kafka.append(tp, null, "v"),
                this::apply,
                () -> List.copyOf(corrupt).forEach(this::repair));
        return new Result(
                world.seed,
                transactional,
                world.plan,
                world.scheduler.steps(),
                List.copyOf(checker.violations()),
                world.log.hash(),
                world.log.tail(),
                checker.resets(),
                checker.retentions(),
                corrected,
                world.kafka.landedLate(),
                world.kafka.abortedByInit(),
                checker.doneRecords(),
                checker.outputs(),
                checker.handoversJudged(),
                checker.handoversBegun(),
                checker.finalTransactions());
    }

    private Member member(String id, String processTag) {
        return new Member(
                id, new WorldProcess(world, processTag, "poll", id, new io.groupkeeper.metrics.GroupMetrics() {
                    @Override
                    public void memberClosed(String group, String member) {
                        left.add(member);
                    }

                    @Override
                    public void offsetCorrected(String group, io.groupkeeper.TopicPartition partition, String policy) {
                        corrected++;
                    }
                }));
    }

    // ------------------------------------------------------------------ the operator's faults

    /** The faults of this world alone: operators' resets, edits, typos and deletes of an offset node. */
    private boolean apply(Fault f, int partition) {
        switch (f.kind()) {
            case RESET, EDIT -> {
                long value = KafkaWorld.resetValue(f, checker.logEnd(partition));
                if (transactional && namedByKafkasMetadata(partition, value)) {
                    // A value the last Kafka commit's metadata names (not its offset): a claim cannot tell it from
                    // the committer's own write and Kafka's offset wins (docs/exactly-once.md, "What remains
                    // ambiguous"; seed 138: an edit of t-4 to 20 after its owner crashed).
                    world.log.event("(operator's write of t-" + partition + " to " + value
                            + " skipped: Kafka's metadata " + "names it)");
                    return true;
                }
                world.zk.setOffset(offsetPath(partition), value);
                corrupt.remove(partition);
                checker.reset(partition, value);
            }
            case TYPO -> { // a hand edit that does not parse, repaired later (a valid edit: the operator's reset)
                if (corrupt.add(partition)) {
                    world.zk.writeGarbage(offsetPath(partition), "1200O");
                    world.log.event("operator's typo in the offset node of " + TOPIC + "-" + partition);
                    world.sim.schedule(() -> repair(partition), f.durationMillis(), TimeUnit.MILLISECONDS);
                }
            }
            case DELETE -> { // a fresh start: the start position (earliest, the log start 0), stored at once
                if (transactional && world.zk.exists(offsetPath(partition)) && namedByKafkasMetadata(partition, -1)) {
                    // "No offset" is what the last Kafka commit's metadata names (committed while ZooKeeper held
                    // none): a claim cannot tell the deletion from that and Kafka's offset wins (docs/exactly-once.md,
                    // "What remains ambiguous"), as for an edit to a value the metadata names.
                    world.log.event(
                            "(operator's delete of t-" + partition + " skipped: Kafka's metadata names no offset)");
                    return true;
                }
                if (world.zk.exists(offsetPath(partition))) {
                    world.zk.delete(offsetPath(partition));
                    corrupt.remove(partition);
                    checker.reset(partition, 0);
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code value} is in the partition's last Kafka commit's {@code groupkeeper:zk=} values and not its offset. */
    private boolean namedByKafkasMetadata(int partition, long value) {
        return KafkaWorld.namedByKafkasMetadata(world.kafka, partition, value);
    }

    private static String offsetPath(int partition) {
        return KafkaWorld.offsetPath(partition);
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
                value = world.kafka
                        .committed(GROUP, new org.apache.kafka.common.TopicPartition(TOPIC, partition))
                        .orElseThrow()
                        .offset();
            }
            if (value != asked) {
                world.log.event("(operator's repair of t-" + partition + " to " + asked + " made " + value
                        + ": Kafka's " + "metadata names " + asked + ")");
            }
            world.zk.setOffset(offsetPath(partition), value);
            checker.reset(partition, value);
        }
    }

    // ------------------------------------------------------------------ members

    /** A member: the shipped adapter, and user code on its polling thread. */
    private final class Member extends KafkaWorld.Member {
        final DefaultCoordinatedConsumer<String, String> consumer;
        final ScheduledExecutorService poller;
        boolean started;
        /** Inside {@code close()} on its polling thread: its Kafka commits now are the close's final transactions. */
        boolean closing;

        Member(String id, WorldProcess proc) {
            super(id, proc);
            this.poller = world.scheduler.executor(proc.mainTag);
            AdapterConfig<String, String> config = new AdapterConfig<>(
                    proc.keeper,
                    GROUP,
                    Set.of(TOPIC),
                    Map.of("bootstrap.servers", "model:9092", "max.poll.records", "40"),
                    new StringDeserializer(),
                    new StringDeserializer(),
                    COMMIT_INTERVAL,
                    Duration.ofSeconds(5),
                    REVOCATION_TIMEOUT,
                    Duration.ofSeconds(5),
                    StartPosition.earliest(),
                    OutOfRangePolicy.EARLIEST,
                    new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(
                                java.util.Collection<org.apache.kafka.common.TopicPartition> p) {
                            checker.detail(id + " revoked " + p);
                        }

                        @Override
                        public void onPartitionsAssigned(
                                java.util.Collection<org.apache.kafka.common.TopicPartition> p) {
                            checker.detail(id + " assigned " + p);
                            p.forEach(
                                    tp -> checker.assigned(id, Member.this.consumer.fencingToken(tp), tp.partition()));
                        }
                    },
                    null,
                    mb -> {},
                    null,
                    transactional
                            ? new TransactionalConfig(new StringSerializer(), new StringSerializer(), "sim-", Map.of())
                            : null,
                    new KafkaClientListener() {});
            this.consumer = new DefaultCoordinatedConsumer<>(config, proc.clients(checker.violations()));
        }

        @Override
        boolean leads() {
            return consumer.isLeader();
        }

        @Override
        void start() {
            poller.execute(this::loop);
        }

        @Override
        void leave() {
            leaving = true; // its polling thread closes the consumer at its next turn (close(): final commit, leave)
        }

        @Override
        String stallTag() { // the polling thread is slow: its callbacks queue, its revocations wait
            return proc.mainTag;
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
                    world.log.event(id + " started");
                } catch (RuntimeException e) {
                    gaveUp = true; // a failed start is final, as for what ships
                    world.log.event(id + " failed to start: " + e);
                    world.gaveUp();
                    return;
                }
            }
            try {
                pollOnce();
            } catch (WakeupException e) {
                // the user's wakeup(): none here
            } catch (RuntimeException e) {
                world.log.event(id + " poll failed: " + e);
            }
            poller.schedule(this::loop, POLL_MS, TimeUnit.MILLISECONDS);
        }

        /** A graceful close on the polling thread: the final commit, the releases with it, the leave. */
        private void close() {
            world.log.event(id + " closes");
            checker.closing(
                    id,
                    proc.store.sessionId(),
                    consumer.assignment().stream()
                            .map(org.apache.kafka.common.TopicPartition::partition)
                            .toList());
            closing = true;
            try {
                consumer.close();
            } finally {
                closing = false;
            }
            // A wait outside the simulation gave up (a real future's). Not for a consumer closed before its first turn
            // started it (a LEAVE at the instant of its JOIN): its member never joined, so it has nothing to leave.
            if (started && !left.contains(id) && !proc.crashed) {
                checker.violations().add("simulator: " + id + "'s close() returned before its member had left");
            }
            checker.closed(id);
            world.log.event(id + " closed");
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
                    Future<RecordMetadata> sent = consumer.send(
                            tp, new ProducerRecord<>(OUT, 0, tp.partition() + ":" + r.offset(), r.value()));
                    if (rejected(sent)) { // the container's path: abort, the records come again
                        long at = consumer.abort(tp);
                        checker.aborted(id, tp.partition(), at);
                        world.log.event(
                                id + " output of " + tp + "@" + r.offset() + " rejected; aborted, back at " + at);
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

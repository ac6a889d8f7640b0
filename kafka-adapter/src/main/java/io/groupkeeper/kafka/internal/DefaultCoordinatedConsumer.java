package io.groupkeeper.kafka.internal;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.log.internal.LogContext;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The {@link CoordinatedConsumer}: the poll loop and its lifecycle (LATENT → STARTED → CLOSED). Its pieces, each with
 * one job:
 *
 * <ul>
 *   <li>{@link LaneBridge}: the member's lane (groupkeeper's rebalance callbacks) and the store's connection events
 *   become events for the polling thread; a revocation waits on the lane until the polling thread has served it, so
 *   the member releases the partitions only after that (invariant I1, no work lost on handoff);</li>
 *   <li>{@link LaneEvents}: the polling thread's side of the bridge, serving those events;</li>
 *   <li>{@link Positions}: the owned partitions and their position, committed offset and pause (the adapter's
 *   {@code SubscriptionState}); {@link ConsumerSync} makes the {@code KafkaConsumer} fetch what it says;</li>
 *   <li>{@link PositionResolver}: start positions and the {@link OutOfRangePolicy};</li>
 *   <li>{@link PositionCommitter}: what is committed to the store, and when; final offsets on revocation;</li>
 *   <li>smaller ones: {@link RebalanceListenerInvoker}, {@link ConsumerWarmUp}, {@link PollingThreadGuard},
 *   {@link ConsumerProperties}, {@link OffsetMirror}, {@link KafkaTopicMetadata}.</li>
 * </ul>
 *
 * <p>The <b>polling thread</b> (the user's, inside {@code poll}/{@code commitSync}/{@code close}) owns the
 * {@code KafkaConsumer} and all partition state: it serves the bridge's events, commits, seeks, and filters out records
 * fetched for partitions that changed while they were in flight. A third thread lives only during {@code start()}: the
 * member joins on it while the calling thread warms the {@code KafkaConsumer} up, and its end wakes the consumer.
 *
 * <p>Deadlock care: {@code close()} commits and drops everything and {@linkplain LaneBridge#stopServing() stops
 * serving} before it calls {@code member.close()}; the revocation that triggers on the lane then returns at once.
 *
 * <p>The {@code KafkaConsumer} is created with {@code auto.offset.reset=none} and every owned partition is always
 * positioned explicitly ({@code seek}), so an out-of-range offset surfaces as {@link InvalidOffsetException} and goes
 * through the {@link OutOfRangePolicy}. Partitions without a resolved position, and partitions stopped by
 * {@link OutOfRangePolicy#FAIL}, are owned but not assigned to the {@code KafkaConsumer}.
 *
 * <p>About 710 lines: the one place where the {@code KafkaConsumer}'s thread meets the member's lane (poll, commit,
 * seek, close and the hand-offs between them must see one state); the parts with a job of their own are already out
 * ({@link PositionResolver}, {@link LaneBridge}, {@code KafkaTransactions}, the offset mirror).
 */
public final class DefaultCoordinatedConsumer<K, V> implements CoordinatedConsumer<K, V>, ProgressCommits {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final AdapterConfig<K, V> config;
    private final GroupKeeper keeper;
    private final String group;
    private final long createdNanos;
    /** Kafka's clients, the clock and the waits ({@link KafkaClients#REAL} but in the simulation). */
    private final KafkaClients clients;
    /** Copies successful commits to Kafka's group offsets (opt-in); null when off. */
    private final OffsetMirror mirror;

    private final LaneBridge bridge;
    private final PollingThreadGuard guard;
    private final RebalanceListenerInvoker listener;
    private final ConsumerWarmUp warmUp;

    private volatile State state = State.LATENT;
    private volatile Consumer<K, V> consumer;
    private volatile GroupMember member;
    private volatile KafkaTopicMetadata metadata;
    private volatile boolean userWakeup;

    // Polling-thread state (guarded by the guard); all but the positions made in start(), with the member and the
    // KafkaConsumer.
    private final Positions positions;
    private ConsumerSync<K, V> sync;
    private PositionResolver resolver;
    private PositionCommitter committer;
    private LaneEvents events;
    /** The transactional mode's producers; null when off. */
    private KafkaTransactions txns;
    /** The {@code KafkaConsumer}'s client id (for the client listener). */
    private String clientId;

    public DefaultCoordinatedConsumer(AdapterConfig<K, V> config) {
        this(config, KafkaClients.REAL);
    }

    /** With Kafka's clients, the clock and the waits from {@code clients} (the simulation's model). */
    public DefaultCoordinatedConsumer(AdapterConfig<K, V> config, KafkaClients clients) {
        this.clients = clients;
        this.createdNanos = clients.nanoTime();
        this.config = config;
        this.keeper = config.keeper();
        this.group = config.groupId();
        this.mirror = config.mirrors()
                ? new OffsetMirror(
                        group,
                        config.mirrorGroup(),
                        config.kafkaProperties(),
                        keeper.metrics(),
                        config.kafkaTimeout(),
                        Duration.ofMinutes(1),
                        System::nanoTime)
                : null;
        this.bridge = new LaneBridge(group, this::memberId, config.revocationTimeout(), clients);
        this.guard = new PollingThreadGuard(group, () -> {
            GroupMember m = member;
            return m == null ? null : m.memberId();
        });
        this.listener = new RebalanceListenerInvoker(config.listener(), group, this::memberId);
        this.warmUp = new ConsumerWarmUp(
                config.topics(), config.kafkaProperties().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.positions = new Positions(keeper.metrics(), group, this::memberId);
    }

    /**
     * Parses the Kafka properties as this consumer's {@code KafkaConsumer} and, in the transactional mode, its
     * producers will ({@code CoordinatedConsumer.Builder.validate}); throws Kafka's {@code ConfigException} naming the
     * bad one.
     */
    public static void validateProperties(AdapterConfig<?, ?> config) {
        ConsumerProperties.validate(config);
        if (config.transactional() != null) {
            KafkaTransactions.validate(config);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public CoordinatedConsumer<K, V> start() {
        guard.enter();
        try {
            if (state != State.LATENT) {
                throw new IllegalStateException("consumer of group " + group + " already "
                        + state.name().toLowerCase());
            }
            ConsumerProperties.validate(
                    config); // a bad property fails here, before the group sees a member come and go
            GroupKeeper.MemberBuilder mb = keeper.member(group);
            // KIP-881: the consumer's client.rack is the member's rack (memberOptions may still set another).
            Object rack = config.kafkaProperties().get(ConsumerConfig.CLIENT_RACK_CONFIG);
            if (rack != null && !rack.toString().isBlank()) {
                try {
                    mb.rack(rack.toString());
                } catch (IllegalArgumentException e) {
                    // The member's own configuration: one clear error, before the group sees a member come and go.
                    throw new IllegalArgumentException(
                            "client.rack \"" + rack + "\" cannot be the rack of a member "
                                    + "of group " + group + ": " + e.getMessage()
                                    + " (groupkeeper stores it in the member node; "
                                    + "Kafka itself puts no limit on client.rack)",
                            e);
                }
            }
            config.memberOptions().accept(mb);
            KafkaTopicMetadata md = new KafkaTopicMetadata(
                    config.kafkaProperties(), config.metadataRefreshInterval(), config.kafkaTimeout(), group, clients);
            mb.topics(config.topics()).listener(bridge).metadata(md);
            if (config.instanceId() != null) {
                mb.instanceId(config.instanceId());
            }
            GroupMember m = mb.build();
            bridge.tokensFrom(m::fencingToken); // each queued assignment is served only under the claim it came with
            this.metadata = md;
            this.member = m;
            MDC.put(LogContext.MEMBER, m.memberId()); // (restored when start() returns)
            if (mirror != null) {
                mirror.member(m.memberId());
            }
            // The KafkaConsumer first (~1-2 ms of CPU; an unusable setting such as an unresolvable bootstrap server
            // then fails before the group sees a member come and go), then the join on the member's lane while this
            // thread warms the consumer up: metadata and the broker connections cost the first fetch ~3.5 ms on a
            // loopback broker (far more over TLS or SASL), and are ready when the first partitions arrive.
            // benchmarks/HISTORY.md ("What changed since the first runs") compares the orders tried.
            Consumer<K, V> c;
            try {
                Map<String, Object> consumerProps = ConsumerProperties.of(config, m.memberId());
                c = clients.consumer(consumerProps, config.keyDeserializer(), config.valueDeserializer());
                this.clientId = String.valueOf(consumerProps.get(ConsumerConfig.CLIENT_ID_CONFIG));
            } catch (RuntimeException e) {
                bridge.stopServing();
                state = State.CLOSED;
                closeQuietly("group member", m::close); // never started: only leaves the keeper's list
                closeQuietly("topic metadata", md::close);
                throw e;
            }
            try { // (outside the try above: a listener that throws must not leak the consumer)
                config.clientListener().consumerAdded(clientId, c);
            } catch (RuntimeException e) {
                LOG.warn("the KafkaClientListener threw on consumerAdded({}): {}", clientId, e.toString());
            }
            this.consumer = c;
            this.sync = new ConsumerSync<>(c, positions, config.kafkaTimeout());
            this.resolver =
                    new PositionResolver(group, config.startPosition(), config.outOfRange(), sync, clients::nanoTime);
            this.txns = config.transactional() == null
                    ? null
                    : new KafkaTransactions(
                            keeper.store().namespace(),
                            group,
                            config.transactional(),
                            config.kafkaProperties(),
                            config.kafkaTimeout(),
                            positions,
                            sync,
                            m::fencingToken,
                            m::refresh,
                            keeper.store()::isConnected,
                            config.clientListener(),
                            clients);
            this.committer = new PositionCommitter(
                    group,
                    m,
                    positions,
                    mirror,
                    keeper.metrics(),
                    config.commitInterval(),
                    config.outOfRange(),
                    clients::nanoTime,
                    createdNanos,
                    new Effects(),
                    txns);
            this.events = new LaneEvents(bridge, positions, resolver, committer, sync, listener);
            bridge.wakeUpWith(c::wakeup);
            keeper.store().addConnectionListener(bridge);
            try {
                joinWhileWarmingUp(m, c, md);
            } catch (RuntimeException e) {
                bridge.stopServing(); // nothing reached user code: the member's revocations need not wait for a poll()
                state = State.CLOSED;
                keeper.store().removeConnectionListener(bridge);
                closeQuietly("group member", m::close);
                closeQuietly("topic metadata", md::close);
                closeQuietly("Kafka consumer", () -> {
                    config.clientListener().consumerRemoved(clientId, c);
                    c.close(Duration.ZERO);
                });
                throw e;
            }
            state = State.STARTED;
            LOG.info(
                    "consumer {} started (topics {}, start {}, outOfRange {}, commit every {} ms)",
                    m.memberId(),
                    new TreeSet<>(config.topics()),
                    config.startPosition(),
                    config.outOfRange(),
                    config.commitInterval().toMillis());
            return this;
        } finally {
            guard.exit();
        }
    }

    /**
     * Starts the member ({@link GroupMember#startAsync}: the join runs on the member's own lane) and warms {@code c} up
     * on this thread: the topics' look-up whole, handed to {@code md} (if this member turns out to lead, its first
     * assignment waits for those counts rather than for an Admin client of its own), then the leaders' connections
     * until the member has joined (the join's end wakes the consumer; a partition assigned meanwhile does too).
     * Rethrows the member's failure.
     */
    private void joinWhileWarmingUp(GroupMember m, Consumer<K, V> c, KafkaTopicMetadata md) {
        long deadline = ConsumerWarmUp.deadline(config.kafkaTimeout().toNanos());
        md.expectLookUp();
        CompletableFuture<Void> started = m.startAsync();
        warmUp.lookUpTopics(c, deadline);
        md.watch(config.topics(), warmUp.found(), warmUp.notFound()); // what the look-up learned needs no Admin
        // From here the join's end ends the warm-up; a wake-up left pending is absorbed by the next poll.
        CompletableFuture<Void> joined = started.whenComplete((ok, failure) -> c.wakeup());
        warmUp.connectToLeaders(c, deadline);
        try {
            while (!clients.await(joined, Long.MAX_VALUE / 2)) {
                // (a simulated wait may return early)
            }
            joined.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        guard.enter();
        try {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.LATENT) {
                state = State.CLOSED;
                return;
            }
            try {
                events.serve();
            } catch (RuntimeException e) {
                LOG.warn("serving pending changes on close failed: {}", e.toString());
            }
            List<TopicPartition> owned = Partitions.kafka(positions.owned());
            if (!owned.isEmpty()) {
                listener.revoked(owned);
            }
            try {
                committer.commitFinalOnClose();
            } catch (RuntimeException e) {
                LOG.warn(
                        "final commit on close failed (the next owner repeats from the last " + "commit): {}",
                        e.toString());
            }
            positions.owned().forEach(positions::remove);
            sync.sync();
            bridge.stopServing(); // so the revocation member.close() triggers on the lane returns at once
            keeper.store().removeConnectionListener(bridge);
            // Before the member leaves: a partition-count question to a Kafka that cannot be reached, under way on the
            // member's lane, then fails at once instead of holding the leave for its timeout.
            closeQuietly("topic metadata", metadata::close);
            closeQuietly("group member", this::leave);
        } finally {
            bridge.stopServing();
            state = State.CLOSED;
            Consumer<K, V> c = consumer;
            if (c != null) {
                closeQuietly("KafkaConsumer", () -> {
                    config.clientListener().consumerRemoved(clientId, c);
                    c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                });
            }
            KafkaTopicMetadata md = metadata;
            if (md != null) {
                closeQuietly("topic metadata", md::close);
            }
            if (mirror != null) {
                closeQuietly("offset mirror", mirror::close); // the final commit's offsets, bounded wait
            }
            KafkaTransactions t = txns;
            if (t != null) {
                closeQuietly("transactional producers", t::close);
            }
            guard.exit();
        }
    }

    // ------------------------------------------------------------------ queries

    @Override
    public Set<TopicPartition> assignment() {
        return positions.assignmentView();
    }

    @Override
    public OptionalLong fencingToken(TopicPartition partition) {
        GroupMember m = member;
        return m == null ? OptionalLong.empty() : m.fencingToken(Partitions.gk(partition));
    }

    @Override
    public String groupId() {
        return group;
    }

    @Override
    public String memberId() {
        GroupMember m = member;
        return m == null ? "(not started)" : m.memberId();
    }

    @Override
    public boolean isLeader() {
        GroupMember m = member;
        return m != null && state == State.STARTED && m.isLeader();
    }

    @Override
    public Set<String> missingTopics() {
        KafkaTopicMetadata md = metadata;
        return md == null ? Set.of() : md.missingTopics();
    }

    @Override
    public Set<TopicPartition> paused() {
        return positions.pausedView();
    }

    @Override
    public String toString() {
        return "CoordinatedConsumer[" + group + "/" + memberId() + "]";
    }

    // ------------------------------------------------------------------ seek, pause, wakeup

    @Override
    public void seek(TopicPartition partition, long offset) {
        guard.enter();
        try {
            requireStarted();
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, was " + offset);
            }
            OwnedPartition p = positions.get(partition);
            if (p == null) {
                throw new IllegalStateException("group " + group + ": " + partition + " is not owned by " + memberId());
            }
            sync.seek(p, offset);
            sync.sync();
        } finally {
            guard.exit();
        }
    }

    /** How long a revocation waits for this consumer's final commit (the listener container drains within it). */
    public Duration revocationTimeout() {
        return config.revocationTimeout();
    }

    @Override
    public void offsetMetadata(TopicPartition partition, String metadata) {
        Objects.requireNonNull(metadata, "metadata");
        guard.enter();
        try {
            requireStarted();
            OwnedPartition p = positions.get(partition);
            if (p != null) {
                p.metadata = metadata;
            }
        } finally {
            guard.exit();
        }
    }

    @Override
    public void progress(TopicPartition partition, long offset, Optional<String> done) {
        Objects.requireNonNull(done, "done");
        if (offset < 0) {
            throw new IllegalArgumentException("offset of " + partition + " must be >= 0, was " + offset);
        }
        done.ifPresent(d -> {
            String v = d.strip();
            if (v.length() < 2 || v.charAt(0) != '{' || v.charAt(v.length() - 1) != '}') {
                throw new IllegalArgumentException("done value of " + partition + " must be one JSON object, was '"
                        + (d.length() > 80 ? d.substring(0, 80) + "…" : d) + "'");
            }
        });
        guard.enter();
        try {
            requireStarted();
            if (txns != null) {
                throw new IllegalStateException("group " + group + ": progress() is not for the transactional mode "
                        + "(its Kafka transactions commit the position)");
            }
            OwnedPartition p = positions.get(partition);
            if (p != null) {
                p.progressOffset = offset;
                p.done = done;
            }
        } finally {
            guard.exit();
        }
    }

    @Override
    public Optional<String> resumeDone(TopicPartition partition) {
        OwnedPartition p = positions.get(partition);
        return p == null ? Optional.empty() : p.resumeDone;
    }

    @Override
    public OptionalLong resumeOffset(TopicPartition partition) {
        OwnedPartition p = positions.get(partition);
        return p == null ? OptionalLong.empty() : p.resumeOffset;
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        guard.enter();
        try {
            requireStarted();
            partitions.forEach(positions::pause);
            sync.sync();
        } finally {
            guard.exit();
        }
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        guard.enter();
        try {
            requireStarted();
            sync.resume(partitions);
            sync.sync();
        } finally {
            guard.exit();
        }
    }

    @Override
    public void wakeup() {
        userWakeup = true;
        bridge.nudge();
    }

    // ------------------------------------------------------------------ poll and commit (polling thread)

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        guard.enter();
        try {
            requireStarted();
            long start = clients.nanoTime();
            long timeoutNanos = Math.max(0, saturatedNanos(timeout));
            sync.within(start, timeoutNanos); // the start look-ups too end within the timeout
            while (true) {
                if (userWakeup) {
                    userWakeup = false;
                    throw new WakeupException();
                }
                events.serve();
                OffsetOutOfRangePolicyException failure = resolver.nextFailure();
                if (failure != null) {
                    throw failure;
                }
                committer.maybeCommitPeriodically(bridge.connectionDown());
                if (resolver.due()) {
                    committer.storeStarts(resolver.resolveStarts(positions, sync));
                }
                sync.sync();
                long remaining = timeoutNanos - (clients.nanoTime() - start);
                if (sync.fetchesNothing()) {
                    if (remaining <= 0) {
                        return ConsumerRecords.empty();
                    }
                    if (!warmUp.done()) {
                        warmUp.run(consumer, remaining);
                        continue;
                    }
                    waitForEvent(remaining);
                    continue;
                }
                if (sync.takeCaughtWakeup()) {
                    continue; // a log question above used up the wake-up of an event or of wakeup(): see to them first
                }
                positions.clearTouched();
                ConsumerRecords<K, V> fetched;
                try {
                    fetched = consumer.poll(Duration.ofNanos(Math.max(0, remaining)));
                } catch (WakeupException e) {
                    continue; // an event arrived (or the user's wakeup(), checked at the top)
                } catch (InvalidOffsetException e) {
                    handleInvalidOffsets(e);
                    continue;
                }
                events.serve(); // events that arrived during the fetch may invalidate what was fetched
                if (txns != null) {
                    txns.delivering(fetched.partitions());
                }
                ConsumerRecords<K, V> out = sync.deliver(fetched);
                sync.updateLags();
                if (!out.isEmpty()) {
                    return out;
                }
                if (clients.nanoTime() - start >= timeoutNanos) {
                    return ConsumerRecords.empty();
                }
            }
        } finally {
            if (sync != null) {
                sync.unbounded();
            }
            guard.exit();
        }
    }

    @Override
    public Future<RecordMetadata> send(TopicPartition input, ProducerRecord<?, ?> output) {
        guard.enter();
        try {
            requireStarted();
            if (txns == null) {
                throw new IllegalStateException("group " + group + ": send() needs the transactional mode "
                        + "(CoordinatedConsumer.Builder.transactional)");
            }
            return txns.send(Partitions.gk(input), output);
        } finally {
            guard.exit();
        }
    }

    @Override
    public long abort(TopicPartition input) {
        guard.enter();
        try {
            requireStarted();
            if (txns == null) {
                throw new IllegalStateException("group " + group + ": abort() needs the transactional mode "
                        + "(CoordinatedConsumer.Builder.transactional)");
            }
            long at = txns.abort(Partitions.gk(input));
            sync.sync();
            return at;
        } finally {
            guard.exit();
        }
    }

    @Override
    public void commitSync() {
        guard.enter();
        try {
            requireStarted();
            events.serve(); // (nothing, if called from the user's listener inside an event)
            committer.commitAll();
        } finally {
            guard.exit();
        }
    }

    /** Nothing assigned: waits for an event, but not past the next attempt at an unresolved start position. */
    private void waitForEvent(long nanos) {
        long wait = nanos;
        if (!positions.unresolved().isEmpty()) {
            wait = Math.min(wait, resolver.nanosUntilDue());
        }
        bridge.awaitEvent(wait);
    }

    /** The out-of-range policy for the fetch positions outside their log; stores its corrections at once. */
    private void handleInvalidOffsets(InvalidOffsetException e) {
        PositionResolver.Corrections corrections = resolver.outOfRange(e, positions, sync);
        sync.sync();
        if (!corrections.isEmpty()) {
            committer.storeCorrections(corrections);
            sync.sync();
        }
    }

    // ------------------------------------------------------------------ the store's answers (polling thread)

    /** What the poll loop does with the store's answers to the committer. */
    private final class Effects implements PositionCommitter.Effects {

        /** An external edit (admin reset, hand edit) wins: continue from the stored offset (I4). */
        @Override
        public void adopt(OwnedPartition p, OptionalLong stored) {
            p.committed = stored;
            p.committedMetadata = null; // what the change left in the node is unknown: the next commit writes ours
            p.committedDone = null;
            p.forgetProgress(); // the edit wins (I4): the container starts again from the adopted offset
            p.resumeOffset = stored;
            p.resumeDone = member.done(p.tp);
            // The edit ends an out-of-range stop, not a pending transactional claim: that partition stays unfetched
            // until a claim succeeds (its records could not be sent, and positions would pass them with no output).
            p.failed = txns != null && txns.claimPending(p.tp);
            positions.touch(p.tp);
            if (stored.isPresent()) {
                sync.seek(p, stored.getAsLong());
            } else {
                p.position = -1; // the offset was removed: start policy again
                resolver.resolveSoon();
            }
            listener.adopted(Map.of(p.ktp, stored)); // (a stopped partition of the container resumes there)
        }

        @Override
        public void dropped(SortedSet<io.groupkeeper.TopicPartition> notOwned) {
            List<TopicPartition> lost = Partitions.kafka(notOwned);
            sync.sync();
            LOG.debug("no longer owns {}; dropped", notOwned);
            listener.lost(lost);
        }
    }

    // ------------------------------------------------------------------ helpers

    private void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException("consumer of group " + group + " is "
                    + state.name().toLowerCase() + (state == State.LATENT ? "; call start() first" : ""));
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    /**
     * The member's graceful leave ({@link GroupMember#closeAsync}: the revocation, the releases with their final
     * offsets, the leave, on the member's lane), waited for through {@link KafkaClients#await} as the join is, so that
     * the simulation's wait parks a simulated thread; at most {@link #LEAVE_WAIT}, as {@link GroupMember#close} waits.
     */
    private void leave() {
        CompletableFuture<Void> left = member.closeAsync();
        long deadline = clients.nanoTime() + LEAVE_WAIT.toNanos();
        try {
            for (long rest = LEAVE_WAIT.toNanos(); rest > 0 && !left.isDone(); rest = deadline - clients.nanoTime()) {
                clients.await(left, rest);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!left.isDone()) {
            LOG.warn("graceful leave incomplete: the member did not leave within {} s", LEAVE_WAIT.toSeconds());
        } else if (left.isCompletedExceptionally()) {
            LOG.warn(
                    "graceful leave incomplete: {}",
                    left.handle((ok, e) -> String.valueOf(e)).join());
        }
    }

    /** How long {@code close()} waits for the member's leave (as {@code GroupMember.close()}). */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(60);

    private void closeQuietly(String what, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            LOG.warn("closing {} failed: {}", what, e.toString());
        }
    }
}

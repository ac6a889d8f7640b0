package io.groupkeeper.kafka.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.OffsetOutOfRangePolicyException;
import io.groupkeeper.kafka.OutOfRangePolicy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link CoordinatedConsumer}. Two threads meet here:
 *
 * <ul>
 *   <li>the member's <b>lane</b> runs the {@link RebalanceListener} bridge: it turns every coordination callback into
 *   an {@link Event} on a queue and calls {@code KafkaConsumer.wakeup()}; for a revocation it then blocks until the
 *   polling thread has served the event (stopped fetching, committed the final positions), so the member releases
 *   the partitions only after that (invariant I1, no work lost on handoff);</li>
 *   <li>the <b>polling thread</b> (the user's, inside {@code poll}/{@code commitSync}/{@code close}) owns the
 *   {@code KafkaConsumer} and all partition state, serves the queue, commits, seeks, and filters out records fetched
 *   for partitions that changed while they were in flight.</li>
 * </ul>
 *
 * <p>A third thread lives only during {@code start()}: the member joins on it while the calling thread warms the
 * {@code KafkaConsumer} up (metadata, broker connections), and its end wakes the consumer.
 *
 * <p>Deadlock care: {@code close()} (polling thread) commits and drops everything, sets {@link #released}, and only
 * then calls {@code member.close()}; the revocation that triggers on the lane sees {@code released} and returns at
 * once. A revocation waiting for a polling thread that does not come back gives up after the revocation timeout. It
 * keeps waiting when the store connection drops: the member releases the partitions right after this returns, and a
 * release goes through as soon as the client is connected again — with the same session after a blip, or with a new
 * one that may delete the old session's owner nodes at once — so returning early would hand the partitions to the next
 * owner while the polling thread may still be processing a batch of them (I1).
 *
 * <p>The {@code KafkaConsumer} is created with {@code auto.offset.reset=none} and every owned partition is always
 * positioned explicitly ({@code seek}), so an out-of-range offset surfaces as {@link InvalidOffsetException} and goes
 * through the {@link OutOfRangePolicy}. Partitions without a resolved position, and partitions stopped by
 * {@link OutOfRangePolicy#FAIL}, are owned but not assigned to the {@code KafkaConsumer}.
 */
public final class DefaultCoordinatedConsumer<K, V> implements CoordinatedConsumer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);
    private static final long NO_THREAD = -1;
    private static final long REVOKE_CHECK_MS = 50;
    private static final long RESOLVE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum State { LATENT, STARTED, CLOSED }

    // ------------------------------------------------------------------ events from the lane

    private sealed interface Event permits Assigned, Revoked, Lost, OffsetsChanged, ConnectionDown, Nudge {
    }

    private record Assigned(SortedMap<io.groupkeeper.TopicPartition, OptionalLong> partitions) implements Event {
    }

    private record Revoked(SortedSet<io.groupkeeper.TopicPartition> partitions, CompletableFuture<Void> done)
            implements Event {
    }

    private record Lost(SortedSet<io.groupkeeper.TopicPartition> partitions) implements Event {
    }

    private record OffsetsChanged(SortedSet<io.groupkeeper.TopicPartition> partitions) implements Event {
    }

    private record ConnectionDown() implements Event {
    }

    /** Wakes a polling thread that waits for events (no partitions assigned) after {@link #wakeup()}. */
    private record Nudge() implements Event {
    }

    /** What the polling thread knows of one owned partition. */
    private static final class Part {
        final io.groupkeeper.TopicPartition tp;
        final TopicPartition ktp;
        /** The next offset to return to the user; -1 while the start position is unresolved. */
        long position = -1;
        /** The offset the store holds, as far as this consumer knows. */
        OptionalLong committed = OptionalLong.empty();
        /** Stopped by outOfRange=fail. */
        boolean failed;
        /** The log end offset as of the last fetch, -1 while unknown (recorded with commits for lag status). */
        long logEnd = -1;
        /** Records not yet returned to the user ({@code logEnd - position}), -1 while unknown; read by a gauge. */
        volatile long lag = -1;

        Part(io.groupkeeper.TopicPartition tp) {
            this.tp = tp;
            this.ktp = new TopicPartition(tp.topic(), tp.partition());
        }

        boolean active() {
            return position >= 0 && !failed;
        }

        boolean dirty() {
            return active() && (committed.isEmpty() || committed.getAsLong() != position);
        }

        /** Active and behind: worth a commit even when unchanged, so lag status can tell STALL from STOP. */
        boolean lagging() {
            return active() && lag > 0;
        }
    }

    private final AdapterConfig<K, V> config;
    private final GroupKeeper keeper;
    private final String group;
    private final LinkedBlockingDeque<Event> events = new LinkedBlockingDeque<>();
    private final ConnectionListener connectionListener = this::onConnection;
    /** Copies successful commits to Kafka's group offsets (opt-in); null when off. */
    private final OffsetMirror mirror;

    private volatile State state = State.LATENT;
    /** Re-commit unchanged lagging positions every this many commit intervals (lag status: STALL vs STOP). */
    private static final int STATUS_HEARTBEAT_INTERVALS = 10;
    private long periodicCommits;
    private volatile KafkaConsumer<K, V> consumer;
    private volatile GroupMember member;
    private volatile KafkaTopicMetadata metadata;
    private volatile boolean userWakeup;
    /** The polling thread has committed and dropped everything and is leaving: revocations need not wait. */
    private volatile boolean released;
    private volatile boolean connectionDown;
    /** Polling thread: {@link #warmUp} completed (or failed for good). */
    private boolean warmedUp;
    /** What the warm-up learned of the subscribed topics: partition counts of those found, and those Kafka lacks. */
    private final Map<String, Integer> topicsFound = new HashMap<>();
    private final Set<String> topicsNotFound = new HashSet<>();
    private static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(2);
    private volatile Set<TopicPartition> assignmentView = Set.of();
    /** Owned partitions paused by the user (polling thread), and a copy for other threads. */
    private final Set<TopicPartition> pausedParts = new HashSet<>();
    private volatile Set<TopicPartition> pausedView = Set.of();

    // Polling-thread state (guarded by acquire()).
    private final AtomicLong currentThread = new AtomicLong(NO_THREAD);
    private int refCount;
    private final Map<io.groupkeeper.TopicPartition, Part> parts = new TreeMap<>();
    private final Set<io.groupkeeper.TopicPartition> touched = new HashSet<>();
    private final ArrayDeque<OffsetOutOfRangePolicyException> failures = new ArrayDeque<>();
    private boolean inEvents;
    private long lastCommitNanos = System.nanoTime();
    private long nextResolveNanos;
    private boolean commitFailing;

    public DefaultCoordinatedConsumer(AdapterConfig<K, V> config) {
        this.config = config;
        this.keeper = config.keeper();
        this.group = config.groupId();
        this.mirror = config.mirrors() ? new OffsetMirror(group, config.mirrorGroup(), config.kafkaProperties(),
                keeper.metrics(), config.kafkaTimeout(), Duration.ofMinutes(1), System::nanoTime) : null;
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public CoordinatedConsumer<K, V> start() {
        acquire();
        try {
            if (state != State.LATENT) {
                throw new IllegalStateException("consumer of group " + group + " already "
                        + state.name().toLowerCase());
            }
            validateKafkaConfig(); // a bad property fails here, before the group sees a member come and go
            GroupKeeper.MemberBuilder mb = keeper.member(group);
            config.memberOptions().accept(mb);
            KafkaTopicMetadata md = new KafkaTopicMetadata(config.kafkaProperties(),
                    config.metadataRefreshInterval(), config.kafkaTimeout(), "group " + group);
            mb.topics(config.topics()).listener(new Bridge()).metadata(md);
            if (config.instanceId() != null) {
                mb.instanceId(config.instanceId());
            }
            GroupMember m = mb.build();
            this.metadata = md;
            this.member = m;
            // The KafkaConsumer first (~1-2 ms of CPU; an unusable setting such as an unresolvable bootstrap server
            // then fails before the group sees a member come and go), then the join on the member's lane while this
            // thread warms the consumer up: metadata and the broker connections cost the first fetch ~3.5 ms on a
            // loopback broker (far more over TLS or SASL), and are ready when the first partitions arrive.
            // benchmarks/RESULTS.md compares the orders tried.
            KafkaConsumer<K, V> c;
            try {
                c = new KafkaConsumer<>(consumerProperties(m.memberId()), config.keyDeserializer(),
                        config.valueDeserializer());
            } catch (RuntimeException e) {
                state = State.CLOSED;
                closeQuietly("group member", m::close); // never started: only leaves the keeper's list
                closeQuietly("topic metadata", md::close);
                throw e;
            }
            this.consumer = c;
            keeper.store().addConnectionListener(connectionListener);
            try {
                joinWhileWarmingUp(m, c);
            } catch (RuntimeException e) {
                state = State.CLOSED;
                released = true; // nothing reached user code: the member's revocations need not wait for a poll()
                keeper.store().removeConnectionListener(connectionListener);
                closeQuietly("group member", m::close);
                closeQuietly("topic metadata", md::close);
                closeQuietly("Kafka consumer", () -> c.close(Duration.ZERO));
                throw e;
            }
            md.watch(config.topics(), topicsFound, topicsNotFound); // what the warm-up learned needs no Admin client
            state = State.STARTED;
            LOG.info("group {}: consumer {} started (topics {}, start {}, outOfRange {}, commit every {} ms)", group,
                    m.memberId(), new TreeSet<>(config.topics()), config.startPosition(), config.outOfRange(),
                    config.commitInterval().toMillis());
            return this;
        } finally {
            release();
        }
    }

    /** Parses the consumer configuration as KafkaConsumer will (unknown types, bad values, missing keys). */
    private void validateKafkaConfig() {
        Map<String, Object> props = consumerProperties("validation");
        if (config.keyDeserializer() != null) { // otherwise the properties must name one
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, config.keyDeserializer().getClass());
        }
        if (config.valueDeserializer() != null) {
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, config.valueDeserializer().getClass());
        }
        ConsumerConfig.configDef().parse(props); // (a ConsumerConfig would also log every value at INFO)
    }

    private Map<String, Object> consumerProperties(String memberId) {
        Map<String, Object> props = new LinkedHashMap<>(config.kafkaProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "groupkeeper-" + group + "-" + memberId);
        return props;
    }

    /**
     * Starts the member ({@link GroupMember#startAsync}: the join runs on the member's own lane) and warms {@code c} up
     * on this thread until the member has joined (the join's end wakes the consumer; a partition assigned meanwhile
     * does too). Rethrows the member's failure.
     */
    private void joinWhileWarmingUp(GroupMember m, KafkaConsumer<K, V> c) {
        // The wake-up ends the warm-up; one left pending is absorbed by the next poll.
        CompletableFuture<Void> joined = m.startAsync().whenComplete((ok, failure) -> c.wakeup());
        warmUp(config.kafkaTimeout().toNanos());
        try {
            joined.join();
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
        acquire();
        try {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.LATENT) {
                state = State.CLOSED;
                return;
            }
            try {
                runEvents();
            } catch (RuntimeException e) {
                LOG.warn("group {}: consumer {}: serving pending changes on close failed: {}", group, memberId(),
                        e.toString());
            }
            List<TopicPartition> owned = kafkaPartitions(parts.keySet());
            if (!owned.isEmpty()) {
                callUser("onPartitionsRevoked", l -> l.onPartitionsRevoked(owned));
            }
            try {
                commitDirty(parts.values());
            } catch (RuntimeException e) {
                LOG.warn("group {}: consumer {}: final commit on close failed (the next owner repeats from the last "
                        + "commit): {}", group, memberId(), e.toString());
            }
            new ArrayList<>(parts.keySet()).forEach(this::forget);
            syncAssignment();
            released = true;
            for (Event e; (e = events.poll()) != null; ) {
                if (e instanceof Revoked r) {
                    r.done().complete(null);
                }
            }
            keeper.store().removeConnectionListener(connectionListener);
            closeQuietly("group member", member::close);
        } finally {
            state = State.CLOSED;
            released = true;
            KafkaConsumer<K, V> c = consumer;
            if (c != null) {
                closeQuietly("KafkaConsumer", () -> c.close(CloseOptions.timeout(Duration.ofSeconds(5))));
            }
            KafkaTopicMetadata md = metadata;
            if (md != null) {
                closeQuietly("topic metadata", md::close);
            }
            if (mirror != null) {
                closeQuietly("offset mirror", mirror::close); // the final commit's offsets, bounded wait
            }
            release();
        }
    }

    // ------------------------------------------------------------------ queries

    @Override
    public Set<TopicPartition> assignment() {
        return assignmentView;
    }

    @Override
    public java.util.OptionalLong fencingToken(TopicPartition partition) {
        GroupMember m = member;
        return m == null ? java.util.OptionalLong.empty() : m.fencingToken(gk(partition));
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
    public void seek(TopicPartition partition, long offset) {
        acquire();
        try {
            requireStarted();
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, was " + offset);
            }
            Part p = parts.get(gk(partition));
            if (p == null) {
                throw new IllegalStateException("group " + group + ": " + partition + " is not owned by " + memberId());
            }
            seek(p, offset);
            syncAssignment();
        } finally {
            release();
        }
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        acquire();
        try {
            requireStarted();
            for (TopicPartition ktp : partitions) {
                if (parts.containsKey(gk(ktp))) {
                    pausedParts.add(ktp);
                }
            }
            syncAssignment();
        } finally {
            release();
        }
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        acquire();
        try {
            requireStarted();
            List<TopicPartition> resumed = new ArrayList<>();
            for (TopicPartition ktp : partitions) {
                if (pausedParts.remove(ktp) && consumer.assignment().contains(ktp)) {
                    resumed.add(ktp);
                }
            }
            consumer.resume(resumed);
            syncAssignment();
        } finally {
            release();
        }
    }

    @Override
    public Set<TopicPartition> paused() {
        return pausedView;
    }

    @Override
    public void wakeup() {
        userWakeup = true;
        events.add(new Nudge());
        KafkaConsumer<K, V> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    public String toString() {
        return "CoordinatedConsumer[" + group + "/" + memberId() + "]";
    }

    // ------------------------------------------------------------------ poll and commit (polling thread)

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        acquire();
        try {
            requireStarted();
            long start = System.nanoTime();
            long timeoutNanos = Math.max(0, saturatedNanos(timeout));
            while (true) {
                if (userWakeup) {
                    userWakeup = false;
                    throw new WakeupException();
                }
                runEvents();
                if (!failures.isEmpty()) {
                    throw failures.poll();
                }
                maybePeriodicCommit();
                if (System.nanoTime() >= nextResolveNanos) {
                    resolveStartPositions();
                }
                syncAssignment();
                long remaining = timeoutNanos - (System.nanoTime() - start);
                if (consumer.assignment().isEmpty()) {
                    if (remaining <= 0) {
                        return ConsumerRecords.empty();
                    }
                    if (!warmedUp) {
                        warmUp(remaining);
                        continue;
                    }
                    waitForEvent(remaining);
                    continue;
                }
                touched.clear();
                ConsumerRecords<K, V> fetched;
                try {
                    fetched = consumer.poll(Duration.ofNanos(Math.max(0, remaining)));
                } catch (WakeupException e) {
                    continue; // an event arrived (or the user's wakeup(), checked at the top)
                } catch (InvalidOffsetException e) {
                    handleInvalidOffsets(e);
                    continue;
                }
                runEvents(); // events that arrived during the fetch may invalidate what was fetched
                ConsumerRecords<K, V> out = deliver(fetched);
                updateLags();
                if (!out.isEmpty()) {
                    return out;
                }
                if (System.nanoTime() - start >= timeoutNanos) {
                    return ConsumerRecords.empty();
                }
            }
        } finally {
            release();
        }
    }

    @Override
    public void commitSync() {
        acquire();
        try {
            requireStarted();
            if (!inEvents) {
                runEvents();
            }
            commitDirty(parts.values());
        } finally {
            release();
        }
    }

    /** Keeps the records of partitions still owned and untouched since the fetch; advances their positions. */
    private ConsumerRecords<K, V> deliver(ConsumerRecords<K, V> fetched) {
        if (fetched.isEmpty()) {
            return fetched;
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (TopicPartition ktp : fetched.partitions()) {
            io.groupkeeper.TopicPartition tp = gk(ktp);
            Part p = parts.get(tp);
            if (p == null || !p.active() || touched.contains(tp)) {
                continue; // revoked, lost, re-sought or stopped while the records were in flight
            }
            List<ConsumerRecord<K, V>> records = new ArrayList<>();
            for (ConsumerRecord<K, V> r : fetched.records(ktp)) {
                if (r.offset() >= p.position) {
                    records.add(r);
                }
            }
            if (!records.isEmpty()) {
                ConsumerRecord<K, V> last = records.get(records.size() - 1);
                p.position = last.offset() + 1;
                out.put(ktp, records);
                next.put(ktp, new OffsetAndMetadata(p.position, last.leaderEpoch(), ""));
            }
        }
        return out.isEmpty() ? ConsumerRecords.empty() : new ConsumerRecords<>(out, next);
    }

    /**
     * Connects to the brokers that lead the topics' partitions, so the first fetch after the first assignment does not
     * also pay for metadata, a connection and its handshake. Runs in {@code start()} while the member joins (the
     * join's end interrupts it) and, if that did not finish, in {@code poll()} while nothing is assigned yet. Best
     * effort, within the given time (at most 2 s); a wakeup (an event, the join's end) interrupts it, and it is tried
     * again at the next wait if that event assigned nothing.
     */
    private void warmUp(long remainingNanos) {
        long deadline = System.nanoTime() + Math.min(remainingNanos, WARM_UP_TIMEOUT.toNanos());
        try {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : config.topics()) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic,
                        Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                if (infos.isEmpty()) {
                    topicsNotFound.add(topic);
                } else {
                    topicsFound.put(topic, infos.size());
                }
                infos.forEach(i -> all.add(new TopicPartition(i.topic(), i.partition())));
            }
            if (!all.isEmpty()) {
                consumer.endOffsets(all, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
            warmedUp = true;
        } catch (WakeupException e) {
            // interrupted: poll() tries again while nothing is assigned
        } catch (org.apache.kafka.common.KafkaException e) {
            warmedUp = true; // not worth a second wait
            LOG.debug("group {}: consumer {}: warm-up failed (harmless): {}", group, memberId(), e.toString());
        }
    }

    private void waitForEvent(long nanos) {
        long wait = nanos;
        if (parts.values().stream().anyMatch(p -> p.position < 0 && !p.failed)) {
            wait = Math.min(wait, Math.max(0, nextResolveNanos - System.nanoTime()));
        }
        try {
            Event e = events.pollFirst(wait, TimeUnit.NANOSECONDS);
            if (e != null) {
                events.addFirst(e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptException(ie);
        }
    }

    /** Log end and lag of every owned partition, from what the last fetch told (no request). */
    private void updateLags() {
        for (Part p : parts.values()) {
            if (!p.active()) {
                continue;
            }
            try {
                OptionalLong fetchLag = consumer.currentLag(p.ktp);
                if (fetchLag.isPresent()) {
                    p.logEnd = consumer.position(p.ktp, Duration.ZERO) + fetchLag.getAsLong();
                    p.lag = Math.max(0, p.logEnd - p.position);
                }
            } catch (RuntimeException e) {
                // no position yet (just assigned or reset): known after the next fetch
            }
        }
    }

    private void maybePeriodicCommit() {
        long now = System.nanoTime();
        if (now - lastCommitNanos < config.commitInterval().toNanos() || connectionDown) {
            return; // while the store's connection is down the member refuses commits anyway; don't wait on it
        }
        lastCommitNanos = now;
        try {
            // Every tenth interval also re-commit lagging partitions whose position did not move: a consumer that is
            // alive but stuck then shows as STALL rather than STOP (docs/metrics.md).
            if (++periodicCommits % STATUS_HEARTBEAT_INTERVALS == 0) {
                commitPositions(parts.values(), true);
            } else {
                commitDirty(parts.values());
            }
            if (commitFailing) {
                commitFailing = false;
                LOG.info("group {}: consumer {}: commits work again", group, memberId());
            }
        } catch (RuntimeException e) {
            if (!commitFailing) {
                commitFailing = true;
                LOG.warn("group {}: consumer {}: periodic commit failed, will retry: {}", group, memberId(), e.toString());
            }
        }
    }

    /** Commits the positions of the dirty ones among {@code which} and applies the result; store failures propagate. */
    private void commitDirty(Collection<Part> which) {
        commitPositions(which, false);
    }

    /** Commits dirty positions (and, with {@code lagging}, unchanged ones of lagging partitions) with their log ends. */
    private void commitPositions(Collection<Part> which, boolean lagging) {
        Map<io.groupkeeper.TopicPartition, Long> offsets = new TreeMap<>();
        Map<io.groupkeeper.TopicPartition, Long> logEnds = new TreeMap<>();
        collectPositions(which, lagging, offsets, logEnds);
        if (!offsets.isEmpty()) {
            apply(member.commit(offsets, logEnds), offsets);
        }
    }

    /**
     * The final positions of partitions being revoked: handed to the member, which writes them in the same atomic
     * write that releases the partitions (one round trip fewer before the next owner starts). Any it refuses (not
     * being revoked by the member right now) are committed at once.
     */
    private void commitWithRelease(Collection<Part> revoked) {
        Map<io.groupkeeper.TopicPartition, Long> offsets = new TreeMap<>();
        Map<io.groupkeeper.TopicPartition, Long> logEnds = new TreeMap<>();
        collectPositions(revoked, false, offsets, logEnds);
        if (offsets.isEmpty()) {
            return;
        }
        SortedSet<io.groupkeeper.TopicPartition> taken = member.commitOnRelease(offsets, logEnds);
        if (mirror != null) { // (no allocation on the revocation path when the mirror is off)
            mirror(offsets.entrySet().stream().filter(e -> taken.contains(e.getKey()))
                    .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        }
        commitDirty(revoked.stream().filter(p -> !taken.contains(p.tp)).toList());
    }

    private static void collectPositions(Collection<Part> which, boolean lagging,
                                         Map<io.groupkeeper.TopicPartition, Long> offsets,
                                         Map<io.groupkeeper.TopicPartition, Long> logEnds) {
        for (Part p : which) {
            if (p.dirty() || (lagging && p.lagging())) {
                offsets.put(p.tp, p.position);
                if (p.logEnd >= 0) {
                    logEnds.put(p.tp, p.logEnd);
                }
            }
        }
    }

    /** ZooKeeper has committed these offsets: copy them to Kafka's group offsets if asked to (never blocks). */
    private void mirror(Map<io.groupkeeper.TopicPartition, Long> committed) {
        if (mirror != null) {
            mirror.offer(committed);
        }
    }

    /** Applies a commit or refresh result: committed, adopted (seek there), or not owned (drop now). */
    private void apply(CommitResult result, Map<io.groupkeeper.TopicPartition, Long> attempted) {
        SortedSet<io.groupkeeper.TopicPartition> notOwned = new TreeSet<>();
        Map<io.groupkeeper.TopicPartition, Long> committed = mirror == null ? Map.of() : new TreeMap<>();
        result.statuses().forEach((tp, status) -> {
            if (mirror != null && status == CommitResult.Status.COMMITTED && attempted.containsKey(tp)) {
                committed.put(tp, attempted.get(tp));
            }
            Part p = parts.get(tp);
            if (p == null) {
                return;
            }
            switch (status) {
                case COMMITTED -> p.committed = OptionalLong.of(attempted.get(tp));
                case ADOPTED -> adopt(p, result.adoptedOffsets().getOrDefault(tp, OptionalLong.empty()));
                case NOT_OWNED -> notOwned.add(tp);
                case UNCHANGED -> {
                }
            }
        });
        mirror(committed);
        if (!notOwned.isEmpty()) {
            List<TopicPartition> lost = kafkaPartitions(notOwned);
            notOwned.forEach(parts::remove);
            syncAssignment();
            LOG.debug("group {}: consumer {}: no longer owns {}; dropped", group, memberId(), notOwned);
            callUser("onPartitionsLost", l -> l.onPartitionsLost(lost));
        }
    }

    /** An external edit (admin reset, hand edit) wins: continue from the stored offset (I4). */
    private void adopt(Part p, OptionalLong offset) {
        p.committed = offset;
        p.failed = false;
        touched.add(p.tp);
        if (offset.isPresent()) {
            seek(p, offset.getAsLong());
        } else {
            p.position = -1; // the offset was removed: start policy again
            nextResolveNanos = 0;
        }
    }

    private void seek(Part p, long offset) {
        p.position = offset;
        touched.add(p.tp);
        if (p.active() && consumer.assignment().contains(p.ktp)) {
            consumer.seek(p.ktp, offset);
        }
    }

    /** Makes the KafkaConsumer's assignment the active partitions; seeks newly assigned ones to their positions. */
    private void syncAssignment() {
        Set<TopicPartition> want = new HashSet<>();
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (Part p : parts.values()) {
            if (p.active()) {
                want.add(p.ktp);
                positions.put(p.ktp, p.position);
            }
        }
        Set<TopicPartition> have = consumer.assignment();
        if (!want.equals(have)) {
            consumer.assign(want);
            for (TopicPartition ktp : want) {
                if (!have.contains(ktp)) {
                    consumer.seek(ktp, positions.get(ktp));
                }
            }
        }
        Set<TopicPartition> view = new HashSet<>();
        parts.values().forEach(p -> view.add(p.ktp));
        if (!view.equals(assignmentView)) {
            assignmentView = Set.copyOf(view);
        }
        // Paused partitions stay paused while owned (KafkaConsumer.assign keeps the pause of those it keeps; newly
        // assigned or re-positioned ones are paused here); revoked or lost ones are forgotten.
        pausedParts.retainAll(view);
        if (!pausedParts.isEmpty()) {
            List<TopicPartition> pause = new ArrayList<>(pausedParts);
            pause.retainAll(consumer.assignment());
            consumer.pause(pause);
        }
        if (!pausedParts.equals(pausedView)) {
            pausedView = Set.copyOf(pausedParts);
        }
    }

    // ------------------------------------------------------------------ events (polling thread)

    private void runEvents() {
        if (inEvents) {
            return;
        }
        inEvents = true;
        try {
            for (Event e; (e = events.poll()) != null; ) {
                handle(e);
            }
        } finally {
            inEvents = false;
        }
    }

    private void handle(Event event) {
        if (event instanceof Assigned a) {
            onAssigned(a.partitions());
        } else if (event instanceof Revoked r) {
            try {
                onRevoked(r.partitions());
            } finally {
                r.done().complete(null);
            }
        } else if (event instanceof Lost l) {
            onLost(l.partitions());
        } else if (event instanceof OffsetsChanged o) {
            onOffsetsChanged(o.partitions());
        } else if (event instanceof ConnectionDown && !parts.isEmpty()) {
            onLost(new TreeSet<>(parts.keySet()));
        }
    }

    private void onAssigned(SortedMap<io.groupkeeper.TopicPartition, OptionalLong> assigned) {
        if (parts.keySet().removeAll(assigned.keySet())) {
            syncAssignment(); // assigned again without a revocation in between (should not happen): start afresh
        }
        for (Map.Entry<io.groupkeeper.TopicPartition, OptionalLong> e : assigned.entrySet()) {
            Part p = new Part(e.getKey());
            p.committed = e.getValue();
            if (e.getValue().isPresent()) {
                p.position = e.getValue().getAsLong();
            }
            parts.put(p.tp, p);
            keeper.metrics().lagStarted(group, memberId(), p.tp, () -> p.lag);
            touched.add(p.tp);
        }
        nextResolveNanos = 0;
        resolveStartPositions();
        syncAssignment();
        List<TopicPartition> ktps = kafkaPartitions(assigned.keySet());
        callUser("onPartitionsAssigned", l -> l.onPartitionsAssigned(ktps));
    }

    private void onRevoked(SortedSet<io.groupkeeper.TopicPartition> revoked) {
        List<Part> mine = new ArrayList<>();
        for (io.groupkeeper.TopicPartition tp : revoked) {
            Part p = parts.get(tp);
            if (p != null) {
                mine.add(p);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<TopicPartition> ktps = new ArrayList<>();
        mine.forEach(p -> ktps.add(p.ktp));
        callUser("onPartitionsRevoked", l -> l.onPartitionsRevoked(ktps));
        try {
            commitWithRelease(mine);
        } catch (RuntimeException e) {
            LOG.warn("group {}: consumer {}: final commit of revoked {} failed (the next owner repeats from the last "
                    + "commit): {}", group, memberId(), revoked, e.toString());
        }
        mine.forEach(p -> {
            forget(p.tp);
            touched.add(p.tp);
        });
        syncAssignment();
    }

    /** Stops tracking a partition (and its lag gauge). */
    private Part forget(io.groupkeeper.TopicPartition tp) {
        Part p = parts.remove(tp);
        if (p != null) {
            keeper.metrics().lagStopped(group, memberId(), tp);
        }
        return p;
    }

    private void onLost(SortedSet<io.groupkeeper.TopicPartition> lost) {
        List<TopicPartition> ktps = new ArrayList<>();
        for (io.groupkeeper.TopicPartition tp : lost) {
            Part p = forget(tp);
            if (p != null) {
                ktps.add(p.ktp);
                touched.add(tp);
            }
        }
        if (!ktps.isEmpty()) {
            syncAssignment();
            callUser("onPartitionsLost", l -> l.onPartitionsLost(ktps));
        }
    }

    private void onOffsetsChanged(SortedSet<io.groupkeeper.TopicPartition> changed) {
        SortedSet<io.groupkeeper.TopicPartition> mine = new TreeSet<>(changed);
        mine.retainAll(parts.keySet());
        if (mine.isEmpty()) {
            return;
        }
        CommitResult result;
        try {
            result = member.refresh(mine);
        } catch (RuntimeException e) {
            // The next commit of these partitions is refused and reported as adopted, so the edit is not lost.
            LOG.warn("group {}: consumer {}: could not re-read the changed offsets of {}: {}", group, memberId(), mine,
                    e.toString());
            return;
        }
        apply(result, Map.of());
        syncAssignment();
    }

    // ------------------------------------------------------------------ start positions and out-of-range offsets

    /** Resolves the start position of owned partitions that have no offset (no committed offset, or removed). */
    private void resolveStartPositions() {
        List<Part> pending = new ArrayList<>();
        for (Part p : parts.values()) {
            if (p.position < 0 && !p.failed) {
                pending.add(p);
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        List<TopicPartition> ktps = new ArrayList<>();
        pending.forEach(p -> ktps.add(p.ktp));
        StartPosition start = config.startPosition();
        Map<TopicPartition, Long> resolved = new HashMap<>();
        try {
            switch (start.kind()) {
                case EARLIEST -> resolved.putAll(kafka(() -> consumer.beginningOffsets(ktps, config.kafkaTimeout())));
                case LATEST -> resolved.putAll(kafka(() -> consumer.endOffsets(ktps, config.kafkaTimeout())));
                case TIMESTAMP -> {
                    long ts = start.timestampValue().orElseThrow().toEpochMilli();
                    Map<TopicPartition, Long> query = new HashMap<>();
                    ktps.forEach(k -> query.put(k, ts));
                    Map<TopicPartition, OffsetAndTimestamp> found =
                            kafka(() -> consumer.offsetsForTimes(query, config.kafkaTimeout()));
                    List<TopicPartition> none = new ArrayList<>();
                    for (TopicPartition k : ktps) {
                        OffsetAndTimestamp o = found.get(k);
                        if (o != null) {
                            resolved.put(k, o.offset());
                        } else {
                            none.add(k);
                        }
                    }
                    if (!none.isEmpty()) {
                        resolved.putAll(kafka(() -> consumer.endOffsets(none, config.kafkaTimeout())));
                    }
                }
            }
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            nextResolveNanos = System.nanoTime() + RESOLVE_RETRY_NANOS;
            LOG.warn("group {}: consumer {}: cannot find the start ({}) of {} yet, retrying: {}", group, memberId(),
                    start, ktps, e.toString());
            return;
        }
        for (Part p : pending) {
            Long offset = resolved.get(p.ktp);
            if (offset != null) {
                p.position = offset;
                touched.add(p.tp);
                LOG.debug("group {}: {} has no committed offset; starting at {} ({})", group, p.tp, offset, start);
            } else {
                nextResolveNanos = System.nanoTime() + RESOLVE_RETRY_NANOS;
            }
        }
    }

    /**
     * The fetch position of some partitions is outside their log (a stored offset above the end or below the start,
     * or retention overtook the consumer): apply the out-of-range policy.
     */
    private void handleInvalidOffsets(InvalidOffsetException e) {
        Map<TopicPartition, Long> bad = new HashMap<>();
        if (e instanceof OffsetOutOfRangeException oore) {
            bad.putAll(oore.offsetOutOfRangePartitions());
        }
        List<Part> affected = new ArrayList<>();
        for (TopicPartition ktp : e.partitions()) {
            Part p = parts.get(gk(ktp));
            if (p != null && p.active()) {
                affected.add(p);
                bad.putIfAbsent(ktp, p.position);
            }
        }
        if (affected.isEmpty()) {
            return;
        }
        List<TopicPartition> ktps = new ArrayList<>();
        affected.forEach(p -> ktps.add(p.ktp));
        Map<TopicPartition, Long> starts;
        Map<TopicPartition, Long> ends;
        try {
            starts = kafka(() -> consumer.beginningOffsets(ktps, config.kafkaTimeout()));
            ends = kafka(() -> consumer.endOffsets(ktps, config.kafkaTimeout()));
        } catch (InterruptException ie) {
            throw ie;
        } catch (KafkaException ke) {
            LOG.warn("group {}: consumer {}: offsets of {} are out of range but the log bounds cannot be read: {}",
                    group, memberId(), ktps, ke.toString());
            return;
        }
        Map<io.groupkeeper.TopicPartition, Long> corrections = new TreeMap<>();
        Map<io.groupkeeper.TopicPartition, String> why = new HashMap<>();
        for (Part p : affected) {
            long offset = bad.get(p.ktp);
            long lo = starts.getOrDefault(p.ktp, 0L);
            long hi = ends.getOrDefault(p.ktp, lo);
            if (offset >= lo && offset <= hi) {
                seek(p, offset); // in range again (records were produced meanwhile): try again
                continue;
            }
            OutOfRangePolicy policy = config.outOfRange();
            if (policy == OutOfRangePolicy.FAIL) {
                p.failed = true;
                touched.add(p.tp);
                OffsetOutOfRangePolicyException failure =
                        new OffsetOutOfRangePolicyException(group, p.ktp, offset, lo, hi);
                LOG.warn("{}", failure.getMessage());
                failures.add(failure);
                continue;
            }
            long corrected = policy == OutOfRangePolicy.EARLIEST ? lo : hi;
            why.put(p.tp, (offset > hi ? "above the log end " + hi : "below the log start " + lo)
                    + " (log " + lo + ".." + hi + ")");
            seek(p, corrected);
            corrections.put(p.tp, corrected);
        }
        syncAssignment();
        if (corrections.isEmpty()) {
            return;
        }
        CommitResult result = null;
        try {
            result = member.commit(corrections);
        } catch (RuntimeException ce) {
            LOG.warn("group {}: consumer {}: could not store the corrected offsets {} yet (retrying with the next "
                    + "commit): {}", group, memberId(), corrections, ce.toString());
        }
        for (Map.Entry<io.groupkeeper.TopicPartition, Long> c : corrections.entrySet()) {
            io.groupkeeper.TopicPartition tp = c.getKey();
            Part p = parts.get(tp);
            CommitResult.Status status = result == null ? null : result.status(tp);
            if (p != null && status == CommitResult.Status.COMMITTED) {
                OptionalLong stored = p.committed;
                p.committed = OptionalLong.of(c.getValue());
                LOG.warn("group {}: partition {}: offset {} is {}; outOfRange={}: corrected to {} and stored it "
                                + "(stored offset was {})", group, tp, bad.get(p.ktp), why.get(tp),
                        config.outOfRange(), c.getValue(), stored.isPresent() ? stored.getAsLong() : "none");
                keeper.metrics().offsetCorrected(group, tp, config.outOfRange().name().toLowerCase());
            } else if (p != null && status == null) {
                LOG.warn("group {}: partition {}: offset {} is {}; outOfRange={}: continuing from {} (to be stored "
                        + "with the next commit)", group, tp, bad.get(p.ktp), why.get(tp), config.outOfRange(),
                        c.getValue());
            }
        }
        if (result != null) {
            Map<io.groupkeeper.TopicPartition, Long> attempted = new HashMap<>(corrections);
            apply(result, attempted);
            syncAssignment();
        }
    }

    // ------------------------------------------------------------------ the lane side

    /** The member's listener: runs on the member's lane; hands everything to the polling thread. */
    private final class Bridge implements RebalanceListener {

        @Override
        public void onPartitionsAssigned(SortedMap<io.groupkeeper.TopicPartition, OptionalLong> partitions) {
            if (!released) {
                enqueue(new Assigned(new TreeMap<>(partitions)));
            }
        }

        @Override
        public void onPartitionsRevoked(SortedSet<io.groupkeeper.TopicPartition> partitions) {
            if (released) {
                return; // the polling thread has committed and dropped everything (close)
            }
            Revoked r = new Revoked(new TreeSet<>(partitions), new CompletableFuture<>());
            enqueue(r);
            awaitRevocation(r);
        }

        @Override
        public void onPartitionsLost(SortedSet<io.groupkeeper.TopicPartition> partitions) {
            if (!released) {
                enqueue(new Lost(new TreeSet<>(partitions)));
            }
        }

        @Override
        public void onOffsetsChanged(SortedSet<io.groupkeeper.TopicPartition> partitions) {
            if (!released) {
                enqueue(new OffsetsChanged(new TreeSet<>(partitions)));
            }
        }
    }

    private void enqueue(Event e) {
        events.add(e);
        KafkaConsumer<K, V> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /** On the lane: waits until the polling thread served the revocation, within the revocation timeout. */
    private void awaitRevocation(Revoked r) {
        long deadline = System.nanoTime() + config.revocationTimeout().toNanos();
        boolean warnedConnectionDown = false;
        while (true) {
            try {
                r.done().get(REVOKE_CHECK_MS, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                // check the exits below
            } catch (ExecutionException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (released || state == State.CLOSED) {
                return;
            }
            if (connectionDown && !warnedConnectionDown) {
                // Keep waiting: the release that follows would go through on reconnection (same or new session)
                // while the polling thread may still be processing these partitions. It drops them at its next call.
                warnedConnectionDown = true;
                LOG.warn("group {}: consumer {}: store connection down while revoking {}; still waiting for the polling "
                        + "thread before releasing them", group, memberId(), r.partitions());
            }
            if (System.nanoTime() - deadline > 0) {
                LOG.warn("group {}: consumer {}: revocation of {} waited {} ms for the polling thread (no poll() or "
                                + "commitSync() in that time); releasing without a final commit: the next owner repeats "
                                + "from the last committed offsets", group, memberId(), r.partitions(),
                        config.revocationTimeout().toMillis());
                return;
            }
        }
    }

    /** On the store's event thread: never blocks. */
    private void onConnection(ConnectionEvent event) {
        switch (event) {
            case SUSPENDED, LOST -> {
                connectionDown = true;
                enqueue(new ConnectionDown());
            }
            case RECONNECTED, RECONNECTED_NEW_SESSION, CONNECTED -> connectionDown = false;
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Runs a blocking KafkaConsumer call, retrying when an internal (event) wakeup interrupts it. */
    private <T> T kafka(Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (WakeupException e) {
                // an event arrived; it is served by the loop; the user's wakeup() is checked there too
            }
        }
    }

    private void callUser(String name, java.util.function.Consumer<ConsumerRebalanceListener> call) {
        ConsumerRebalanceListener l = config.listener();
        if (l == null) {
            return;
        }
        try {
            call.accept(l);
        } catch (RuntimeException e) {
            LOG.error("group {}: consumer {}: rebalance listener {} threw; continuing", group, memberId(), name, e);
        }
    }

    private void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException("consumer of group " + group + " is " + state.name().toLowerCase()
                    + (state == State.LATENT ? "; call start() first" : ""));
        }
    }

    private void acquire() {
        long id = Thread.currentThread().getId();
        if (id != currentThread.get() && !currentThread.compareAndSet(NO_THREAD, id)) {
            throw new ConcurrentModificationException("CoordinatedConsumer of group " + group
                    + " is not safe for multi-threaded access: one thread polls, commits and closes it");
        }
        refCount++;
    }

    private void release() {
        if (--refCount == 0) {
            currentThread.set(NO_THREAD);
        }
    }

    private static io.groupkeeper.TopicPartition gk(TopicPartition ktp) {
        return new io.groupkeeper.TopicPartition(ktp.topic(), ktp.partition());
    }

    private static List<TopicPartition> kafkaPartitions(Collection<io.groupkeeper.TopicPartition> tps) {
        List<TopicPartition> out = new ArrayList<>();
        tps.forEach(tp -> out.add(new TopicPartition(tp.topic(), tp.partition())));
        return out;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    private void closeQuietly(String what, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            LOG.warn("group {}: closing {} failed: {}", group, what, e.toString());
        }
    }
}

package io.groupkeeper.kafka.internal;

import io.groupkeeper.GroupKeeperException;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.TopicMetadataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition counts from Kafka ({@code Admin.describeTopics}), for the group's rebalancer: a partition increase, or a
 * topic appearing or disappearing, fires the rebalancer's one-shot change hook so the group rebalances.
 *
 * <p>Kafka has no watch for topic metadata, so this source polls, but only while it matters: while a hook is armed
 * (i.e. while this member leads its group) and while a watched topic is missing. A missing topic is absent from the
 * returned counts (the group keeps working on its other topics) and logged once as a WARN; its appearance is logged
 * once at INFO. When Kafka cannot be reached, the last known counts are used (a broker blip must not revoke a whole
 * topic); with none known the call fails and the rebalancer retries.
 *
 * <p>Topics whose counts are known already (from the member's own {@code KafkaConsumer}, {@link #watch}, or an earlier
 * check) are answered from what is known, without asking Kafka: a member that becomes leader — the first of a new
 * group, or the successor of a leader that left — publishes at once instead of first creating an Admin client and
 * waiting for its connection and answer (~15-20 ms on a loopback broker, a TLS or SASL handshake more elsewhere). The
 * hook armed with those counts is then checked like any other, within one refresh interval, so counts that changed
 * meanwhile cost one more rebalance, not a wrong assignment that stays. While the member's consumer is still looking
 * the topics up ({@link #expectLookUp}), a call waits for that (at most the timeout) rather than racing it to Kafka.
 *
 * <p>Replica racks ({@link #partitionRacks}) come from the same {@code describeTopics}: each replica's broker's
 * {@code broker.rack}. The leader asks for them only when some member has a rack (the consumer's {@code client.rack}).
 *
 * <p>One instance serves one member: a newer {@link #partitionCounts} call replaces the hook armed by the previous one
 * (the rebalancer re-reads everything on each run, so an older hook is obsolete). Thread-safe.
 *
 * <p>Not API (the adapter builds it for its member): public only so that tests outside this package can name its
 * logger.
 */
public final class KafkaTopicMetadata implements TopicMetadataSource, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaTopicMetadata.class);

    private record Armed(SortedSet<String> topics, SortedMap<String, Integer> counts, Runnable hook) {}

    /** Replica racks as last handed to the leader for the armed topics (null: not asked since the hook was armed). */
    private PartitionRacks armedRacks;
    /** Per topic, per partition: the racks of its replicas' brokers (those with {@code broker.rack}), as last described. */
    private final Map<String, List<Set<String>>> lastRacks = new HashMap<>();
    /** Broker id and {@code broker.rack} pairs already logged as unusable racks (each is logged once). */
    private final Set<String> warnedRacks = new HashSet<>();

    private final Map<String, Object> adminConfig;
    private final Duration refreshInterval;
    private final Duration timeout;
    private final String group;

    /** Volatile: {@link #close} closes it without the lock, which a question in flight holds. */
    private volatile KafkaAdmin admin;

    private final KafkaClients clients;
    private ScheduledExecutorService timer;
    private Armed armed;
    private final SortedSet<String> watched = new TreeSet<>();
    private final SortedSet<String> missing = new TreeSet<>();
    private final Map<String, Integer> lastKnown = new HashMap<>();
    private boolean warnedUnavailable;
    private boolean closed;
    /** Set first thing in {@link #close}: a question failed by the close is not Kafka being unavailable. */
    private volatile boolean closing;
    /** Completed when the member's own look-up of the topics has been handed over ({@link #watch}) or given up. */
    private volatile CompletableFuture<Void> lookUp = CompletableFuture.completedFuture(null);

    /**
     * @param kafkaProperties client properties; those the Admin client knows are used ({@code bootstrap.servers},
     *                        security ...), the others ignored
     * @param refreshInterval how often to ask Kafka while polling
     * @param timeout         upper bound of one {@code describeTopics}
     * @param group           the group this serves: its timer thread's logging context ({@link LogContext}; the
     *                        callers' threads have theirs), its messages
     */
    KafkaTopicMetadata(Map<String, ?> kafkaProperties, Duration refreshInterval, Duration timeout, String group) {
        this(kafkaProperties, refreshInterval, timeout, group, KafkaClients.REAL);
    }

    KafkaTopicMetadata(
            Map<String, ?> kafkaProperties,
            Duration refreshInterval,
            Duration timeout,
            String group,
            KafkaClients clients) {
        this.clients = Objects.requireNonNull(clients, "clients");
        Objects.requireNonNull(kafkaProperties, "kafkaProperties");
        Set<String> known = AdminClientConfig.configNames();
        Map<String, Object> config = new LinkedHashMap<>();
        kafkaProperties.forEach((k, v) -> {
            if (known.contains(k)) {
                config.put(k, v);
            }
        });
        if (!config.containsKey(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalArgumentException("KafkaTopicMetadata: bootstrap.servers is required");
        }
        this.adminConfig = config;
        this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.group = Objects.requireNonNull(group, "group");
    }

    /**
     * The member's own {@code KafkaConsumer} is about to look the topics up; {@link #partitionCounts} waits for what
     * it finds (handed over by {@link #watch}) instead of asking Kafka itself meanwhile.
     */
    void expectLookUp() {
        lookUp = new CompletableFuture<>();
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics, Runnable onChange) {
        awaitLookUp(); // outside the lock: watch(), which ends the wait, takes it
        synchronized (this) {
            return partitionCountsAfterLookUp(new TreeSet<>(topics), onChange);
        }
    }

    private void awaitLookUp() {
        try {
            lookUp.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not handed over in time: Kafka is asked below
        }
    }

    /** Under the lock. */
    private Map<String, Integer> partitionCountsAfterLookUp(SortedSet<String> wanted, Runnable onChange) {
        if (closed) {
            throw new IllegalStateException("KafkaTopicMetadata of group " + group + " is closed");
        }
        SortedMap<String, Integer> counts;
        try {
            counts = unknown(wanted).isEmpty() ? known(wanted) : describe(wanted);
        } catch (KafkaUnavailable e) {
            SortedSet<String> unknown = unknown(wanted);
            if (!unknown.isEmpty()) {
                throw new GroupKeeperException(
                        "group " + group + ": cannot read partition counts of " + unknown + " from Kafka at "
                                + adminConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) + ": " + e.getMessage());
            }
            counts = known(wanted);
        }
        if (onChange != null) {
            armed = new Armed(wanted, counts, onChange);
            armedRacks = null;
            ensureTimer();
        }
        return counts;
    }

    /**
     * The racks of every replica of the partitions of those {@code topics} that exist: each replica's broker's
     * {@code broker.rack} (replicas in sync or not, as KIP-881 uses them; brokers without a rack add none). Described
     * afresh (one {@code describeTopics}) unless this source described the topics since their counts were last armed;
     * the armed hook then also fires when these racks change (a reassignment moved a replica to another rack). When
     * Kafka cannot be reached the last known racks are used, and with none known, none (the assignment ignores
     * racks rather than fail).
     */
    @Override
    public PartitionRacks partitionRacks(Collection<String> topics) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("KafkaTopicMetadata of group " + group + " is closed");
            }
            SortedSet<String> wanted = new TreeSet<>(topics);
            SortedSet<String> unknown = new TreeSet<>(wanted);
            unknown.removeAll(lastRacks.keySet());
            unknown.removeAll(missing);
            if (!unknown.isEmpty()) {
                try {
                    describe(unknown);
                } catch (KafkaUnavailable e) {
                    // logged once by describe; the racks known so far are used
                }
            }
            PartitionRacks racks = racksOf(wanted);
            if (armed != null && armed.topics().equals(wanted)) {
                armedRacks = racks;
            }
            return racks;
        }
    }

    /** Under the lock: the last known racks of these topics. */
    private PartitionRacks racksOf(Collection<String> topics) {
        Map<TopicPartition, Set<String>> map = new TreeMap<>();
        for (String t : topics) {
            List<Set<String>> perPartition = lastRacks.get(t);
            if (perPartition == null) {
                continue;
            }
            for (int p = 0; p < perPartition.size(); p++) {
                if (!perPartition.get(p).isEmpty()) {
                    map.put(new TopicPartition(t, p), perPartition.get(p));
                }
            }
        }
        return PartitionRacks.of(map);
    }

    /** Under the lock: the topics with neither a known count nor known to be missing (never checked yet). */
    private SortedSet<String> unknown(Collection<String> topics) {
        SortedSet<String> unknown = new TreeSet<>(topics);
        unknown.removeAll(lastKnown.keySet());
        unknown.removeAll(missing);
        return unknown;
    }

    /** Under the lock: the known counts of these topics (missing and unknown ones left out). */
    private SortedMap<String, Integer> known(SortedSet<String> topics) {
        SortedMap<String, Integer> counts = new TreeMap<>();
        for (String t : topics) {
            Integer n = lastKnown.get(t);
            if (n != null) {
                counts.put(t, n);
            }
        }
        return counts;
    }

    /**
     * Checks these topics (asynchronously) and keeps checking those that are missing until they appear, so
     * {@link #missingTopics()} stays true and the WARN names them early, with what the caller has just learned from
     * Kafka itself (a member's own {@code KafkaConsumer} asks for the topics' metadata as it starts): topics
     * {@code found}, with their partition counts, need no check of their own; topics {@code notFound} are reported
     * missing at once. Only the others, and missing ones until they appear, are asked about, so a member whose topics
     * all exist never creates the Admin client (a thread and a connection) unless it leads its group.
     */
    synchronized void watch(Collection<String> topics, Map<String, Integer> found, Set<String> notFound) {
        lookUp.complete(null);
        if (closed) {
            return;
        }
        watched.addAll(topics);
        found.forEach((topic, n) -> {
            if (watched.contains(topic)) {
                present(topic, n);
            }
        });
        notFound.stream().filter(watched::contains).forEach(this::absent);
        if (watched.stream().anyMatch(t -> !lastKnown.containsKey(t) || missing.contains(t))) {
            ensureTimer();
            timer.execute(this::tick);
        }
    }

    /** Topics last seen missing. */
    synchronized Set<String> missingTopics() {
        return Set.copyOf(missing);
    }

    private void ensureTimer() {
        if (timer == null) {
            timer = clients.timer("groupkeeper-kafka-metadata " + group);
            long ms = refreshInterval.toMillis();
            timer.scheduleWithFixedDelay(this::tick, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** The timer's check, in the group's logging context (the timer's thread has no other). */
    private void tick() {
        try (LogContext.Scope ignored = LogContext.enter(group, null)) {
            tickLogged();
        }
    }

    private void tickLogged() {
        Runnable fire = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            SortedSet<String> check = new TreeSet<>(missing);
            check.retainAll(watched);
            if (!unknown(watched).isEmpty()) {
                check.addAll(watched); // never checked yet
            }
            if (armed != null) {
                check.addAll(armed.topics());
            }
            if (check.isEmpty()) {
                return;
            }
            try {
                SortedMap<String, Integer> now = describe(check);
                if (armed != null) {
                    SortedMap<String, Integer> mine = new TreeMap<>(now);
                    mine.keySet().retainAll(armed.topics());
                    if (!mine.equals(armed.counts())) {
                        LOG.info("partition counts changed from {} to {}; rebalancing", armed.counts(), mine);
                        fire = armed.hook();
                        armed = null;
                    } else if (armedRacks != null && !racksOf(armed.topics()).equals(armedRacks)) {
                        LOG.info("the racks of some partitions' replicas changed; rebalancing");
                        fire = armed.hook();
                        armed = null;
                    }
                }
            } catch (KafkaUnavailable e) {
                // logged once by describe; try again next tick
            } catch (RuntimeException e) {
                LOG.warn("partition count check failed: {}", e.toString());
            }
        }
        if (fire != null) {
            try {
                fire.run();
            } catch (RuntimeException e) {
                LOG.warn("rebalance hook failed: {}", e.toString());
            }
        }
    }

    /** Under the lock. Counts of the existing topics; updates {@link #missing} and {@link #lastKnown}. */
    private SortedMap<String, Integer> describe(SortedSet<String> topics) throws KafkaUnavailable {
        SortedMap<String, Integer> counts = new TreeMap<>();
        if (topics.isEmpty()) {
            return counts;
        }
        Map<String, KafkaFuture<TopicDescription>> futures;
        try {
            futures = admin().describeTopics(topics, timeout);
        } catch (RuntimeException e) {
            throw unavailable(e);
        }
        for (Map.Entry<String, KafkaFuture<TopicDescription>> f : futures.entrySet()) {
            String topic = f.getKey();
            try {
                TopicDescription d = f.getValue().get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
                int n = d.partitions().size();
                rememberRacks(topic, d);
                counts.put(topic, n);
                present(topic, n);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException
                        || e.getCause() instanceof InvalidTopicException) {
                    absent(topic);
                } else {
                    throw unavailable(e.getCause());
                }
            } catch (TimeoutException e) {
                throw unavailable(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw unavailable(e);
            }
        }
        warnedUnavailable = false;
        return counts;
    }

    /**
     * Per partition (in partition order), the racks of the brokers holding its replicas. Kafka puts no rule on
     * {@code broker.rack}; a rack groupkeeper cannot carry ({@link io.groupkeeper.assignor.MemberSubscription#requireValidRack}:
     * over 255 characters or holding a control character) counts as no rack for that replica — it could never match a
     * member's rack, which passes the same check — and is logged once per broker and value as a WARN, so one unusual
     * broker never fails the leader's rebalance. Under the lock.
     */
    private List<Set<String>> replicaRacks(TopicDescription d) {
        List<TopicPartitionInfo> partitions = new ArrayList<>(d.partitions());
        partitions.sort(Comparator.comparingInt(TopicPartitionInfo::partition));
        List<Set<String>> racks = new ArrayList<>(partitions.size());
        for (TopicPartitionInfo info : partitions) {
            Set<String> set = new TreeSet<>();
            for (Node replica : info.replicas()) {
                if (replica.hasRack() && !replica.rack().isBlank()) {
                    String rack = replica.rack();
                    try {
                        set.add(MemberSubscription.requireValidRack(rack));
                    } catch (IllegalArgumentException e) {
                        if (warnedRacks.add(replica.id() + "/" + rack)) {
                            LOG.warn(
                                    "broker {} has broker.rack \"{}\", which groupkeeper cannot use as a rack ({}); "
                                            + "its replicas count as having no rack",
                                    replica.id(),
                                    printable(rack),
                                    e.getMessage());
                        }
                    }
                }
            }
            racks.add(Set.copyOf(set));
        }
        return racks;
    }

    /** {@code topic}'s replica racks as {@code d} describes them are the last known (package-private for tests). */
    synchronized void rememberRacks(String topic, TopicDescription d) {
        lastRacks.put(topic, replicaRacks(d));
    }

    /** {@code s} with control characters escaped as {@code \\uXXXX}, for a log line. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** Under the lock: Kafka says {@code topic} has {@code n} partitions. */
    private void present(String topic, int n) {
        Integer before = lastKnown.put(topic, n);
        if (missing.remove(topic)) {
            LOG.info("topic {} exists now, with {} partitions", topic, n);
        } else if (before != null && before != n) {
            LOG.info("topic {} has {} partitions now (was {})", topic, n, before);
        }
    }

    /** Under the lock: Kafka says {@code topic} does not exist. */
    private void absent(String topic) {
        lastKnown.remove(topic);
        lastRacks.remove(topic);
        if (missing.add(topic)) {
            LOG.warn(
                    "topic {} does not exist in Kafka at {}; no partitions of it are assigned until it is created "
                            + "(the other topics are unaffected)",
                    topic,
                    adminConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
        }
    }

    private KafkaUnavailable unavailable(Throwable cause) {
        if (!warnedUnavailable && !closing) {
            warnedUnavailable = true;
            LOG.warn(
                    "cannot read topic metadata from Kafka at {}: {}; using the last known partition counts",
                    adminConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG),
                    cause.toString());
        }
        return new KafkaUnavailable(cause.toString());
    }

    private KafkaAdmin admin() {
        if (admin == null) {
            admin = clients.admin(adminConfig);
        }
        return admin;
    }

    @Override
    public void close() {
        closing = true;
        KafkaAdmin inFlight = admin;
        if (inFlight != null) {
            // First, without the lock: a describeTopics in flight (it holds the lock) fails at once rather than after
            // its
            // timeout, which a Kafka that cannot be reached would make close() wait for.
            inFlight.close(Duration.ZERO);
        }
        KafkaAdmin a;
        ScheduledExecutorService t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            lookUp.complete(null);
            a = admin;
            t = timer;
            admin = null;
            timer = null;
            armed = null;
        }
        if (t != null) {
            t.shutdownNow();
        }
        if (a != null) {
            a.close(Duration.ofSeconds(5));
        }
    }

    /** Kafka could not be asked (timeout, connection); distinct from "the topic does not exist". */
    private static final class KafkaUnavailable extends Exception {
        private static final long serialVersionUID = 1L;

        KafkaUnavailable(String message) {
            super(message, null, false, false);
        }
    }
}

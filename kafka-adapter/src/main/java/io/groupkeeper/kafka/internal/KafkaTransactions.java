package io.groupkeeper.kafka.internal;

import io.groupkeeper.CommitResult;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.KafkaClientListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional mode (docs/exactly-once.md): one transactional producer per owned input partition, its
 * {@code transactional.id} derived from namespace, group, topic and partition. At the claim, before the partition's
 * first record is fetched, only while the member owns it under the claim it was assigned with, the store's connection
 * is up and the store confirms the claim, {@code initTransactions()} fences the former owner's producer and aborts its
 * open transaction (waiting for one being completed), the store confirms the claim again, then Kafka's transactional
 * group offset is read ({@code requireStable})
 * and weighed against ZooKeeper's ({@link OffsetOfRecord}). Outputs go into the partition's open transaction; at every commit
 * point the partition's position is sent to the same transaction and it commits, before the position is written to
 * ZooKeeper. A revoked partition's producer is closed after its final commit; a lost one's transaction is aborted.
 *
 * <p>Polling thread only, except that the claims' {@code initTransactions()} run in parallel on a small pool (each
 * takes a round trip to the transaction coordinator, ~200 ms when a former owner's transaction must be aborted).
 *
 * <p>About 860 lines: each owned partition's producer lives through claim, sends, commit points, abort and release, and
 * every step must weigh the fencing (a fenced producer, an aborted transaction, an operator's edit, a claim that is no
 * longer the member's, ZooKeeper writes of unknown outcome) the same way; split apart, those rules would be repeated.
 */
final class KafkaTransactions implements AutoCloseable {

    // The adapter's one logger: users' logging configurations and the tests name it.
    private static final Logger LOG = LoggerFactory.getLogger(DefaultCoordinatedConsumer.class);

    /** One owned partition's producer and what it last committed to Kafka. */
    private static final class Txn {
        final String transactionalId;
        Producer<Object, Object> producer;
        boolean open;
        /** The offset this partition's last transaction committed (or that was read at the claim); -1: none. */
        long kafkaOffset = -1;
        /**
         * Where the open transaction began: the partition's position when records were last delivered with no
         * transaction open, or the offset the last one committed; -1: not known yet. Everything before it is done
         * (committed, or handled without outputs); an aborted transaction goes back here.
         */
        long base = -1;
        /**
         * Offsets sent to ZooKeeper whose outcome is not known (the write threw): ZooKeeper may hold them. Cleared as
         * soon as a later write or read of the partition returns (the store answers in order: the earlier writes'
         * outcome is settled by then, and the answer says what the node holds). Never trimmed: at
         * {@link #unsettled} the partition stops committing to Kafka instead (a value left out of the metadata that
         * ZooKeeper does hold would read as an operator's reset, and the next owner would repeat committed outputs).
         */
        final Set<Long> unconfirmed = new LinkedHashSet<>();
        /** The last commit point held the Kafka commit back ({@link #unsettled}); logged once until it clears. */
        boolean held;
        /**
         * ZooKeeper's offset was removed (found at the claim, or a deletion adopted) and no Kafka commit of this claim
         * has carried the fresh start yet: nothing is written to ZooKeeper ({@link #zkOffset}). The start stored there
         * alone could be a value Kafka's last commit names in its metadata (the value ZooKeeper held when it was
         * committed, often the start position itself), and the next claim — this member's, made again after a failed
         * transaction, or the next owner's — would let Kafka's offset win over it; the node left removed starts it
         * afresh again.
         */
        boolean freshStart;

        Txn(String transactionalId) {
            this.transactionalId = transactionalId;
        }
    }

    private final String group;
    /** The store's namespace: part of the transactional ids and of {@link #kafkaGroup}. */
    private final String namespace;
    /** The Kafka group that receives the offsets ({@link TransactionalConfig#kafkaGroup}). */
    private final String kafkaGroup;

    private final TransactionalConfig config;
    private final Map<String, Object> producerBase;
    private final Map<String, Object> adminConfig;
    private final Duration timeout;
    private final Positions positions;
    private final PositionResolver.Seeker seeker;
    /** The member's fencing token of a partition now (empty: not owned): see {@link #stillOwns}. */
    private final Function<TopicPartition, OptionalLong> tokens;
    /** The member's {@code refresh}: a read, through the store, of ownership and offset (see {@link #confirm}). */
    private final Function<Collection<TopicPartition>, CommitResult> refresher;
    /** Whether the store's connection is up now (false: in doubt; see {@link #claim}). */
    private final BooleanSupplier storeConnected;
    /** A claim was deferred because the store was in doubt, and logged; cleared by the next claim that goes ahead. */
    private boolean deferredInDoubt;

    private final Map<TopicPartition, Txn> txns = new HashMap<>();
    /** Owned partitions whose claim failed (stopped until a retry succeeds). */
    private final Set<TopicPartition> unclaimed = new TreeSet<>();

    private final ExecutorService pool;
    private KafkaAdmin admin;
    private final KafkaClients clients;
    private final KafkaClientListener clientListener;

    KafkaTransactions(
            String namespace,
            String group,
            TransactionalConfig config,
            Map<String, Object> kafkaProperties,
            Duration timeout,
            Positions positions,
            PositionResolver.Seeker seeker,
            Function<TopicPartition, OptionalLong> tokens,
            Function<Collection<TopicPartition>, CommitResult> refresher,
            BooleanSupplier storeConnected,
            KafkaClientListener clientListener) {
        this(
                namespace,
                group,
                config,
                kafkaProperties,
                timeout,
                positions,
                seeker,
                tokens,
                refresher,
                storeConnected,
                clientListener,
                KafkaClients.REAL);
    }

    KafkaTransactions(
            String namespace,
            String group,
            TransactionalConfig config,
            Map<String, Object> kafkaProperties,
            Duration timeout,
            Positions positions,
            PositionResolver.Seeker seeker,
            Function<TopicPartition, OptionalLong> tokens,
            Function<Collection<TopicPartition>, CommitResult> refresher,
            BooleanSupplier storeConnected,
            KafkaClientListener clientListener,
            KafkaClients clients) {
        this.clients = clients;
        this.tokens = tokens;
        this.refresher = refresher;
        this.storeConnected = storeConnected;
        this.clientListener = clientListener;
        this.group = group;
        this.namespace = namespace;
        this.kafkaGroup = TransactionalConfig.kafkaGroup(namespace, group);
        this.config = config;
        this.producerBase = producerBase(kafkaProperties, config, timeout);
        this.adminConfig = KafkaFencedOffsets.adminConfig(kafkaProperties, group + "-transactions");
        this.timeout = timeout;
        this.positions = positions;
        this.seeker = seeker;
        this.pool = clients.pool("groupkeeper-transactions-" + group, 4);
    }

    /** The producers' properties: the consumer's that a producer knows, the user's producer properties, the mode's. */
    static Map<String, Object> producerBase(
            Map<String, Object> kafkaProperties, TransactionalConfig config, Duration timeout) {
        Set<String> known = ProducerConfig.configNames();
        Map<String, Object> props = new LinkedHashMap<>();
        kafkaProperties.forEach((k, v) -> {
            if (known.contains(k) && !k.equals(ProducerConfig.CLIENT_ID_CONFIG)) {
                props.put(k, v);
            }
        });
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        props.putAll(config.producerProperties());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        return props;
    }

    /** Parses the producers' properties as {@code KafkaProducer} will (types, values, missing keys). */
    static void validate(AdapterConfig<?, ?> config) {
        Map<String, Object> props =
                new HashMap<>(producerBase(config.kafkaProperties(), config.transactional(), config.kafkaTimeout()));
        props.put(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                config.transactional()
                        .transactionalId(config.keeper().store().namespace(), config.groupId(), "validation", 0));
        props.put(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                config.transactional().keySerializer().getClass());
        props.put(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                config.transactional().valueSerializer().getClass());
        ProducerConfig.configDef().parse(props); // (a ProducerConfig would also log every value at INFO)
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims newly owned partitions (already in the positions, at their ZooKeeper offset or unresolved): fences the
     * former owners, reads Kafka's offsets, positions each partition at the offset of record, and writes a ZooKeeper
     * offset that wins into a transaction at once. A partition whose claim fails is stopped and retried at the next
     * commit point. While the store's connection is in doubt nothing is claimed (no {@code initTransactions()}): the
     * partitions are stopped and their claims wait for a commit point after the connection is back.
     */
    void claim(Collection<OwnedPartition> claimed) {
        if (claimed.isEmpty()) {
            return;
        }
        // In doubt (the store's connection is down): this member cannot know whether it still owns these, and its own
        // view lags (it has not heard yet). An initTransactions() now would fence the owner the rebalancer may have
        // given them to meanwhile, and abort its open transaction, at every commit point until this member hears.
        boolean inDoubt = !storeConnected.getAsBoolean();
        List<OwnedPartition> owned = new ArrayList<>();
        SortedSet<TopicPartition> deferred = new TreeSet<>();
        for (OwnedPartition p : claimed) {
            Txn old = txns.remove(p.tp);
            if (old != null) {
                closeQuietly(old, Duration.ZERO);
            }
            if (!stillOwns(p)) { // an initTransactions() now would fence the partition's current owner
                notOwned(p, "not claimed");
                continue;
            }
            Txn t = new Txn(config.transactionalId(namespace, group, p.tp.topic(), p.tp.partition()));
            if (old != null) { // claimed again: what ZooKeeper may hold is unchanged by a new producer
                t.unconfirmed.addAll(old.unconfirmed);
                t.freshStart = old.freshStart;
            }
            txns.put(p.tp, t);
            if (inDoubt) {
                unclaimed.add(p.tp);
                p.failed = true; // not fetched until a claim succeeds
                positions.touch(p.tp);
                deferred.add(p.tp);
            } else {
                owned.add(p);
            }
        }
        if (inDoubt) {
            if (!deferred.isEmpty() && !deferredInDoubt) {
                LOG.warn(
                        "the store's connection is in doubt; the claims of {} wait (no initTransactions(): it would "
                                + "fence their owner if this member has lost them) until the store confirms them",
                        deferred);
                deferredInDoubt = true;
            }
            return;
        }
        deferredInDoubt = false;
        confirm(owned); // before initTransactions() too: a member that is cut off, or not the owner, fences nobody
        Map<OwnedPartition, CompletableFuture<Producer<Object, Object>>> inits = new LinkedHashMap<>();
        for (OwnedPartition p : owned) {
            String id = txns.get(p.tp).transactionalId;
            inits.put(p, CompletableFuture.supplyAsync(() -> initProducer(id), pool));
        }
        List<OwnedPartition> ready = new ArrayList<>();
        for (Map.Entry<OwnedPartition, CompletableFuture<Producer<Object, Object>>> e : inits.entrySet()) {
            OwnedPartition p = e.getKey();
            try {
                txns.get(p.tp).producer = e.getValue().join();
                if (stillOwns(p)) {
                    ready.add(p);
                } else { // lost while the claim was under way: act no further for it (commit nothing)
                    closeQuietly(txns.get(p.tp), Duration.ZERO);
                    notOwned(p, "claimed while it was lost; nothing committed");
                }
            } catch (RuntimeException ex) {
                stop(p, "initTransactions() failed", ex);
            }
        }
        confirm(ready);
        if (ready.isEmpty()) {
            return;
        }
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> stored;
        try {
            stored = kafkaOffsets(ready);
        } catch (RuntimeException ex) {
            ready.forEach(p -> stop(p, "reading Kafka's transactional offset failed", ex));
            return;
        }
        for (OwnedPartition p : ready) {
            unclaimed.remove(p.tp);
            if (p.failed) {
                p.failed = false;
                positions.touch(p.tp);
            }
            Txn t = txns.get(p.tp);
            OffsetAndMetadata k = stored.get(p.ktp);
            OptionalLong kafka = k == null ? OptionalLong.empty() : OptionalLong.of(k.offset());
            t.kafkaOffset = k == null ? -1 : k.offset();
            OptionalLong zk = p.committed;
            OffsetOfRecord.Winner w = OffsetOfRecord.decide(zk, kafka, k == null ? null : k.metadata());
            if (w == OffsetOfRecord.Winner.KAFKA) {
                if (p.position != k.offset()) {
                    LOG.info(
                            "Kafka's transactional offset {} of {} is the offset of record (ZooKeeper has {}, a "
                                    + "commit's ZooKeeper write did not land); continuing from {}",
                            k.offset(),
                            p.tp,
                            zk.isPresent() ? zk.getAsLong() : "none",
                            k.offset());
                }
                seeker.seek(p, k.offset());
            } else if (kafka.isPresent() && zk.isPresent()) {
                LOG.info(
                        "ZooKeeper's offset {} of {} was changed by someone else (Kafka has {}); it wins and is "
                                + "committed to Kafka now",
                        zk.getAsLong(),
                        p.tp,
                        k.offset());
                if (p.position != zk.getAsLong()) { // claimed again: not past records whose outputs were aborted
                    seeker.seek(p, zk.getAsLong());
                }
                t.base = zk.getAsLong();
                commit(List.of(p));
            } else if (zk.isPresent()) {
                if (p.position != zk.getAsLong()) { // the store's offset moved since the assignment was issued
                    seeker.seek(p, zk.getAsLong());
                }
            } else if (kafka.isPresent()) {
                LOG.info(
                        "ZooKeeper's offset of {} was removed (Kafka has {}); starting from the start position",
                        p.tp,
                        k.offset());
                t.freshStart = true;
            }
        }
    }

    /**
     * After {@code initTransactions()}, before anything is read or committed for them: asks the store whether each of
     * {@code ready} is still this member's — a read in the member's session through the partition's owner node
     * ({@code GroupMember.refresh}) — and what its offset node holds now. The member's own view can be behind the
     * store (a process paused until its session ended, that has not heard yet), and the offset an assignment came with
     * can be stale (it waited in the queue). Those the store does not give this member are closed and left alone
     * (nothing committed); the others take the offset read. A read that fails stops the claim (retried at the next
     * commit point). The answer also settles every ZooKeeper write of unknown outcome.
     */
    private void confirm(List<OwnedPartition> ready) {
        if (ready.isEmpty()) {
            return;
        }
        List<TopicPartition> tps = new ArrayList<>();
        ready.forEach(p -> tps.add(p.tp));
        CommitResult r;
        try {
            r = refresher.apply(tps);
        } catch (RuntimeException e) {
            new ArrayList<>(ready).forEach(p -> stop(p, "confirming the claim with the store failed", e));
            ready.clear();
            return;
        }
        for (Iterator<OwnedPartition> it = ready.iterator(); it.hasNext(); ) {
            OwnedPartition p = it.next();
            Txn t = txns.get(p.tp);
            CommitResult.Status s = r.status(p.tp);
            if (s == CommitResult.Status.NOT_OWNED) {
                notOwned(p, "the store says it is not this member's any more; nothing committed");
                it.remove();
                continue;
            }
            if (s == CommitResult.Status.ADOPTED) {
                p.committed = r.adoptedOffsets().getOrDefault(p.tp, OptionalLong.empty());
                if (p.committed.isEmpty() && p.position >= 0) {
                    // Removed since it was positioned (an operator's `offsets delete`): unresolved, so the start
                    // position is resolved and stored again (a fresh start, unless Kafka's offset wins below), not
                    // the position of before the deletion.
                    positions.position(p, -1);
                }
            }
            if (s != null) {
                t.unconfirmed.clear();
            }
        }
    }

    /**
     * Whether the member still owns {@code p} under the claim it was assigned with (its fencing token; a partition
     * assigned with no known token: owned at all). A partition released and claimed again, even by this member, is
     * another claim: what was done under the earlier one is not continued.
     */
    private boolean stillOwns(OwnedPartition p) {
        OptionalLong now = tokens.apply(p.tp);
        return now.isPresent() && (p.token < 0 || now.getAsLong() == p.token);
    }

    /** {@code p} is not owned under its claim any more: not fetched, not claimed again; its revocation or loss drops it. */
    private void notOwned(OwnedPartition p, String what) {
        Txn t = txns.remove(p.tp);
        if (t != null) {
            closeQuietly(t, Duration.ZERO);
        }
        unclaimed.remove(p.tp);
        p.failed = true;
        positions.touch(p.tp);
        LOG.info("{} is no longer owned under the claim it was assigned with; {}", p.tp, what);
    }

    private Producer<Object, Object> initProducer(String transactionalId) {
        // Checked again for each: the claims' inits are queued on a small pool, and the connection may go while the
        // first ones take their round trips (the claim is then retried at a commit point, deferred while in doubt).
        if (!storeConnected.getAsBoolean()) {
            throw new KafkaException("group " + group + ": not initialised, the store's connection is in doubt "
                    + "(an initTransactions() now would fence the owner if this member has lost the partition)");
        }
        Map<String, Object> props = new HashMap<>(producerBase);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "groupkeeper-tx-" + transactionalId);
        @SuppressWarnings("unchecked")
        Producer<Object, Object> producer =
                clients.producer(props, (Serializer<Object>) unclosed(config.keySerializer()), (Serializer<Object>)
                        unclosed(config.valueSerializer()));
        String clientId = (String) props.get(ProducerConfig.CLIENT_ID_CONFIG);
        try {
            producer.initTransactions();
            clientListener.producerAdded(clientId, producer);
            return producer;
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    /** The user's serializer, shared by all producers: closed once, by {@link #close}, not by each producer. */
    private static <T> Serializer<T> unclosed(Serializer<T> s) {
        return new Serializer<>() {
            @Override
            public byte[] serialize(String topic, T data) {
                return s.serialize(topic, data);
            }

            @Override
            public byte[] serialize(String topic, Headers headers, T data) {
                return s.serialize(topic, headers, data);
            }
        };
    }

    private Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> kafkaOffsets(List<OwnedPartition> ps) {
        List<org.apache.kafka.common.TopicPartition> ktps = new ArrayList<>();
        ps.forEach(p -> ktps.add(p.ktp));
        try {
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> out =
                    admin().stableGroupOffsets(kafkaGroup, ktps).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> copy = new HashMap<>();
            out.forEach((k, v) -> {
                if (v != null) {
                    copy.put(k, v);
                }
            });
            return copy;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        } catch (ExecutionException e) {
            throw new KafkaException(
                    "group " + group + ": reading Kafka's offsets of " + ktps + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException(
                    "group " + group + ": reading Kafka's offsets of " + ktps + " timed out after " + timeout.toMillis()
                            + " ms",
                    e);
        }
    }

    private KafkaAdmin admin() {
        if (admin == null) {
            admin = clients.admin(adminConfig);
        }
        return admin;
    }

    private void stop(OwnedPartition p, String what, RuntimeException e) {
        Txn t = txns.get(p.tp);
        if (t != null && t.producer != null) {
            closeQuietly(t, Duration.ZERO);
        }
        unclaimed.add(p.tp);
        p.failed = true; // not fetched until a claim succeeds
        positions.touch(p.tp);
        LOG.warn("{} for {} (not consumed until a retry at the next commit succeeds): {}", what, p.tp, e.toString());
    }

    /** Whether {@code tp}'s claim failed or waits (not fetched until a retry at a commit point succeeds). */
    boolean claimPending(TopicPartition tp) {
        return unclaimed.contains(tp);
    }

    /** Retries the claims that failed (at every commit point). */
    void retryClaims() {
        if (unclaimed.isEmpty()) {
            return;
        }
        List<OwnedPartition> retry = new ArrayList<>();
        for (TopicPartition tp : new ArrayList<>(unclaimed)) {
            OwnedPartition p = positions.get(tp);
            if (p == null) {
                unclaimed.remove(tp);
            } else {
                retry.add(p);
            }
        }
        claim(retry);
    }

    // ------------------------------------------------------------------ send and commit

    /** Sends {@code record} in the open transaction of input partition {@code input}, opening one if needed. */
    @SuppressWarnings("unchecked")
    Future<RecordMetadata> send(TopicPartition input, ProducerRecord<?, ?> record) {
        Txn t = txns.get(input);
        if (t == null || t.producer == null) {
            throw new IllegalStateException("group " + group + ": input partition " + input + " is not owned"
                    + (t == null ? "" : " (its claim has not succeeded yet)") + "; cannot send " + record.topic());
        }
        if (!t.open) {
            t.producer.beginTransaction();
            t.open = true;
        }
        return t.producer.send((ProducerRecord<Object, Object>) record);
    }

    /**
     * Commits the transactions of {@code which} that have outputs or a position Kafka does not have yet: the position
     * and the outputs in one transaction. Returns the partitions whose producer was fenced (another owner claimed them
     * since, or a transaction failed after the member lost the partition); the caller drops them. A transaction that
     * fails otherwise is aborted and, if the member still owns the partition, claimed again: its position goes back
     * to the offset of record, so its records are processed again.
     */
    SortedSet<TopicPartition> commit(Collection<OwnedPartition> which) {
        SortedSet<TopicPartition> fenced = new TreeSet<>();
        List<OwnedPartition> reclaim = new ArrayList<>();
        for (OwnedPartition p : which) {
            Txn t = txns.get(p.tp);
            if (t == null || t.producer == null) {
                continue;
            }
            if (!p.active()) {
                if (t.open) { // outputs with no position to commit them with
                    abortQuietly(t);
                }
                continue;
            }
            long target = p.position;
            if (!t.open && target == t.kafkaOffset) {
                t.freshStart = false; // (a start at Kafka's offset: ZooKeeper may hold it)
                continue;
            }
            if (unsettled(t)) {
                if (!t.held) {
                    LOG.warn(
                            "{} has {} ZooKeeper writes of unknown outcome; no Kafka commit until ZooKeeper answers "
                                    + "again (its offset stays at Kafka's {} meanwhile)",
                            p.tp,
                            t.unconfirmed.size(),
                            t.kafkaOffset);
                }
                t.held = true;
                continue;
            }
            t.held = false;
            if (!stillOwns(p)) { // another claim since (maybe another owner's): commit nothing for this one
                LOG.warn(
                        "{} is no longer owned under the claim it was assigned with (another owner's claim fences "
                                + "producer {}); its open transaction is aborted and the partition dropped",
                        p.tp,
                        t.transactionalId);
                if (t.open) {
                    abortQuietly(t);
                }
                closeQuietly(t, Duration.ZERO);
                txns.remove(p.tp);
                fenced.add(p.tp);
                continue;
            }
            try {
                if (!t.open) {
                    t.producer.beginTransaction();
                    t.open = true;
                }
                t.producer.sendOffsetsToTransaction(
                        Map.of(p.ktp, new OffsetAndMetadata(target, OffsetOfRecord.metadata(zkCandidates(p, t)))),
                        new ConsumerGroupMetadata(kafkaGroup));
                t.producer.commitTransaction();
                t.open = false;
                t.kafkaOffset = target;
                t.base = target;
                t.freshStart = false;
            } catch (ProducerFencedException
                    | InvalidProducerEpochException
                    | TransactionalIdAuthorizationException e) {
                closeQuietly(t, Duration.ZERO);
                if (stillOwns(p)) {
                    // Still ours by the store: a former owner's claim that was under way when it lost the partition
                    // (paused in initTransactions) completed after ours. Claim again: that fences it in turn.
                    LOG.warn(
                            "this member's producer {} of {} was fenced although the member still owns the partition "
                                    + "(a former owner's late claim); its open transaction is aborted and the partition claimed "
                                    + "again: {}",
                            t.transactionalId,
                            p.tp,
                            e.toString());
                    reclaim.add(p);
                } else {
                    LOG.warn(
                            "this member's producer {} of {} was fenced (another owner claimed the partition); its "
                                    + "open transaction is aborted and the partition dropped: {}",
                            t.transactionalId,
                            p.tp,
                            e.toString());
                    txns.remove(p.tp);
                    fenced.add(p.tp);
                }
            } catch (InterruptException e) {
                throw e;
            } catch (KafkaException e) {
                LOG.warn(
                        "the transaction of producer {} of {} failed; aborted, continuing from the offset of record: "
                                + "{}",
                        t.transactionalId,
                        p.tp,
                        e.toString());
                abortQuietly(t);
                rewind(p, t); // (the claim below seeks to the offset of record)
                if (stillOwns(p)) {
                    reclaim.add(p);
                } else { // a new initTransactions() here would fence the partition's next owner: give it up
                    closeQuietly(t, Duration.ZERO);
                    txns.remove(p.tp);
                    fenced.add(p.tp);
                }
            }
        }
        claim(reclaim);
        return fenced;
    }

    /** Records are about to be delivered for these partitions: those with no open transaction begin one here. */
    void delivering(Collection<org.apache.kafka.common.TopicPartition> partitions) {
        for (org.apache.kafka.common.TopicPartition ktp : partitions) {
            TopicPartition tp = Partitions.gk(ktp);
            Txn t = txns.get(tp);
            OwnedPartition p = positions.get(tp);
            if (t != null && !t.open && p != null && p.position >= 0) {
                t.base = p.position;
            }
        }
    }

    /**
     * A send into the transaction of {@code input} failed (the transaction can never commit): aborts it now and moves
     * the partition back to where it began, so the records whose outputs were in it come again. A producer that
     * cannot abort (a fatal error) is closed and the partition claimed again at the next commit point (not fetched
     * until then). Returns the partition's position, or -1 if it is not owned.
     */
    long abort(TopicPartition input) {
        Txn t = txns.get(input);
        OwnedPartition p = positions.get(input);
        if (p == null) {
            return -1;
        }
        if (t == null || t.producer == null) {
            return p.position;
        }
        if (t.open) {
            try {
                t.producer.abortTransaction();
                t.open = false;
            } catch (InterruptException e) {
                throw e;
            } catch (KafkaException e) {
                rewind(p, t);
                stop(p, "aborting the transaction of producer " + t.transactionalId + " failed", e);
                return p.position;
            }
            LOG.info(
                    "a send from {} into the transaction of producer {} failed; aborted, continuing from {}",
                    input,
                    t.transactionalId,
                    t.base >= 0 ? t.base : p.position);
        }
        rewind(p, t);
        return p.position;
    }

    /**
     * Someone else's change of the stored offset (an operator's reset, a hand edit) was adopted: the partition
     * continues from {@code stored}. Everything a later abort or failure goes back to moves there too — the open
     * transaction's base (what {@link #abort} returns, the container's retry point) — so no rewind lands behind or
     * ahead of the reset and no later commit writes over it. ZooKeeper's value is known again: nothing is unconfirmed.
     */
    void adopted(TopicPartition tp, OptionalLong stored) {
        Txn t = txns.get(tp);
        if (t != null) {
            t.base = stored.isPresent() ? stored.getAsLong() : -1;
            t.unconfirmed.clear();
            t.freshStart = stored.isEmpty(); // a deletion: the start is stored once Kafka has it
        }
    }

    /**
     * The out-of-range policy moved the partition to {@code offset} (its position was outside the log: deleted by
     * retention, or past the end): a later abort or failure goes back there, not to where the open transaction began,
     * which the log may no longer hold.
     */
    void corrected(TopicPartition tp, long offset) {
        Txn t = txns.get(tp);
        if (t != null) {
            t.base = offset;
        }
    }

    /** Back to where the (aborted) transaction began. */
    private void rewind(OwnedPartition p, Txn t) {
        if (t.base >= 0 && p.position != t.base) {
            seeker.seek(p, t.base);
        }
    }

    private Set<Long> zkCandidates(OwnedPartition p, Txn t) {
        Set<Long> c = new LinkedHashSet<>();
        c.add(p.committed.isPresent() ? p.committed.getAsLong() : -1L);
        c.addAll(t.unconfirmed);
        return c;
    }

    /**
     * Whether the metadata can name no more values: with the one ZooKeeper is known to hold, the unconfirmed ones fill
     * {@link OffsetOfRecord#MAX_CANDIDATES}.
     */
    private static boolean unsettled(Txn t) {
        return t.unconfirmed.size() >= OffsetOfRecord.MAX_CANDIDATES - 1;
    }

    /**
     * What a ZooKeeper write of {@code tp} may carry when the position is {@code position}: the position, except while
     * the Kafka commit is held back ({@link #unsettled}): then Kafka's offset (already named by Kafka itself: whoever
     * reads it next finds ZooKeeper equal to Kafka), so ZooKeeper never gets ahead of the offset of record and the
     * write's answer settles the unknown ones; -1: write nothing (Kafka has no offset yet, or ZooKeeper's was removed
     * and Kafka does not have the fresh start yet: {@link Txn#freshStart}).
     */
    long zkOffset(TopicPartition tp, long position) {
        Txn t = txns.get(tp);
        if (t != null && t.freshStart) {
            return -1;
        }
        return t == null || !t.held ? position : t.kafkaOffset;
    }

    /** Offsets about to be written to ZooKeeper: until the write returns, ZooKeeper may hold them. */
    void zkWriting(Map<TopicPartition, Long> offsets) {
        offsets.forEach((tp, o) -> {
            Txn t = txns.get(tp);
            if (t != null) {
                t.unconfirmed.add(o);
            }
        });
    }

    /** The ZooKeeper write of these returned (whatever it answered): the committed offsets are known again. */
    void zkSettled(Collection<TopicPartition> partitions) {
        partitions.forEach(tp -> {
            Txn t = txns.get(tp);
            if (t != null) {
                t.unconfirmed.clear();
            }
        });
    }

    // ------------------------------------------------------------------ release, loss, close

    /** Revoked partitions, after their final commit: their producers are closed (an open transaction aborted). */
    void release(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            unclaimed.remove(tp);
            Txn t = txns.remove(tp);
            if (t != null) {
                if (t.open) {
                    abortQuietly(t);
                }
                closeQuietly(t, timeout);
            }
        }
    }

    /**
     * Lost partitions (no final commit): the open transactions are aborted (or, if the abort cannot reach Kafka, left
     * to the next owner's {@code initTransactions()}, which aborts them) and the producers closed.
     */
    void lost(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            unclaimed.remove(tp);
            Txn t = txns.remove(tp);
            if (t != null) {
                if (t.open) {
                    abortQuietly(t);
                }
                closeQuietly(t, Duration.ZERO);
            }
        }
    }

    /** The partitions with a producer (for tests). */
    Set<TopicPartition> producing() {
        Set<TopicPartition> out = new TreeSet<>();
        txns.forEach((tp, t) -> {
            if (t.producer != null) {
                out.add(tp);
            }
        });
        return out;
    }

    @Override
    public void close() {
        lost(new ArrayList<>(txns.keySet())); // (the final commit ran before: nothing is open any more)
        pool.shutdownNow();
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
        }
        closeSerializer(config.keySerializer());
        closeSerializer(config.valueSerializer());
    }

    private void closeSerializer(Serializer<?> s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.debug("closing serializer {} failed: {}", s, e.toString());
        }
    }

    private void abortQuietly(Txn t) {
        try {
            t.producer.abortTransaction();
        } catch (RuntimeException e) {
            LOG.debug(
                    "aborting the transaction of {} failed (the next initTransactions() aborts it): {}",
                    t.transactionalId,
                    e.toString());
        }
        t.open = false;
    }

    private void closeQuietly(Txn t, Duration wait) {
        if (t.producer == null) {
            return;
        }
        try {
            clientListener.producerRemoved("groupkeeper-tx-" + t.transactionalId, t.producer);
            t.producer.close(wait);
        } catch (RuntimeException e) {
            LOG.debug("closing producer {} failed: {}", t.transactionalId, e.toString());
        }
        t.producer = null;
        t.open = false;
    }
}

package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.CommitResult;
import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.OutOfRangePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaTransactions} and {@link PositionCommitter} on a real broker, with a scripted member: the store's answers
 * that real ZooKeeper gives only in races (a commit refused as not owned while the member still holds the claim; many
 * writes in a row whose outcome is unknown) are made on purpose here (R4 of issue 44).
 */
class KafkaTransactionsIT extends BrokerTestSupport {

    private static final AtomicInteger GROUPS = new AtomicInteger();
    private static final TopicPartition A0 = new TopicPartition("in", 0);

    private final String group = "g" + GROUPS.incrementAndGet() + "-" + System.nanoTime();
    private final PositionsTest.Gauges gauges = new PositionsTest.Gauges();
    private final Positions positions = new Positions(gauges, group, () -> "m1");
    private final PositionCommitterTest.ScriptedMember member = new PositionCommitterTest.ScriptedMember();
    private final List<String> effects = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void createInputTopic() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("in", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private KafkaTransactions transactions() {
        return transactions(positions, member);
    }

    private KafkaTransactions transactions(Positions positions, PositionCommitterTest.ScriptedMember member) {
        return transactions(positions, member::refresh, () -> true);
    }

    /** With the member's {@code refresh} and the store's connection state as given. */
    private KafkaTransactions transactions(
            Positions positions,
            Function<Collection<TopicPartition>, CommitResult> refresher,
            BooleanSupplier storeConnected) {
        KafkaTransactions txns = new KafkaTransactions(
                "groupkeeper",
                group,
                new TransactionalConfig(new StringSerializer(), new StringSerializer(), "groupkeeper/", Map.of()),
                Map.of("bootstrap.servers", kafka.bootstrapServers()),
                Duration.ofSeconds(20),
                positions,
                (p, offset) -> positions.position(p, offset),
                tp -> OptionalLong.of(7),
                refresher,
                storeConnected,
                new KafkaClientListener() {});
        toClose.add(txns);
        return txns;
    }

    private PositionCommitter committer(KafkaTransactions txns) {
        return new PositionCommitter(
                group,
                member,
                positions,
                null,
                gauges,
                Duration.ofSeconds(1),
                OutOfRangePolicy.EARLIEST,
                System::nanoTime,
                0,
                new PositionCommitter.Effects() {
                    @Override
                    public void adopt(OwnedPartition p, OptionalLong stored) {
                        effects.add("adopt " + p.tp + " " + stored);
                    }

                    @Override
                    public void dropped(SortedSet<TopicPartition> partitions) {
                        effects.add("drop " + partitions);
                    }
                },
                txns);
    }

    private OwnedPartition claimed(KafkaTransactions txns, long stored) {
        OwnedPartition p = positions.add(A0, OptionalLong.of(stored));
        p.token = 7;
        txns.claim(List.of(p));
        assertThat(txns.producing()).containsExactly(A0);
        return p;
    }

    /**
     * Kafka's offset of record of in-0 (every test here has committed one when it asks), waited for: right after a
     * commit the broker may answer UNSTABLE_OFFSET_COMMIT, which the admin client reads as no offset.
     */
    private OffsetAndMetadata kafkaOffset() {
        OffsetAndMetadata[] out = new OffsetAndMetadata[1];
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> (out[0] = readKafkaOffset()) != null);
        return out[0];
    }

    private OffsetAndMetadata readKafkaOffset() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            org.apache.kafka.common.TopicPartition ktp = new org.apache.kafka.common.TopicPartition("in", 0);
            return admin.listConsumerGroupOffsets(
                            Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(ktp))),
                            new ListConsumerGroupOffsetsOptions().requireStable(true))
                    .partitionsToOffsetAndMetadata(group)
                    .get(20, TimeUnit.SECONDS)
                    .get(ktp);
        }
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /**
     * R1: a member whose own view still says it owns the partition (a process paused until its session ended, that has
     * not heard yet) claims it after the current owner committed 100. Its initTransactions() cannot be undone, but the
     * store's answer that the partition is not this member's stops it there: its stale offset (0, not named by Kafka's
     * metadata: it would win) is not committed, and Kafka's offset of record does not move backwards.
     */
    @Test
    void aClaimTheStoreDoesNotConfirmCommitsNothing() throws Exception {
        KafkaTransactions owner = transactions();
        PositionCommitter committer = committer(owner);
        OwnedPartition p = claimed(owner, 50);
        positions.position(p, 100);
        committer.commitAll();
        assertThat(kafkaOffset().offset()).isEqualTo(100);

        Positions stalePositions = new Positions(gauges, group, () -> "m2");
        PositionCommitterTest.ScriptedMember staleMember = new PositionCommitterTest.ScriptedMember();
        staleMember.refreshAnswer.put(A0, Status.NOT_OWNED);
        KafkaTransactions stale = transactions(stalePositions, staleMember);
        OwnedPartition q = stalePositions.add(A0, OptionalLong.of(0));
        q.token = 7;
        stale.claim(List.of(q));

        assertThat(kafkaOffset().offset()).as("Kafka's offset of record").isEqualTo(100);
        assertThat(stale.producing()).isEmpty();
    }

    /**
     * A member cut off from ZooKeeper (the store's connection in doubt) whose own view still says it owns the partition
     * (it has not heard yet; the owner is another member by now) retries its claim at every commit point: no retry
     * may run {@code initTransactions()}, each of which would bump the producer epoch and abort the owner's open
     * transaction. Once the store answers again and confirms the claim, it goes ahead (one bump).
     */
    @Test
    void aClaimWhileTheStoreIsInDoubtWaitsAndFencesNobody() throws Exception {
        KafkaTransactions owner = transactions();
        PositionCommitter committer = committer(owner);
        OwnedPartition p = claimed(owner, 50);
        positions.position(p, 100);
        committer.commitAll();
        int epoch = producerEpoch();

        AtomicBoolean connected = new AtomicBoolean(false);
        Positions cutOffPositions = new Positions(gauges, group, () -> "m2");
        PositionCommitterTest.ScriptedMember cutOffMember = new PositionCommitterTest.ScriptedMember();
        KafkaTransactions cutOff = transactions(cutOffPositions, cutOffMember::refresh, connected::get);
        OwnedPartition q = cutOffPositions.add(A0, OptionalLong.of(0));
        q.token = 7;
        cutOff.claim(List.of(q));
        for (int commitPoint = 0; commitPoint < 3; commitPoint++) {
            cutOff.retryClaims();
        }
        assertThat(cutOff.producing()).isEmpty();
        assertThat(q.failed).as("stopped: not fetched while the claim waits").isTrue();
        assertThat(producerEpoch())
                .as("the producer epoch of " + transactionalId())
                .isEqualTo(epoch);
        positions.position(p, 120);
        committer.commitAll(); // the owner was not fenced: it commits
        assertThat(effects).isEmpty();
        assertThat(kafkaOffset().offset()).isEqualTo(120);

        int before = producerEpoch(); // (every commit may bump it: Kafka's transaction version 2)
        connected.set(true); // the store answers again (and, scripted, confirms the claim)
        cutOff.retryClaims();
        assertThat(cutOff.producing()).containsExactly(A0);
        assertThat(q.failed).isFalse();
        assertThat(producerEpoch()).isGreaterThan(before);
    }

    /**
     * The store's connection goes after the claim checked it (and the store confirmed the claim), before the claim's
     * {@code initTransactions()} went out (queued on the claims' pool behind others): it is not initialised, so the
     * owner is not fenced; the claim waits for a commit point after the connection is back.
     */
    @Test
    void aClaimWhoseStoreGoesInDoubtBeforeItsInitFencesNobody() throws Exception {
        KafkaTransactions owner = transactions();
        PositionCommitter committer = committer(owner);
        OwnedPartition p = claimed(owner, 50);
        positions.position(p, 100);
        committer.commitAll();
        int epoch = producerEpoch();

        AtomicInteger asked = new AtomicInteger();
        Positions cutOffPositions = new Positions(gauges, group, () -> "m2");
        PositionCommitterTest.ScriptedMember cutOffMember = new PositionCommitterTest.ScriptedMember();
        KafkaTransactions cutOff = transactions(
                cutOffPositions,
                cutOffMember::refresh,
                () -> asked.incrementAndGet() == 1); // connected at the claim's check, then not
        OwnedPartition q = cutOffPositions.add(A0, OptionalLong.of(0));
        q.token = 7;
        cutOff.claim(List.of(q));

        assertThat(cutOff.producing()).isEmpty();
        assertThat(q.failed).as("stopped: not fetched while the claim waits").isTrue();
        assertThat(producerEpoch())
                .as("the producer epoch of " + transactionalId())
                .isEqualTo(epoch);
        positions.position(p, 120);
        committer.commitAll(); // the owner was not fenced: it commits
        assertThat(effects).isEmpty();
        assertThat(kafkaOffset().offset()).isEqualTo(120);
    }

    /**
     * The store cannot confirm a claim (its read fails: a member whose process was paused until its session ended, its
     * client not yet aware; or says the partition is someone else's): the claim stops before
     * {@code initTransactions()}, so the owner's producer is not fenced, however often it is retried.
     */
    @Test
    void aClaimTheStoreCannotConfirmFencesNobody() throws Exception {
        KafkaTransactions owner = transactions();
        PositionCommitter committer = committer(owner);
        OwnedPartition p = claimed(owner, 50);
        positions.position(p, 100);
        committer.commitAll();
        int epoch = producerEpoch();

        Positions stalePositions = new Positions(gauges, group, () -> "m2");
        PositionCommitterTest.ScriptedMember staleMember = new PositionCommitterTest.ScriptedMember();
        AtomicInteger reads = new AtomicInteger();
        KafkaTransactions failing = transactions(
                stalePositions,
                tps -> {
                    reads.incrementAndGet();
                    throw new IllegalStateException("ZooKeeper: refresh not attempted: not connected");
                },
                () -> true);
        OwnedPartition q = stalePositions.add(A0, OptionalLong.of(0));
        q.token = 7;
        failing.claim(List.of(q));
        failing.retryClaims();
        failing.retryClaims();
        assertThat(reads).hasValue(3);
        assertThat(failing.producing()).isEmpty();
        assertThat(producerEpoch())
                .as("the producer epoch of " + transactionalId())
                .isEqualTo(epoch);

        staleMember.refreshAnswer.put(A0, Status.NOT_OWNED);
        Positions otherPositions = new Positions(gauges, group, () -> "m3");
        KafkaTransactions stale = transactions(otherPositions, staleMember::refresh, () -> true);
        OwnedPartition r = otherPositions.add(A0, OptionalLong.of(0));
        r.token = 7;
        stale.claim(List.of(r));
        assertThat(producerEpoch()).isEqualTo(epoch);

        positions.position(p, 130);
        committer.commitAll(); // the owner was not fenced: it commits
        assertThat(effects).isEmpty();
        assertThat(kafkaOffset().offset()).isEqualTo(130);
    }

    private String transactionalId() {
        return "groupkeeper/" + group + "/in/0";
    }

    /** The producer epoch the transaction coordinator holds for in-0's transactional id. */
    private int producerEpoch() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            return admin.describeTransactions(List.of(transactionalId()))
                    .description(transactionalId())
                    .get(20, TimeUnit.SECONDS)
                    .producerEpoch();
        }
    }

    /** R4: a partition the store says is not owned is dropped, and its producer (at the newest epoch) closed at once. */
    @Test
    void aPartitionDroppedAsNotOwnedLosesItsProducer() {
        KafkaTransactions txns = transactions();
        PositionCommitter committer = committer(txns);
        OwnedPartition p = claimed(txns, 5);
        positions.position(p, 8);
        member.answer.put(A0, Status.NOT_OWNED);

        committer.commitAll();

        assertThat(effects).containsExactly("drop [in:0]");
        assertThat(txns.producing()).as("partitions with a producer").isEmpty();
    }

    /**
     * A commit point's Kafka commit goes out under the partition's claim; before its ZooKeeper write, the member claims
     * the partition again (a reconnection; the new claim read an operator's edit) and the lane queues it. The position
     * of the earlier claim is committed to Kafka, not written to ZooKeeper: the member would take it under the new
     * claim's version, over the edit. The queued claim weighs Kafka's offset against the edit.
     */
    @Test
    void aPositionOfAnEarlierClaimIsNotWrittenToZooKeeperOnceThePartitionIsClaimedAgain() {
        KafkaTransactions txns = transactions(); // (its claim check says token 7: the Kafka commit goes ahead)
        PositionCommitter committer = committer(txns);
        OwnedPartition p = claimed(txns, 5);
        positions.position(p, 8);
        member.tokens.put(A0, 8L); // claimed again before the ZooKeeper write

        committer.commitAll();

        assertThat(kafkaOffset().offset()).isEqualTo(8);
        assertThat(member.commits).as("ZooKeeper writes").noneMatch(c -> c.containsKey(A0));
    }

    /**
     * An operator's {@code offsets delete} between an assignment and its claim: the store's read at the claim answers
     * ADOPTED with no offset. Kafka's offset of record (50, committed while ZooKeeper held 50) does not name "no
     * offset", so ZooKeeper wins: the partition starts afresh from the start position (left unresolved for the
     * resolver, which stores it at once), not from the 50 the assignment came with.
     */
    @Test
    void aClaimThatReadsADeletedOffsetStartsAfreshFromTheStartPosition() {
        KafkaTransactions first = transactions();
        PositionCommitter committer = committer(first);
        claimed(first, 50);
        committer.commitAll();
        assertThat(kafkaOffset().offset()).isEqualTo(50);
        first.lost(List.of(A0));

        Positions heirPositions = new Positions(gauges, group, () -> "m2");
        PositionCommitterTest.ScriptedMember heir = new PositionCommitterTest.ScriptedMember();
        heir.refreshAnswer.put(A0, Status.ADOPTED);
        heir.adopted.put(A0, OptionalLong.empty());
        KafkaTransactions txns = transactions(heirPositions, heir);
        OwnedPartition q = heirPositions.add(A0, OptionalLong.of(50)); // announced with 50
        q.token = 7;
        txns.claim(List.of(q));

        assertThat(txns.producing()).containsExactly(A0);
        assertThat(q.committed).isEmpty();
        assertThat(q.unresolved())
                .as("position " + q.position + ": a fresh start, resolved from the start position")
                .isTrue();
    }

    /**
     * R4: ZooKeeper writes keep failing with an unknown outcome while the position moves. Every value ZooKeeper may
     * hold stays named in the metadata of Kafka's offset of record (none is dropped to make room); once they fill it,
     * Kafka's offset stops moving and ZooKeeper is written Kafka's own offset, never a position ahead of it; the first
     * write that returns settles them all.
     */
    @Test
    void writesOfUnknownOutcomeAreNeverLeftOutOfTheMetadataAndSettleWhenAWriteReturns() throws Exception {
        KafkaTransactions txns = transactions();
        PositionCommitter committer = committer(txns);
        OwnedPartition p = claimed(txns, 0);
        member.failure = new IllegalStateException("connection loss: outcome unknown");
        int n = OffsetOfRecord.MAX_CANDIDATES + 10;
        for (int i = 1; i <= n; i++) {
            positions.position(p, i);
            assertThatThrownBy(committer::commitAll).isSameAs(member.failure);
        }
        OffsetAndMetadata k = kafkaOffset();
        Set<Long> named = OffsetOfRecord.candidates(k.metadata());
        // every ZooKeeper write sent before Kafka's last commit is named by it (ZooKeeper may hold any of them)
        List<Long> written = new ArrayList<>();
        member.commits.forEach(c -> written.add(c.get(A0)));
        assertThat(named)
                .containsAll(written.stream().filter(v -> v < k.offset()).toList())
                .contains(0L);
        assertThat(named).hasSizeLessThanOrEqualTo(OffsetOfRecord.MAX_CANDIDATES);
        assertThat(k.offset()).isLessThan(n);
        // held back: ZooKeeper is written Kafka's offset, not the position
        assertThat(member.commits.get(member.commits.size() - 1)).containsEntry(A0, k.offset());

        member.failure = null; // ZooKeeper answers again
        committer.commitAll();
        committer.commitAll();
        assertThat(kafkaOffset().offset()).isEqualTo(n);
        assertThat(OffsetOfRecord.candidates(kafkaOffset().metadata())).hasSize(1);
        assertThat(p.committed).hasValue(n);
    }
}

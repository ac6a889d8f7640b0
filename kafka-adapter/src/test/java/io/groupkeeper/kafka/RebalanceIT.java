package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.kafka.ConsumerWorker.Delivery;
import io.groupkeeper.kafka.internal.KafkaTopicMetadata;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Ownership moves under a real KafkaConsumer: revocation handshake (I1), partition increase, edits (I4), topics. */
class RebalanceIT extends KafkaTestSupport {

    private ConsumerWorker worker(String name, GroupKeeper keeper, String group, Deliveries d, String... topics) {
        ConsumerWorker w = new ConsumerWorker(
                name,
                consumer(keeper, group, topics)
                        .startPosition(StartPosition.earliest())
                        .listener(d.listenerFor(name))
                        .build(),
                d);
        toClose.add(w);
        return w.start();
    }

    /** A consumer polled by the test itself, so the test decides when its polling thread "comes back". */
    private CoordinatedConsumer<String, String> manual(
            GroupKeeper keeper, String group, String topic, Duration revocationTimeout) {
        CoordinatedConsumer<String, String> c = consumer(keeper, group, topic)
                .startPosition(StartPosition.earliest())
                .revocationTimeout(revocationTimeout)
                .kafkaProperty("max.poll.records", 5) // so records stay fetched but not returned
                .build();
        toClose.add(c);
        return c.start();
    }

    private static List<ConsumerRecord<String, String>> pollUntilBothPartitions(CoordinatedConsumer<String, String> c) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.stream().map(ConsumerRecord::partition).distinct().count() == 2;
        });
        return got;
    }

    @Test
    void aBadKafkaPropertyFailsStartBeforeTheMemberJoins() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        CoordinatedConsumer<String, String> c = consumer(keeper, group, topic)
                .kafkaProperty("max.poll.records", "lots")
                .build();
        toClose.add(c);
        assertThatThrownBy(c::start)
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("max.poll.records")
                .hasMessageContaining("lots");
        String members = io.groupkeeper.zkprotocol.internal.ZkPaths.members(group);
        assertThat(zk.curator().checkExists().forPath(members) == null
                        || zk.curator().getChildren().forPath(members).isEmpty())
                .as("no member node under " + members)
                .isTrue();

        // A setting that only the KafkaConsumer itself rejects (an unresolvable bootstrap server) fails start() before
        // the member joins too: the consumer is built first. The group was never touched.
        String untouched = newName("g");
        CoordinatedConsumer<String, String> unresolvable = CoordinatedConsumer.<String, String>builder(keeper)
                .group(untouched)
                .topics(topic)
                .kafkaProperty("bootstrap.servers", "no-such-host.invalid:9092")
                .deserializers(
                        new org.apache.kafka.common.serialization.StringDeserializer(),
                        new org.apache.kafka.common.serialization.StringDeserializer())
                .build();
        toClose.add(unresolvable);
        assertThatThrownBy(unresolvable::start)
                .isInstanceOf(org.apache.kafka.common.KafkaException.class)
                .rootCause()
                .hasMessageContaining("bootstrap.servers");
        assertThat(zk.curator().checkExists().forPath(io.groupkeeper.zkprotocol.internal.ZkPaths.group(untouched)))
                .as("the member never reached its group")
                .isNull();

        // Deserializers named by class in the properties (no instances) pass the same check and join.
        CoordinatedConsumer<String, String> good = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group)
                .topics(topic)
                .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                .kafkaProperty("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class)
                .kafkaProperty("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class)
                .build();
        toClose.add(good);
        good.start();
        assertThat(zk.curator().getChildren().forPath(members)).containsExactly(good.memberId());
    }

    @Test
    void aMovingPartitionWaitsUntilTheBusyOwnerPollsAgainThenResumesExactlyWhereItStopped() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        produce(topic, 2, 200);
        CoordinatedConsumer<String, String> a = manual(newKeeper(), group, topic, Duration.ofSeconds(30));
        List<ConsumerRecord<String, String>> batch = pollUntilBothPartitions(a);
        // a is now "processing" its batch and does not poll. b joins: one partition must move to it.
        Deliveries d = new Deliveries();
        ConsumerWorker b = worker("b", newKeeper(), group, d, topic);

        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> b.consumer.assignment().isEmpty());
        assertThat(a.assignment()).hasSize(2);

        a.poll(Duration.ofMillis(100)); // the batch is done; the revocation is served inside this poll
        awaitAssigned(b.consumer, 1);
        TopicPartition moved = b.consumer.assignment().iterator().next();
        long handedOver = batch.stream()
                        .filter(r -> r.partition() == moved.partition())
                        .mapToLong(ConsumerRecord::offset)
                        .max()
                        .orElseThrow()
                + 1;
        produce(topic, 2, 10); // so b has something to read even if a's batch had reached the end
        await().atMost(WAIT).until(() -> !d.all.isEmpty());
        // b starts exactly at a's final commit: nothing a fetched but had not returned is lost, nothing repeated.
        assertThat(d.all.get(0).offset()).isEqualTo(handedOver);
        assertThat(a.assignment()).hasSize(1).doesNotContain(moved);
    }

    @Test
    void aRevocationGivesUpOnAnOwnerThatDoesNotPollWithinTheTimeout() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        produce(topic, 2, 20);
        ListAppender<ILoggingEvent> log = captureWarnings();
        try {
            CoordinatedConsumer<String, String> a = manual(newKeeper(), group, topic, Duration.ofSeconds(1));
            pollUntilBothPartitions(a);
            Deliveries d = new Deliveries();
            ConsumerWorker b = worker("b", newKeeper(), group, d, topic);

            awaitAssigned(b.consumer, 1); // without a polling again
            assertThat(warnings(log))
                    .anyMatch(w -> w.contains("waited 1000 ms for the polling thread")
                            && w.startsWith(group + "/" + a.memberId() + " - "));
            a.poll(Duration.ofMillis(200)); // a comes back and drops what it no longer owns, without an error
            assertThat(a.assignment()).hasSize(1).doesNotContainAnyElementsOf(b.consumer.assignment());
        } finally {
            stopCapture(log);
        }
    }

    /**
     * A revocation served after the member claimed the partition again commits nothing of the earlier claim: a's
     * polling thread is busy past the revocation timeout with positions it has not committed, the partition goes to b,
     * which reads further and leaves (its final commit stored), and a's member claims it again. When a polls, the
     * queued revocation of the first claim is served; its final position (a's first batch, at most 20) was committed
     * under the new claim, over b's 30.
     */
    @Test
    void aRevocationServedLateCommitsNothingUnderTheClaimThatFollowedIt() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        produce(topic, 2, 40); // 0..19 in each partition
        CoordinatedConsumer<String, String> a = consumer(newKeeper(), group, topic)
                .startPosition(StartPosition.earliest())
                .revocationTimeout(Duration.ofSeconds(1))
                .commitInterval(Duration.ofMinutes(10)) // a's positions stay uncommitted (the start, 0, is stored)
                .kafkaProperty("max.poll.records", 5)
                .build();
        toClose.add(a);
        a.start();
        pollUntilBothPartitions(a); // a holds some records of each, and now does not poll
        Deliveries d = new Deliveries();
        ConsumerWorker b = worker("b", newKeeper(), group, d, topic);
        awaitAssigned(b.consumer, 1); // a's revocation gave up waiting for its polling thread
        TopicPartition moved = b.consumer.assignment().iterator().next();
        produce(topic, 2, 20); // 20..29
        await().atMost(WAIT)
                .until(() -> d.all.stream().anyMatch(r -> r.partition() == moved.partition() && r.offset() == 29));
        b.stop(); // graceful: its final commit is stored with the release
        assertThat(storedOffset(group, topic, moved.partition())).hasValue(30);
        String owner = ZkPaths.owner(group, io.groupkeeper.TopicPartition.of(topic, moved.partition()));
        await().atMost(WAIT)
                .until(() -> zk.curator().checkExists().forPath(owner) != null
                        && new String(zk.curator().getData().forPath(owner), java.nio.charset.StandardCharsets.UTF_8)
                                .contains(a.memberId())); // a's member claimed it again; its thread has not heard yet
        produce(topic, 2, 10); // 30..34

        List<ConsumerRecord<String, String>> next = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            a.poll(Duration.ofMillis(100)).forEach(next::add);
            return next.stream().anyMatch(r -> r.partition() == moved.partition());
        });

        assertThat(storedOffset(group, topic, moved.partition()))
                .as("the offset of record b handed over")
                .hasValue(30);
        assertThat(next.stream()
                        .filter(r -> r.partition() == moved.partition())
                        .findFirst()
                        .orElseThrow()
                        .offset())
                .isEqualTo(30);
    }

    @Test
    void aMemberWhoseSessionExpiresDropsItsPartitionsWithoutCommitRejoinsAndNothingIsLost() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        Deliveries d = new Deliveries();
        List<TopicPartition> lostByB = new java.util.concurrent.CopyOnWriteArrayList<>();
        ConsumerWorker a = worker("a", newKeeper(), group, d, topic);
        GroupKeeper keeperB = newKeeper();
        ConsumerWorker b = new ConsumerWorker(
                "b",
                consumer(keeperB, group, topic)
                        .startPosition(StartPosition.earliest())
                        .listener(new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
                            @Override
                            public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {}

                            @Override
                            public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {}

                            @Override
                            public void onPartitionsLost(java.util.Collection<TopicPartition> partitions) {
                                lostByB.addAll(partitions);
                            }
                        })
                        .build(),
                d);
        toClose.add(b);
        b.start();
        awaitAssigned(a.consumer, 1);
        awaitAssigned(b.consumer, 1);
        List<String> produced = new ArrayList<>(produce(topic, 2, 100));
        await().atMost(WAIT).until(() -> d.all.size() >= 100);

        expireSession((io.groupkeeper.zookeeper.ZooKeeperStore) keeperB.store());

        await().atMost(WAIT).until(() -> !lostByB.isEmpty());
        produced.addAll(produce(topic, 2, 100));
        // b re-registers with a new session and the group converges again.
        await().atMost(WAIT)
                .until(() -> a.consumer.assignment().size() == 1
                        && b.consumer.assignment().size() == 1);
        produced.addAll(produce(topic, 2, 100));
        await().atMost(WAIT).until(() -> new java.util.HashSet<>(d.values()).containsAll(produced));
        assertThat(a.failure()).isNull();
        assertThat(b.failure()).isNull();
    }

    /** Expires a client's session on the server, as a long network partition would (the client then reconnects). */
    private static void expireSession(io.groupkeeper.zookeeper.ZooKeeperStore store) throws Exception {
        org.apache.zookeeper.ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
        org.apache.zookeeper.ZooKeeper imposter = new org.apache.zookeeper.ZooKeeper(
                servers.zkConnectString(), 10_000, e -> {}, zk.getSessionId(), zk.getSessionPasswd());
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }

    @Test
    void aStaticMemberIsKnownByItsInstanceIdAndASecondProcessWithTheSameIdIsRefused() {
        String topic = newTopic(1);
        String group = newName("g");
        CoordinatedConsumer<String, String> first =
                consumer(newKeeper(), group, topic).instanceId("billing-7").build();
        toClose.add(first);
        first.start();
        assertThat(first.memberId()).isEqualTo("billing-7");
        // The twin waits for the id to be freed (a crashed predecessor's session expiring) before it gives up: one
        // second here instead of the default 30 s; the waiting itself is StaticMembershipIT's.
        CoordinatedConsumer<String, String> twin = consumer(newKeeper(), group, topic)
                .instanceId("billing-7")
                .memberOptions(m -> m.registrationTimeout(java.time.Duration.ofSeconds(1)))
                .build();
        toClose.add(twin);
        org.assertj.core.api.Assertions.assertThatThrownBy(twin::start)
                .isInstanceOf(io.groupkeeper.spi.MemberIdInUseException.class)
                .hasMessageContaining("billing-7");
        assertThat(twin.assignment()).isEmpty();
    }

    @Test
    void aPartitionIncreaseIsPickedUpAndTheNewPartitionConsumed() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", newKeeper(), group, d, topic);
        ConsumerWorker b = worker("b", newKeeper(), group, d, topic);
        await().atMost(WAIT)
                .until(() ->
                        a.consumer.assignment().size() + b.consumer.assignment().size() == 2);

        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();

        await().atMost(WAIT)
                .until(() ->
                        a.consumer.assignment().size() + b.consumer.assignment().size() == 3);
        List<String> produced = produce(topic, 3, 30);
        await().atMost(WAIT).until(() -> d.all.size() >= 30);
        assertThat(d.values()).containsExactlyInAnyOrderElementsOf(produced);
        assertThat(d.all).anyMatch(x -> x.partition() == 2);
    }

    @Test
    void anOffsetEditedByHandWhileTheGroupRunsIsAdoptedNotOverwritten() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> produced = produce(topic, 1, 10);
        Deliveries d = new Deliveries();
        worker("a", newKeeper(), group, d, topic);
        await().atMost(WAIT).until(() -> d.all.size() == 10);
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 10);

        handEdit(group, topic, 0, 3); // an operator rewinds the group in zkCli

        await().atMost(WAIT).until(() -> d.all.size() == 17);
        assertThat(d.all.subList(10, 17)).extracting(Delivery::offset).containsExactly(3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(d.values().subList(10, 17)).isEqualTo(produced.subList(3, 10));
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 10);
    }

    @Test
    void aMissingTopicIsReportedOnceAndPickedUpWhenItIsCreated() throws Exception {
        String present = newTopic(2);
        String missing = newName("missing");
        String group = newName("g");
        ListAppender<ILoggingEvent> log = captureWarnings(KafkaTopicMetadata.class);
        try {
            Deliveries d = new Deliveries();
            ConsumerWorker a = worker("a", newKeeper(), group, d, present, missing);
            awaitAssigned(a.consumer, 2);
            await().atMost(WAIT).until(() -> a.consumer.missingTopics().equals(Set.of(missing)));
            List<String> produced = produce(present, 2, 20);
            await().atMost(WAIT).until(() -> d.all.size() >= 20);
            assertThat(d.values()).containsExactlyInAnyOrderElementsOf(produced);
            assertThat(warnings(log))
                    .filteredOn(w -> w.contains("topic " + missing + " does not exist"))
                    .hasSize(1);

            servers.kafka().createTopic(missing, 2);

            awaitAssigned(a.consumer, 4);
            await().atMost(WAIT).until(() -> a.consumer.missingTopics().isEmpty());
            List<String> later = produce(missing, 2, 10);
            await().atMost(WAIT).until(() -> d.all.size() >= 30);
            assertThat(d.values()).containsAll(later);
        } finally {
            stopCapture(log, KafkaTopicMetadata.class);
        }
    }

    @Test
    void aDeletedTopicIsDroppedWhileTheOtherTopicKeepsFlowing() throws Exception {
        String keep = newTopic(1);
        String doomed = newTopic(1);
        String group = newName("g");
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", newKeeper(), group, d, keep, doomed);
        awaitAssigned(a.consumer, 2);

        admin.deleteTopics(List.of(doomed)).all().get();

        await().atMost(WAIT).until(() -> a.consumer.assignment().equals(Set.of(new TopicPartition(keep, 0))));
        await().atMost(WAIT).until(() -> a.consumer.missingTopics().contains(doomed));
        List<String> produced = produce(keep, 1, 10);
        await().atMost(WAIT).until(() -> d.all.size() >= 10);
        assertThat(d.values()).containsExactlyElementsOf(produced);
        assertThat(a.failure()).isNull();
    }
}

package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.kafka.ConsumerWorker.Delivery;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The founding story's offset cases: where a new group starts, what an offset outside the log becomes, restarts. */
class OffsetPolicyIT extends KafkaTestSupport {

    private ListAppender<ILoggingEvent> log;

    @BeforeEach
    void captureLog() {
        log = captureWarnings();
    }

    @AfterEach
    void releaseLog() {
        stopCapture(log);
    }

    private ConsumerWorker worker(
            String name, GroupKeeper keeper, CoordinatedConsumer.Builder<String, String> b, Deliveries d) {
        ConsumerWorker w =
                new ConsumerWorker(name, b.listener(d.listenerFor(name)).build(), d);
        toClose.add(w);
        return w.start();
    }

    private List<String> warningsAbout(String text) {
        List<String> out = new ArrayList<>();
        warnings(log).stream().filter(w -> w.contains(text)).forEach(out::add);
        return out;
    }

    // ---------------------------------------------------------------- start policies (no committed offset)

    @Test
    void startEarliestReadsTheWholeLog() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> old = produce(topic, 1, 5);
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        worker("a", k, consumer(k, group, topic).startPosition(StartPosition.earliest()), d);
        await().atMost(WAIT).until(() -> d.all.size() == 5);
        assertThat(d.values()).isEqualTo(old);
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 5);
    }

    @Test
    void startLatestIsTheDefaultAndTheResolvedStartIsStoredAtOnce() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 5);
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", k, consumer(k, group, topic), d);
        awaitAssigned(a.consumer, 1);
        // Stored before anything is consumed: a successor after a crash would not skip to a later "latest".
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 5);
        List<String> fresh = produce(topic, 1, 3);
        await().atMost(WAIT).until(() -> d.all.size() >= 3);
        assertThat(d.values()).isEqualTo(fresh);
    }

    @Test
    void anHeirOfANeverCommittedPartitionStartsWhereTheFirstOwnerStartedAfterItsCrash() throws Exception {
        // Issue 34 (simulator seed 81345): the first owner starts at the log end, processes records and dies before
        // its first commit; the heir must find the group's start position stored (repeating those records), not
        // skip to the log end of its own start.
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 5); // the log ends at 5: the group's "latest"
        Deliveries d = new Deliveries();
        GroupKeeper crashingKeeper = newKeeper();
        ConsumerWorker a = worker(
                "a",
                crashingKeeper,
                consumer(crashingKeeper, group, topic).commitInterval(Duration.ofHours(1)),
                d); // no periodic commit before the crash
        awaitAssigned(a.consumer, 1);
        List<String> seenByA = produce(topic, 1, 3);
        await().atMost(WAIT).until(() -> d.of("a").size() == 3);
        a.halt();
        d.forget("a");
        ((ZooKeeperStore) crashingKeeper.store()).close(); // its session ends without a goodbye
        List<String> fresh = new ArrayList<>(seenByA);
        fresh.addAll(produce(topic, 1, 2));

        GroupKeeper k = newKeeper();
        ConsumerWorker b = worker("b", k, consumer(k, group, topic), d);
        awaitAssigned(b.consumer, 1);
        await().atMost(WAIT).until(() -> d.of("b").size() >= fresh.size());
        List<Delivery> heir = d.of("b");
        assertThat(heir.get(0).offset()).isEqualTo(5);
        assertThat(heir.stream().map(Delivery::value).toList()).isEqualTo(fresh);
    }

    @Test
    void anOffsetNodeDeletedUnderARunningOwnerIsAFreshStartStoredAtOnce() throws Exception {
        // Issue 34 (simulator seeds 12740, 63289): an operator deletes the offset node of a partition its owner is
        // consuming. The owner adopts the deletion (the start policy again: latest, the log end now) and must store
        // that start at once, as after a first claim: if it kept it only in memory and its leave's hand-over lost
        // the race to the heir, the heir would start at a later log end and skip what came in between.
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 5);
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", k, consumer(k, group, topic).commitInterval(Duration.ofHours(1)), d);
        awaitAssigned(a.consumer, 1);
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 5);
        produce(topic, 1, 3);
        await().atMost(WAIT).until(() -> d.of("a").size() == 3);
        assertThat(storedOffset(group, topic, 0)).hasValue(5); // no periodic commit within the hour

        String node = ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(topic, 0));
        zk.curator().delete().forPath(node); // the operator, in zkCli: delete .../offsets/<topic>/0
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 8);
        List<String> fresh = produce(topic, 1, 2);
        await().atMost(WAIT).until(() -> d.of("a").size() == 5);
        assertThat(d.of("a").subList(3, 5)).extracting(Delivery::value).isEqualTo(fresh);
    }

    @Test
    void offsetsDeletedByTheAdminAndFoundByACommitStartAfreshFromTheStartPosition() throws Exception {
        // Issue 44, A5 (simulator seed 1002030): the owner learns of the admin's `offsets delete` from its own commit
        // (answered ADOPTED, no offset) before its watch on the offset node is served. The same poll resolved and
        // stored the start position (earliest: 0) while the KafkaConsumer still fetched from the old position: the
        // poll handed out records after 15 as if they followed 0, and 0..14 were never processed again. The member's
        // ZooKeeper event thread is held while the delete lands and the commit runs, so the commit finds it first.
        String topic = newTopic(1);
        String group = newName("g");
        List<String> records = produce(topic, 1, 10);
        GroupKeeper k = newKeeper();
        CoordinatedConsumer<String, String> c = consumer(k, group, topic)
                .startPosition(StartPosition.earliest())
                .commitInterval(Duration.ofHours(1))
                .build();
        toClose.add(c);
        c.start();
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() == 10;
        });
        c.commitSync();
        assertThat(storedOffset(group, topic, 0)).hasValue(10);
        records.addAll(produce(topic, 1, 5));
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() == 15;
        });

        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        org.apache.curator.framework.CuratorFramework member = ((ZooKeeperStore) k.store()).curator();
        String gate = "/" + newName("gate");
        member.create().forPath(gate);
        member.getData()
                .usingWatcher((org.apache.zookeeper.Watcher) event -> {
                    held.countDown();
                    try {
                        release.await(
                                WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS); // holds the event thread
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })
                .forPath(gate);
        List<ConsumerRecord<String, String>> after = new ArrayList<>();
        try (io.groupkeeper.zkprotocol.admin.GroupAdmin groupAdmin =
                io.groupkeeper.zookeeper.admin.ZooKeeperAdmin.builder()
                        .store(zk)
                        .build()) {
            member.setData().forPath(gate, new byte[] {1});
            assertThat(held.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            groupAdmin.deleteOffsets(group, topic, true); // the owner is live: forced, it adopts "no offset"
            c.commitSync(); // 15 over 10: refused, the deletion adopted
        } finally {
            release.countDown();
        }
        member.delete().forPath(gate);
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(after::add);
            return after.size() >= 15;
        });
        assertThat(after)
                .extracting(ConsumerRecord::offset)
                .as("a fresh start at the log start")
                .startsWith(0L, 1L, 2L);
        assertThat(after.subList(0, 15)).extracting(ConsumerRecord::value).isEqualTo(records);
        c.commitSync();
        assertThat(storedOffset(group, topic, 0)).hasValue(15);
    }

    @Test
    void startAtATimestampBeginsWithTheFirstRecordAtOrAfterIt() {
        String topic = newTopic(1);
        String group = newName("g");
        long t0 = System.currentTimeMillis() - 60_000;
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            values.add(produceAt(topic, 0, t0 + i * 1000L));
        }
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        worker(
                "a",
                k,
                consumer(k, group, topic).startPosition(StartPosition.timestamp(Instant.ofEpochMilli(t0 + 5000))),
                d);
        await().atMost(WAIT).until(() -> d.all.size() >= 5);
        assertThat(d.values()).isEqualTo(values.subList(5, 10));
        assertThat(d.all.get(0).offset()).isEqualTo(5);
    }

    // ---------------------------------------------------------------- out-of-range policies

    @Test
    void aStoredOffsetAboveTheLogEndWithEarliestRestartsAtTheLogStartAndStoresTheCorrection() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> records = produce(topic, 1, 4); // the log ends at 4
        handEdit(group, topic, 0, 6); // the story: 6 stored when the log ended at 4
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        worker("a", k, consumer(k, group, topic).outOfRange(OutOfRangePolicy.EARLIEST), d);

        await().atMost(WAIT).until(() -> d.all.size() >= 4);
        assertThat(d.values()).isEqualTo(records);
        List<String> warned = warningsAbout("offset 6 is above the log end 4");
        assertThat(warned).hasSize(1);
        assertThat(warned.get(0))
                .contains(topic + ":0", "outOfRange=earliest", "corrected to 0", "stored offset was 6");
        assertThat(namesGroupAndMember(warned.get(0), group)).as(warned.get(0)).isTrue(); // the polling thread's line
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 4);
    }

    @Test
    void aStoredOffsetFarAboveTheLogEndWithLatestContinuesAtTheEndAndStoresIt() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 4);
        handEdit(group, topic, 0, 7000);
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        worker("a", k, consumer(k, group, topic).outOfRange(OutOfRangePolicy.LATEST), d);

        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).orElse(-1) == 4);
        // The warning reports the stored correction: logged a moment after ZooKeeper has it.
        await().atMost(WAIT)
                .until(() ->
                        !warningsAbout("offset 7000 is above the log end 4").isEmpty());
        assertThat(warningsAbout("offset 7000 is above the log end 4"))
                .singleElement()
                .asString()
                .contains("outOfRange=latest", "corrected to 4", "stored offset was 7000");
        List<String> fresh = produce(topic, 1, 2);
        await().atMost(WAIT).until(() -> d.all.size() >= 2);
        assertThat(d.values()).isEqualTo(fresh);
        assertThat(d.all).extracting(Delivery::offset).containsExactly(4L, 5L);
    }

    @Test
    void withFailThePartitionStopsOnceWithAClearErrorAndAHandEditResumesIt() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        List<String> records = produce(topic, 2, 8); // 4 per partition
        handEdit(group, topic, 0, 7000);
        handEdit(group, topic, 1, 0);
        CoordinatedConsumer<String, String> c = consumer(newKeeper(), group, topic)
                .outOfRange(OutOfRangePolicy.FAIL)
                .build();
        toClose.add(c);
        c.start();

        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        List<OffsetOutOfRangePolicyException> errors = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            try {
                c.poll(Duration.ofMillis(100)).forEach(got::add);
            } catch (OffsetOutOfRangePolicyException e) {
                errors.add(e);
            }
            return errors.size() == 1 && got.size() == 4;
        });
        OffsetOutOfRangePolicyException e = errors.get(0);
        assertThat(e.partition()).isEqualTo(new TopicPartition(topic, 0));
        assertThat(e.groupId()).isEqualTo(group);
        assertThat(e.offset()).isEqualTo(7000);
        assertThat(e.logStartOffset()).isZero();
        assertThat(e.logEndOffset()).isEqualTo(4);
        assertThat(e.getMessage()).contains("group " + group, topic + ":0", "7000", "above the log end 4");
        assertThat(got).allMatch(r -> r.partition() == 1); // the other partition kept flowing

        // No crash loop: further polls are quiet, the partition stays owned and stopped, the stored offset untouched.
        await().during(Duration.ofMillis(700))
                .atMost(Duration.ofSeconds(2))
                .pollInSameThread()
                .until(() -> {
                    c.poll(Duration.ofMillis(50));
                    return true;
                });
        assertThat(c.assignment()).contains(new TopicPartition(topic, 0));
        assertThat(storedOffset(group, topic, 0)).hasValue(7000);

        handEdit(group, topic, 0, 2); // the operator fixes it
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() == 6;
        });
        assertThat(got.subList(4, 6))
                .extracting(ConsumerRecord::partition, ConsumerRecord::offset)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 2L), org.assertj.core.groups.Tuple.tuple(0, 3L));
        assertThat(records).contains(got.get(4).value(), got.get(5).value());
    }

    @Test
    void aStoredOffsetBelowTheLogStartAfterRetentionFollowsThePolicy() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> records = produce(topic, 1, 10);
        admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(6)))
                .all()
                .get();
        handEdit(group, topic, 0, 2);
        GroupKeeper k = newKeeper();
        Deliveries d = new Deliveries();
        worker("a", k, consumer(k, group, topic).outOfRange(OutOfRangePolicy.EARLIEST), d);

        await().atMost(WAIT).until(() -> d.all.size() >= 4);
        assertThat(d.values()).isEqualTo(records.subList(6, 10));
        assertThat(warningsAbout("offset 2 is below the log start 6"))
                .singleElement()
                .asString()
                .contains("corrected to 6");
    }

    @Test
    void withFailAnOffsetEditedPastTheEndOfARunningGroupStopsOnlyThatPartition() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 3);
        CoordinatedConsumer<String, String> c = consumer(newKeeper(), group, topic)
                .startPosition(StartPosition.earliest())
                .outOfRange(OutOfRangePolicy.FAIL)
                .build();
        toClose.add(c);
        c.start();
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() == 3;
        });

        handEdit(group, topic, 0, 50); // adopted (I4), then found outside the log
        assertThatThrownBy(() -> await().atMost(WAIT).pollInSameThread().until(() -> {
                    c.poll(Duration.ofMillis(100));
                    return false;
                }))
                .isInstanceOf(OffsetOutOfRangePolicyException.class)
                .hasMessageContaining("offset 50 of " + topic + ":0");
        assertThat(storedOffset(group, topic, 0)).hasValue(50);
        assertThat(c.assignment()).containsExactly(new TopicPartition(topic, 0));
    }

    // ---------------------------------------------------------------- I3

    @Test
    void offsetsSurviveAFullRestartOfTheGroup() throws Exception {
        String topic = newTopic(3);
        String group = newName("g");
        Deliveries first = new Deliveries();
        GroupKeeper k1 = newKeeper();
        GroupKeeper k2 = newKeeper();
        ConsumerWorker a = worker("a", k1, consumer(k1, group, topic).startPosition(StartPosition.earliest()), first);
        ConsumerWorker b = worker("b", k2, consumer(k2, group, topic).startPosition(StartPosition.earliest()), first);
        List<String> before = produce(topic, 3, 90);
        await().atMost(WAIT).until(() -> first.all.size() >= 90);
        a.stop();
        b.stop();
        for (int p = 0; p < 3; p++) {
            assertThat(storedOffset(group, topic, p)).hasValue(30);
        }

        List<String> whileDown = produce(topic, 3, 30);
        Deliveries second = new Deliveries();
        GroupKeeper k3 = newKeeper();
        GroupKeeper k4 = newKeeper();
        worker("c", k3, consumer(k3, group, topic).startPosition(StartPosition.earliest()), second);
        worker("d", k4, consumer(k4, group, topic).startPosition(StartPosition.earliest()), second);
        await().atMost(WAIT).until(() -> second.all.size() >= 30);
        assertThat(first.values()).containsExactlyInAnyOrderElementsOf(before);
        assertThat(second.values()).containsExactlyInAnyOrderElementsOf(whileDown);
    }
}

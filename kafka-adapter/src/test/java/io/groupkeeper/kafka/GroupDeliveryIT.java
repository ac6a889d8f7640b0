package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.kafka.ConsumerWorker.Delivery;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Records of a real Kafka topic under ZooKeeper coordination: split within a group, copied across groups. */
class GroupDeliveryIT extends KafkaTestSupport {

    private ConsumerWorker worker(String name, GroupKeeper keeper, String group, String topic, Deliveries d) {
        ConsumerWorker w = new ConsumerWorker(
                name,
                consumer(keeper, group, topic)
                        .startPosition(StartPosition.earliest())
                        .listener(d.listenerFor(name))
                        .build(),
                d);
        toClose.add(w);
        return w.start();
    }

    @Test
    void everyRecordIsConsumedByExactlyOneMemberWhileMembershipIsStable() {
        String topic = newTopic(3);
        String group = newName("g");
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", newKeeper(), group, topic, d);
        ConsumerWorker b = worker("b", newKeeper(), group, topic, d);
        ConsumerWorker c = worker("c", newKeeper(), group, topic, d);
        await().atMost(WAIT)
                .until(() -> a.consumer.assignment().size() == 1
                        && b.consumer.assignment().size() == 1
                        && c.consumer.assignment().size() == 1);

        List<String> produced = produce(topic, 3, 300);

        await().atMost(WAIT).until(() -> d.all.size() >= produced.size());
        assertThat(d.values()).containsExactlyInAnyOrderElementsOf(produced);
        assertThat(d.duplicates()).isEmpty();
        // Each member got exactly the records of the partition it owns.
        for (ConsumerWorker w : List.of(a, b, c)) {
            int p = w.consumer.assignment().iterator().next().partition();
            assertThat(d.of(w.name)).hasSize(100).allMatch(x -> x.partition() == p);
        }
        assertThat(d.overlaps).isEmpty();
    }

    /**
     * Issue 15's scenario, as an operator meets it: on a running group, every offset node is overwritten with a typo in
     * zkCli while the members have something to commit; a new member joins; the operator repairs the nodes. Every
     * record produced after the repair is consumed, and nothing twice. (Before the fix the members forgot the
     * partitions whose commit met the typo without releasing their owner nodes, and the partitions that moved to the
     * newcomer stayed unconsumed until the old members' processes ended.)
     */
    @Test
    void typosOnEveryOffsetNodeAJoinAndTheRepairThenEveryNewRecordIsConsumed() throws Exception {
        String topic = newTopic(3);
        String group = newName("typo");
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", newKeeper(), group, topic, d);
        ConsumerWorker b = worker("b", newKeeper(), group, topic, d);
        await().atMost(WAIT)
                .until(() ->
                        a.consumer.assignment().size() + b.consumer.assignment().size() == 3);
        List<String> before = produce(topic, 3, 30);
        await().atMost(WAIT).until(() -> d.all.size() >= before.size());
        for (int p = 0; p < 3; p++) {
            typo(group, topic, p);
        }
        produce(topic, 3, 30); // the members have something to commit: their commits meet the typos
        ConsumerWorker c = worker("c", newKeeper(), group, topic, d);
        Map<Integer, Long> repairedAt = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            long end = admin.listOffsets(
                            Map.of(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .all()
                    .get()
                    .get(new TopicPartition(topic, p))
                    .offset();
            handEdit(group, topic, p, end); // the operator meant: continue from the log end
            repairedAt.put(p, end);
        }
        List<String> after = produce(topic, 3, 90);
        await().atMost(WAIT).untilAsserted(() -> assertThat(d.values()).containsAll(after));
        Set<String> afterSet = new HashSet<>(after);
        assertThat(d.duplicates())
                .as("nothing produced after the repair is consumed twice")
                .noneMatch(afterSet::contains);
        await().atMost(WAIT)
                .until(() -> a.consumer.assignment().size()
                                + b.consumer.assignment().size()
                                + c.consumer.assignment().size()
                        == 3);
        assertThat(c.consumer.assignment()).as("the newcomer got its share").isNotEmpty();
        for (int p = 0; p < 3; p++) {
            int partition = p;
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(storedOffset(group, topic, partition)).hasValue(repairedAt.get(partition) + 30));
        }
        assertThat(d.overlaps).isEmpty();
    }

    private static void typo(String group, String topic, int partition) throws Exception {
        String path = io.groupkeeper.zkprotocol.internal.ZkPaths.offset(
                group, io.groupkeeper.TopicPartition.of(topic, partition));
        zk.curator().setData().forPath(path, "1200O".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void twoGroupsEachGetEveryRecordAndAGracefulLeaveLosesNothing() throws Exception {
        CoreScenario.run(servers.zkConnectString(), servers.bootstrapServers()); // also run on containers
    }

    @Test
    void gracefulLeaveInTheMiddleOfTheStreamLosesNothingAndRepeatsNothing() throws Exception {
        String topic = newTopic(4);
        String group = newName("g");
        Deliveries d = new Deliveries();
        ConsumerWorker a = worker("a", newKeeper(), group, topic, d);
        ConsumerWorker b = worker("b", newKeeper(), group, topic, d);
        awaitAssigned(a.consumer, 2);
        awaitAssigned(b.consumer, 2);

        List<String> produced = new ArrayList<>(produce(topic, 4, 200));
        await().atMost(WAIT).until(() -> !d.of("b").isEmpty());
        // b leaves while records keep coming: its final commit hands over exactly where it stopped.
        Thread producing = new Thread(() -> produced.addAll(produce(topic, 4, 400)));
        producing.start();
        b.stop();
        producing.join();
        awaitAssigned(a.consumer, 4);

        await().atMost(WAIT).until(() -> d.all.size() >= produced.size());
        assertThat(d.duplicates()).isEmpty();
        assertThat(d.values()).containsExactlyInAnyOrderElementsOf(produced);
        assertThat(d.overlaps).isEmpty();
    }

    @Test
    void crashRepeatsOnlyRecordsDeliveredAfterTheLastCommit() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        Deliveries d = new Deliveries();
        GroupKeeper crashingKeeper = newKeeper();
        ConsumerWorker a = worker("a", newKeeper(), group, topic, d);
        ConsumerWorker b = worker("b", crashingKeeper, group, topic, d);
        awaitAssigned(a.consumer, 1);
        awaitAssigned(b.consumer, 1);
        TopicPartition bp = b.consumer.assignment().iterator().next();

        List<String> produced = new ArrayList<>(produce(topic, 2, 400));
        await().atMost(WAIT).until(() -> d.all.size() >= 400);

        // b crashes: it stops polling (its last batch counts as processed but is not committed) and its ZooKeeper
        // session ends without a goodbye, as after kill -9 once the session timed out.
        b.halt();
        d.forget("b");
        long committedByB = storedOffset(group, bp.topic(), bp.partition()).orElse(0);
        long lastSeenByB = d.of("b").stream().mapToLong(Delivery::offset).max().orElseThrow();
        ((ZooKeeperStore) crashingKeeper.store()).close();

        awaitAssigned(a.consumer, 2);
        produced.addAll(produce(topic, 2, 100));
        await().atMost(WAIT).until(() -> new HashSet<>(d.values()).containsAll(produced));

        // No loss; every duplicate is a record of b's partition that b received after its last commit.
        assertThat(new HashSet<>(d.values())).containsExactlyInAnyOrderElementsOf(new HashSet<>(produced));
        Map<String, Delivery> byValue = new HashMap<>();
        d.all.forEach(x -> byValue.putIfAbsent(x.value(), x));
        Set<Long> window = new HashSet<>();
        for (long o = committedByB; o <= lastSeenByB; o++) {
            window.add(o);
        }
        for (String dup : d.duplicates()) {
            Delivery x = byValue.get(dup);
            assertThat(x.partition()).isEqualTo(bp.partition());
            assertThat(window).contains(x.offset());
        }
        // And a resumed exactly at b's last commit.
        long firstByAOnBp = d.of("a").stream()
                .filter(x -> x.partition() == bp.partition())
                .mapToLong(Delivery::offset)
                .min()
                .orElseThrow();
        assertThat(firstByAOnBp).isEqualTo(committedByB);
        assertThat(d.duplicates()).hasSize((int) (lastSeenByB + 1 - committedByB));
    }
}

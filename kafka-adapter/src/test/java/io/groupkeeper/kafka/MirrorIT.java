package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.kafka.internal.OffsetMirror;
import io.groupkeeper.metrics.MicrometerGroupMetrics;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.consumer.group.ConsumerGroupsTool;
import org.apache.kafka.tools.consumer.group.ConsumerGroupsTool.Row;
import org.junit.jupiter.api.Test;

/**
 * The opt-in mirror of committed offsets into Kafka's group offset store, read back with Kafka's own
 * {@code kafka-consumer-groups --describe} on the in-process broker.
 */
class MirrorIT extends KafkaTestSupport {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private GroupKeeper keeperWithMetrics() {
        GroupKeeper keeper = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(servers.zkConnectString())
                        .build())
                .metrics(new MicrometerGroupMetrics(registry))
                .build()
                .start();
        toClose.add(keeper);
        return keeper;
    }

    @Test
    void kafkasOwnToolShowsTheOffsetsCommittedInZooKeeper() throws Exception {
        String topic = newTopic(2);
        String group = newName("mirrored");
        produce(topic, 2, 10); // 5 per partition
        Deliveries d = new Deliveries();
        ConsumerWorker w = new ConsumerWorker(
                "a",
                consumer(keeperWithMetrics(), group, topic)
                        .startPosition(StartPosition.earliest())
                        .mirrorOffsetsToKafka()
                        .listener(d.listenerFor("a"))
                        .build(),
                d);
        toClose.add(w);
        w.start();
        await().atMost(WAIT).until(() -> d.all.size() == 10);

        // While the group runs: the mirror follows the periodic commits.
        await().atMost(WAIT).untilAsserted(() -> {
            ConsumerGroupsTool.Described described = ConsumerGroupsTool.describe(servers.bootstrapServers(), group);
            assertThat(described.rows()).containsOnlyKeys(topic + ":0", topic + ":1");
            assertThat(described.rows().values()).allSatisfy(r -> {
                assertThat(r.currentOffset()).contains(5L);
                assertThat(r.lag()).contains(0L);
            });
        });
        assertThat(storedOffset(group, topic, 0)).isEqualTo(OptionalLong.of(5));
        assertThat(storedOffset(group, topic, 1)).isEqualTo(OptionalLong.of(5));

        // A graceful leave's final commit reaches Kafka too (close waits, bounded, for the mirror).
        produce(topic, 2, 4);
        await().atMost(WAIT).until(() -> d.all.size() == 14);
        w.close();
        Map<String, Row> rows =
                ConsumerGroupsTool.describe(servers.bootstrapServers(), group).rows();
        assertThat(rows.get(topic + ":0").currentOffset()).contains(7L);
        assertThat(rows.get(topic + ":1").currentOffset()).contains(7L);
        assertThat(registry.get("groupkeeper.offsets.mirrored")
                        .tag("group", group)
                        .counter()
                        .count())
                .isPositive();
        assertThat(registry.find("groupkeeper.offsets.mirror.failures").counter())
                .isNull();
    }

    @Test
    void offsetsCanBeMirroredUnderAnotherKafkaGroupName() throws Exception {
        String topic = newTopic(1);
        String group = newName("zkname");
        String kafkaGroup = newName("ops-view");
        produce(topic, 1, 3);
        Deliveries d = new Deliveries();
        ConsumerWorker w = new ConsumerWorker(
                "a",
                consumer(keeperWithMetrics(), group, topic)
                        .startPosition(StartPosition.earliest())
                        .mirrorOffsetsToKafka(kafkaGroup)
                        .build(),
                d);
        toClose.add(w);
        w.start();
        await().atMost(WAIT).until(() -> d.all.size() == 3);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(ConsumerGroupsTool.describe(servers.bootstrapServers(), kafkaGroup)
                                .rows()
                                .get(topic + ":0"))
                        .isNotNull()
                        .satisfies(r -> assertThat(r.currentOffset()).contains(3L)));
        assertThat(ConsumerGroupsTool.describe(servers.bootstrapServers(), group)
                        .exists())
                .isFalse();
    }

    @Test
    void aMirrorKafkaRefusesIsCountedAndWarnedOnceWhileConsumptionGoesOn() throws Exception {
        String topic = newTopic(1);
        String group = newName("refused");
        String busyKafkaGroup = newName("busy");
        // A Kafka group with a live member of its own: Kafka refuses offset changes from outside (UnknownMemberId).
        KafkaConsumer<String, String> kafkaMember = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        servers.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        busyKafkaGroup),
                new StringDeserializer(),
                new StringDeserializer());
        toClose.add(() -> kafkaMember.close(Duration.ofSeconds(5)));
        kafkaMember.subscribe(List.of(newTopic(1)));
        await().atMost(WAIT).pollInSameThread().until(() -> {
            kafkaMember.poll(Duration.ofMillis(100));
            return !kafkaMember.assignment().isEmpty();
        });

        ListAppender<ILoggingEvent> log = captureWarnings(OffsetMirror.class);
        try {
            Deliveries d = new Deliveries();
            ConsumerWorker w = new ConsumerWorker(
                    "a",
                    consumer(keeperWithMetrics(), group, topic)
                            .startPosition(StartPosition.earliest())
                            .mirrorOffsetsToKafka(busyKafkaGroup)
                            .build(),
                    d);
            toClose.add(w);
            w.start();
            for (int round = 1; round <= 3; round++) { // three commits, three refused mirror writes
                produce(topic, 1, 2);
                int expected = 2 * round;
                await().atMost(WAIT).until(() -> d.all.size() == expected);
                await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).equals(OptionalLong.of(expected)));
                int commits = round;
                await().atMost(WAIT).until(() -> failures(group) >= commits);
            }
            assertThat(warnings(log))
                    .hasSize(1)
                    .first()
                    .asString()
                    .contains("Kafka group " + busyKafkaGroup, "offsets in ZooKeeper are unaffected")
                    .matches(
                            line -> namesGroupAndMember(line, group),
                            "the mirror thread's line names group and member");
            assertThat(registry.find("groupkeeper.offsets.mirrored")
                            .tag("group", group)
                            .counter())
                    .isNull();
        } finally {
            stopCapture(log, OffsetMirror.class);
        }
    }

    private double failures(String group) {
        return Optional.ofNullable(registry.find("groupkeeper.offsets.mirror.failures")
                        .tag("group", group)
                        .counter())
                .map(Counter::count)
                .orElse(0.0);
    }

    @Test
    void theMirrorIsOffUnlessAskedFor() throws Exception {
        String topic = newTopic(1);
        String group = newName("plain");
        produce(topic, 1, 2);
        Deliveries d = new Deliveries();
        ConsumerWorker w = new ConsumerWorker(
                "a",
                consumer(keeperWithMetrics(), group, topic)
                        .startPosition(StartPosition.earliest())
                        .build(),
                d);
        toClose.add(w);
        w.start();
        await().atMost(WAIT).until(() -> storedOffset(group, topic, 0).equals(OptionalLong.of(2)));
        w.close();
        assertThat(ConsumerGroupsTool.describe(servers.bootstrapServers(), group)
                        .exists())
                .isFalse();
    }
}

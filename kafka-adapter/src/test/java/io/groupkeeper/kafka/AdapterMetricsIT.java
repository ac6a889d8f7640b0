package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.ConsumerWorker.Deliveries;
import io.groupkeeper.metrics.MicrometerGroupMetrics;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The adapter's meters (lag, corrections) and the log ends it stores with commits, on real ZooKeeper + Kafka. */
class AdapterMetricsIT extends KafkaTestSupport {

    @Test
    void lagGaugesCorrectionsAndLogEndsInTheCommitHistory() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        produce(topic, 1, 4); // the log ends at 4
        handEdit(group, topic, 0, 6); // 6 stored: out of range
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(servers.zkConnectString())
                .build();
        GroupKeeper keeper = GroupKeeper.builder()
                .store(store)
                .metrics(new MicrometerGroupMetrics(registry))
                .build()
                .start();
        toClose.add(keeper);
        Deliveries d = new Deliveries();
        ConsumerWorker w = new ConsumerWorker(
                "a",
                consumer(keeper, group, topic)
                        .outOfRange(OutOfRangePolicy.EARLIEST)
                        .listener(d.listenerFor("a"))
                        .build(),
                d);
        toClose.add(w);
        w.start();

        await().atMost(WAIT).until(() -> d.all.size() >= 4);
        assertThat(registry.get("groupkeeper.offset.corrections")
                        .tags("group", group, "policy", "earliest")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(registry.get("groupkeeper.partition.lag")
                                .tags("group", group, "topic", topic, "partition", "0")
                                .gauge()
                                .value())
                        .isEqualTo(0.0));

        produce(topic, 1, 6); // the log now ends at 10
        await().atMost(WAIT).until(() -> d.all.size() >= 10);
        await().atMost(WAIT).untilAsserted(() -> {
            OffsetSnapshot stored =
                    GroupStores.of(store, group).readOffset(new io.groupkeeper.TopicPartition(topic, 0), null);
            assertThat(stored.offset()).hasValue(10);
            assertThat(stored.history())
                    .last()
                    .satisfies(s -> assertThat(s.logEnd()).isEqualTo(OptionalLong.of(10)));
        });

        w.close();
        assertThat(registry.find("groupkeeper.partition.lag")
                        .tags("group", group)
                        .gauge())
                .isNull();
    }
}

package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.embedded.ThreeRackKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On three real brokers in three racks: the replicas' racks as the leader reads them, and a reassignment that moves a
 * replica to another rack fires the leader's armed hook (KIP-881: rebalance when partition racks change); the leader's
 * next runs read the new racks.
 */
class RackChangeIT {

    private static ThreeRackKafka cluster;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        cluster = ThreeRackKafka.start();
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aReplicaMovedToAnotherRackFiresTheHookAndTheNewRackIsRead() throws Exception {
        String topic = "moving";
        // partition 0 on broker 1 (az-a), partition 1 on broker 3 (az-c)
        admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1), 1, List.of(3)))))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(
                Map.of("bootstrap.servers", cluster.bootstrapServers()),
                Duration.ofMillis(200),
                Duration.ofSeconds(10),
                "rack change test")) {
            AtomicBoolean changed = new AtomicBoolean();
            assertThat(md.partitionCounts(List.of(topic), () -> changed.set(true)))
                    .isEqualTo(Map.of(topic, 2));
            assertThat(md.partitionRacks(List.of(topic)))
                    .isEqualTo(PartitionRacks.of(Map.of(
                            new TopicPartition(topic, 0),
                            Set.of("az-a"),
                            new TopicPartition(topic, 1),
                            Set.of("az-c"))));

            admin.alterPartitionReassignments(Map.of(
                            new org.apache.kafka.common.TopicPartition(topic, 0),
                            Optional.of(new NewPartitionReassignment(List.of(2)))))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            // The first change seen may be mid-reassignment (replicas on both brokers): the hook fires either way.
            await().atMost(Duration.ofSeconds(30)).untilTrue(changed);
            // As the leader does on each run: re-arm with the counts, read the racks; they settle on the new rack.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(md.partitionCounts(List.of(topic), () -> {})).isEqualTo(Map.of(topic, 2));
                assertThat(md.partitionRacks(List.of(topic)).racksOf(topic, 0)).containsExactly("az-b");
            });
        }
    }
}

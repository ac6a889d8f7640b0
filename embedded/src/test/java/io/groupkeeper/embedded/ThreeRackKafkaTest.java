package io.groupkeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

class ThreeRackKafkaTest {

    @Test
    void threeBrokersInOneClusterEachInItsRackHoldTheReplicasTheyAreGiven() throws Exception {
        try (ThreeRackKafka kafka = ThreeRackKafka.start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            assertThat(kafka.bootstrapServers().split(",")).hasSize(3);
            Map<Integer, String> racks = new TreeMap<>();
            for (Node n : admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)) {
                racks.put(n.id(), n.rack());
            }
            assertThat(racks).isEqualTo(Map.of(1, "az-a", 2, "az-b", 3, "az-c"));

            admin.createTopics(List.of(new NewTopic("placed", Map.of(0, List.of(2, 3), 1, List.of(3, 1)))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            List<TopicPartitionInfo> partitions = admin.describeTopics(List.of("placed"))
                    .allTopicNames()
                    .get(10, TimeUnit.SECONDS)
                    .get("placed")
                    .partitions();
            assertThat(partitions.get(0).replicas()).extracting(Node::rack).containsExactly("az-b", "az-c");
            assertThat(partitions.get(1).replicas()).extracting(Node::rack).containsExactly("az-c", "az-a");
        }
    }
}

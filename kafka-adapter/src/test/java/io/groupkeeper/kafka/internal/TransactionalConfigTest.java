package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The transactional mode's names in Kafka: the producers' transactional ids and the group receiving the offsets. */
class TransactionalConfigTest {

    private final TransactionalConfig config =
            new TransactionalConfig(new StringSerializer(), new StringSerializer(), "groupkeeper/", Map.of());

    @Test
    void theDefaultNamespaceKeepsTheIdsAndTheKafkaGroupOfDeploymentsBeforeNamespacesCounted() {
        assertThat(config.transactionalId("groupkeeper", "orders", "in", 3)).isEqualTo("groupkeeper/orders/in/3");
        assertThat(TransactionalConfig.kafkaGroup("groupkeeper", "orders")).isEqualTo("orders");
    }

    @Test
    void twoNamespacesWithTheSameGroupGetDifferentIdsAndKafkaGroups() {
        String a = config.transactionalId("tenant-a", "orders", "in", 3);
        String b = config.transactionalId("tenant-b", "orders", "in", 3);
        assertThat(a).isEqualTo("groupkeeper/tenant-a/orders/in/3");
        assertThat(b).isNotEqualTo(a).isNotEqualTo(config.transactionalId("groupkeeper", "orders", "in", 3));
        assertThat(TransactionalConfig.kafkaGroup("tenant-a", "orders"))
                .isEqualTo("tenant-a/orders")
                .isNotEqualTo(TransactionalConfig.kafkaGroup("tenant-b", "orders"))
                .isNotEqualTo(TransactionalConfig.kafkaGroup("groupkeeper", "orders"));
        // A nested namespace: read from the right (partition, topic, group: no '/' in them), the rest is the namespace.
        assertThat(config.transactionalId("apps/tenant-a", "orders", "in", 3))
                .isEqualTo("groupkeeper/apps/tenant-a/orders/in/3")
                .isNotEqualTo(config.transactionalId("apps", "tenant-a", "orders", 3));
    }
}

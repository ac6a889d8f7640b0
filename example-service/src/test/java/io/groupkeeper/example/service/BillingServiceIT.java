package io.groupkeeper.example.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedServers;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The example service as configured (application.properties) bills orders and dead-letters a bad amount. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
class BillingServiceIT {

    static EmbeddedServers servers;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        servers = EmbeddedServers.startDefault();
        servers.kafka().createTopic("orders", 2);
        registry.add("groupkeeper.zookeeper.connect", servers::zkConnectString);
        registry.add("spring.kafka.bootstrap-servers", servers::bootstrapServers);
        registry.add("spring.kafka.producer.acks", () -> "1");
        registry.add("spring.kafka.producer.properties.enable.idempotence", () -> "false");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Autowired
    BillingService.Billing billing;

    @Autowired
    HealthContributorRegistry health;

    @Test
    void billsOrdersAndDeadLettersABadAmount() throws Exception {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", servers.bootstrapServers(), "acks", "1", "enable.idempotence", false),
                new StringSerializer(),
                new StringSerializer())) {
            p.send(new ProducerRecord<>("orders", 0, "o1", "order-1-1250")).get();
            p.send(new ProducerRecord<>("orders", 0, "o2", "twelve")).get();
            p.send(new ProducerRecord<>("orders", 0, "o3", "300")).get();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> billing.billed() == 2);
        assertThat(billing.cents).hasValue(1550);
        HealthIndicator groupkeeper = (HealthIndicator) health.getContributor("groupkeeper");
        assertThat(groupkeeper.health().getStatus()).isEqualTo(Status.UP);
    }
}

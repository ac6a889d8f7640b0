package com.example.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.spring.GroupKeeperContainers;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The installed starter, in a project that imports groupkeeper-bom and Spring Boot's BOM (4.0.7 by default; .ci/run
 * builds it again on 4.1.2): the context starts, and listeners written as for Spring Kafka consume.
 */
@SpringBootTest
class StarterConsumerIT {

    static EmbeddedServers servers;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        servers = EmbeddedServers.startDefault();
        servers.kafka().createTopic("orders", 2);
        servers.kafka().createTopic("refunds", 1);
        registry.add("groupkeeper.zookeeper.connect", servers::zkConnectString);
        registry.add("spring.kafka.bootstrap-servers", servers::bootstrapServers);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Autowired
    ConsumerApp.Orders orders;
    @Autowired
    ConsumerApp.Refunds refunds;
    @Autowired
    GroupKeeperContainers containers;
    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @Test
    void theContextStartsWithTheBomsKafkaClientAndSpringKafkaStyleListenersConsume() throws Exception {
        java.util.Properties kafka = new java.util.Properties();
        try (var in = org.apache.kafka.clients.consumer.KafkaConsumer.class.getResourceAsStream(
                "/kafka/kafka-version.properties")) {
            kafka.load(in);
        }
        assertThat(kafka.getProperty("version")).isEqualTo("4.4.0"); // groupkeeper-bom's, not Boot's 4.1.2
        assertThat(containers.allRunning()).isTrue();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers",
                servers.bootstrapServers(), "acks", "1", "enable.idempotence", false), new StringSerializer(),
                new StringSerializer())) {
            p.send(new ProducerRecord<>("orders", 0, "k", "{\"id\":\"order-1\",\"amountCents\":1250}")).get();
            for (int i = 2; i <= 40; i++) { // key ordering on 64 workers: four keys, each key's orders in offset order
                p.send(new ProducerRecord<>("orders", 1, "c" + (i % 4), "{\"id\":\"order-" + i + "\",\"amountCents\":" + i
                        + "}")).get();
            }
            p.send(new ProducerRecord<>("refunds", 0, "k", "{\"id\":\"refund-1\",\"amountCents\":10}")).get();
            p.send(new ProducerRecord<>("refunds", 0, "k", "{\"id\":\"refund-2\",\"amountCents\":20}")).get();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> orders.received.contains("order-1/1250@0:0"));
        await().atMost(Duration.ofSeconds(60)).until(() -> orders.received.size() == 40);
        for (int key = 0; key < 4; key++) {
            int k = key;
            assertThat(orders.received.stream().filter(r -> r.contains("@1:"))
                    .map(r -> Integer.parseInt(r.substring("order-".length(), r.indexOf('/'))))
                    .filter(n -> n % 4 == k).toList()).as("key c" + k + " in offset order").isSorted()
                    .hasSize(k == 1 ? 9 : 10);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> refunds.received.size() == 2);
        assertThat(refunds.received).containsExactly("refund-1@0", "refund-2@1");
        // default ids: <bean name>.<method name>, stable when listeners are added or moved
        assertThat(containers.containers().keySet()).containsExactlyInAnyOrder("consumerApp.Orders.onOrder",
                "consumerApp.Refunds.onRefunds");
        // Kafka's client metrics of the workers, with Boot's Micrometer (issue 36 item 3)
        await().atMost(Duration.ofSeconds(60)).until(() -> meters.find(
                "kafka.consumer.fetch.manager.records.consumed.total")
                .tag("spring.id", id -> id.matches("groupkeeper/consumerApp\\.(Orders\\.onOrder|Refunds\\.onRefunds)/starter-consumer/.+"))
                .functionCounters().stream().mapToDouble(c -> c.count()).sum() >= 3);
    }
}

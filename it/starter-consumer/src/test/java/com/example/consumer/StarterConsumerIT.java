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

/** The installed starter, in a project that imports groupkeeper-bom and Spring Boot's BOM: the context starts and consumes. */
@SpringBootTest
class StarterConsumerIT {

    static EmbeddedServers servers;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        servers = EmbeddedServers.startDefault();
        servers.kafka().createTopic("orders", 2);
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
    GroupKeeperContainers containers;

    @Test
    void theContextStartsWithTheBomsKafkaClientAndConsumes() throws Exception {
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
            p.send(new ProducerRecord<>("orders", 0, "k", "order-1")).get();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> orders.received.contains("order-1"));
    }
}

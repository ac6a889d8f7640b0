package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.clients.ClientsApp;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Issue 36: groupkeeper's Kafka client meters and Spring Kafka's own ({@code KafkaTemplate}'s producer,
 * {@code @KafkaListener}'s consumer) live side by side in one registry. Micrometer keeps one set of tag keys per meter
 * name and drops the meters with fewer tags; groupkeeper's clients were tagged {@code listener} and {@code group}
 * beside Kafka's, Spring's {@code spring.id}, so Spring's {@code kafka.*} meters went missing.
 */
@SpringBootTest(classes = ClientsApp.class)
class SpringKafkaClientMetricsIT {

    static final String GROUP = SharedServers.name("clients");
    static final String IN = SharedServers.topic(1);
    static final String OUT = SharedServers.topic(1);
    static final List<String> VALUES = List.of("a", "b", "c");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Map.ofEntries(
                        Map.entry(
                                "groupkeeper.zookeeper.connect",
                                SharedServers.get().zkConnectString()),
                        Map.entry(
                                "spring.kafka.bootstrap-servers",
                                SharedServers.get().bootstrapServers()),
                        Map.entry("spring.kafka.consumer.auto-offset-reset", "earliest"),
                        Map.entry("groupkeeper.listener.start-position", "earliest"),
                        Map.entry("groupkeeper.listener.commit-interval", "200ms"),
                        Map.entry("groupkeeper.listener.stop-deadline", "5s"),
                        Map.entry("app.group", GROUP),
                        Map.entry("app.in", IN),
                        Map.entry("app.out", OUT))
                .forEach((k, v) -> registry.add(k, () -> v));
    }

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    ClientsApp.Forwarder forwarder;

    @Autowired
    ClientsApp.SpringSide springSide;

    @Autowired
    MeterRegistry registry;

    @Test
    void springKafkasClientMetersAndGroupkeepersAreBothInTheRegistryAndMove() throws Exception {
        for (String v : VALUES) {
            template.send(IN, 0, "k-" + v, v).get();
        }
        await().atMost(WAIT).until(() -> forwarder.seen.size() == 3 && springSide.seen.size() == 3);

        String gk = "groupkeeper/forward/" + GROUP + "/";
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(total("kafka.producer.record.send.total", "kafkaProducerFactory."))
                    .as("the KafkaTemplate's producer, bound by Spring Kafka")
                    .isGreaterThanOrEqualTo(3.0);
            assertThat(total("kafka.producer.record.send.total", gk))
                    .as("the listener's transactional producer, bound by groupkeeper")
                    .isGreaterThanOrEqualTo(3.0);
            assertThat(total("kafka.consumer.fetch.manager.records.consumed.total", "kafkaConsumerFactory."))
                    .as("the @KafkaListener's consumer, bound by Spring Kafka")
                    .isGreaterThanOrEqualTo(3.0);
            assertThat(total("kafka.consumer.fetch.manager.records.consumed.total", gk))
                    .as("the @GroupKeeperListener's consumer, bound by groupkeeper")
                    .isGreaterThanOrEqualTo(3.0);
        });
    }

    /** The sum of a counter over the clients whose {@code spring.id} starts so. */
    private double total(String name, String springIdPrefix) {
        return registry.find(name).tag("spring.id", v -> v.startsWith(springIdPrefix)).functionCounters().stream()
                .mapToDouble(FunctionCounter::count)
                .sum();
    }
}

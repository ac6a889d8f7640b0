package io.groupkeeper.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedServers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The README's plain Java service runs: it bills what is produced to "orders", counted by its Micrometer meters. */
class PlainJavaServiceIT {

    @Test
    void theServiceBillsOrdersAndCountsThemInItsMeters() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault()) {
            servers.kafka().createTopic("orders", 2);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            try (PlainJavaService service =
                            new PlainJavaService(servers.zkConnectString(), servers.bootstrapServers(), meters);
                    KafkaProducer<String, String> producer = new KafkaProducer<>(
                            Map.of(
                                    "bootstrap.servers",
                                    servers.bootstrapServers(),
                                    "acks",
                                    "1",
                                    "enable.idempotence",
                                    false),
                            new StringSerializer(),
                            new StringSerializer())) {
                // Its start position is the log end: keep producing until the first order is billed.
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    producer.send(new ProducerRecord<>("orders", "k", "order-" + System.nanoTime()))
                            .get();
                    Counter billed = meters.find("groupkeeper.container.records")
                            .tags("group", "billing", "topic", "orders")
                            .counter();
                    return billed != null && billed.count() >= 1;
                });
                assertThat(meters.find("groupkeeper.member.partitions.owned").gauges())
                        .as("the group's meters too")
                        .isNotEmpty();
            }
        }
    }
}

package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.app.TestApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Issue 45 item 5: a group that a plain Kafka consumer (as a Spring Kafka service's) committed in Kafka moves onto
 * the starter without repeating or skipping a record: its first start takes Kafka's group offsets into ZooKeeper.
 */
@ExtendWith(OutputCaptureExtension.class)
class KafkaOffsetTakeoverIT {

    @Test
    void theFirstStartTakesOverWhatTheGroupCommittedInKafka(CapturedOutput output) {
        String topic = SharedServers.topic(2);
        String group = SharedServers.name("switch");
        for (int i = 0; i < 8; i++) {
            SharedServers.send(topic, i % 2, "v" + i); // p0: v0 v2 v4 v6, p1: v1 v3 v5 v7
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (KafkaConsumer<String, String> before = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers",
                        SharedServers.get().bootstrapServers(),
                        "group.id",
                        group,
                        "enable.auto.commit",
                        false,
                        "auto.offset.reset",
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            before.assign(List.of(p0, p1));
            List<ConsumerRecord<String, String>> read = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                before.poll(Duration.ofMillis(200)).forEach(read::add);
                return read.size() == 8;
            });
            // processed 5: v0 v2 v4 on p0 (next 3) and v1 v3 on p1 (next 2)
            before.commitSync(Map.of(p0, new OffsetAndMetadata(3), p1, new OffsetAndMetadata(2)));
        }
        try (var ctx = SharedServers.startApp(topic, group, Map.of())) { // start-position earliest: would repeat all
            TestApp.Billing billing = ctx.getBean(TestApp.Billing.class);
            await().atMost(WAIT).until(() -> billing.seen.size() >= 3);
            SharedServers.send(topic, 0, "v8");
            await().atMost(WAIT)
                    .until(() -> billing.seen.stream().anyMatch(r -> r.value().equals("v8")));
            assertThat(billing.seen)
                    .extracting(ConsumerRecord::value)
                    .as("redelivered 0, lost 0")
                    .containsExactlyInAnyOrder("v6", "v5", "v7", "v8");
        }
        assertThat(output.getOut())
                .contains("took over Kafka's committed offsets of group " + group, topic + "-0=3", topic + "-1=2");
    }
}

package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.replies.RepliesApp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** Issue 45 item 2: {@code @SendTo} replies as Spring Kafka sends them, with Boot's KafkaTemplate. */
class SendToIT {

    @Test
    void theReturnValueIsSentAsSpringKafkaSendsIt() throws Exception {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-replies", 1);
        SharedServers.get().kafka().createTopic(topic + "-asks", 1);
        SharedServers.get().kafka().createTopic(topic + "-answers", 1);
        try (var ctx = new SpringApplicationBuilder(RepliesApp.class)
                        .web(WebApplicationType.NONE)
                        .properties(Map.of(
                                "groupkeeper.zookeeper.connect",
                                SharedServers.get().zkConnectString(),
                                "spring.kafka.bootstrap-servers",
                                SharedServers.get().bootstrapServers(),
                                "spring.kafka.consumer.auto-offset-reset",
                                "earliest",
                                "groupkeeper.listener.stop-deadline",
                                "5s",
                                "app.topic",
                                topic,
                                "app.group",
                                SharedServers.name("replies")))
                        .run();
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            ProducerRecord<String, String> ask = new ProducerRecord<>(topic, null, "k1", "abc");
            ask.headers().add("kafka_correlationId", new byte[] {1, 2, 3});
            producer.send(ask).get();
            producer.send(new ProducerRecord<>(topic, null, "k2", "none")).get();
            producer.send(new ProducerRecord<>(topic, null, "k3", "def")).get();
            ProducerRecord<String, String> split = new ProducerRecord<>(topic + "-asks", null, "k4", "x,y");
            split.headers().add("kafka_replyTopic", (topic + "-answers").getBytes(StandardCharsets.UTF_8));
            producer.send(split).get();

            List<ConsumerRecord<String, String>> replies = read(topic + "-replies", 2);
            assertThat(replies)
                    .extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .as("the request's key; a null result sends nothing")
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("k1", "ABC"),
                            org.assertj.core.groups.Tuple.tuple("k3", "DEF"));
            assertThat(replies.get(0)
                            .headers()
                            .lastHeader("kafka_correlationId")
                            .value())
                    .containsExactly(1, 2, 3);
            assertThat(read(topic + "-answers", 2))
                    .extracting(ConsumerRecord::value)
                    .as("to the kafka_replyTopic " + "header, a list split")
                    .containsExactly("x", "y");
        }
    }

    private static List<ConsumerRecord<String, String>> read(String topic, int n) {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers",
                        SharedServers.get().bootstrapServers(),
                        "group.id",
                        SharedServers.name("reader"),
                        "auto.offset.reset",
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= n;
            });
            await().pollDelay(Duration.ofMillis(500))
                    .atMost(WAIT)
                    .until(
                            () -> { // nothing more (no reply to "none")
                                c.poll(Duration.ofMillis(100)).forEach(out::add);
                                return true;
                            });
            return out;
        }
    }
}

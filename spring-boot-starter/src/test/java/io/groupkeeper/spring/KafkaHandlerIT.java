package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.handlers.HandlersApp;
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

/**
 * Issue 45: a class-level {@code @GroupKeeperListener} routes each record to the {@code @KafkaHandler} method taking
 * its payload type, the default one otherwise, as Spring Kafka's class-level {@code @KafkaListener}; a record no
 * method takes goes to the error policy (dead-lettered, Spring's "No method found for class ..." as the exception).
 */
class KafkaHandlerIT {

    @Test
    void recordsAreRoutedByPayloadTypeAsSpringKafkaRoutesThem() throws Exception {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-strict", 1);
        try (var ctx = new SpringApplicationBuilder(HandlersApp.class)
                        .web(WebApplicationType.NONE)
                        .properties(Map.of(
                                "groupkeeper.zookeeper.connect",
                                SharedServers.get().zkConnectString(),
                                "spring.kafka.bootstrap-servers",
                                SharedServers.get().bootstrapServers(),
                                "spring.kafka.consumer.auto-offset-reset",
                                "earliest",
                                "spring.kafka.consumer.value-deserializer",
                                HandlersApp.TypedDeserializer.class.getName(),
                                "groupkeeper.listener.error.attempts",
                                "1",
                                "groupkeeper.listener.stop-deadline",
                                "5s",
                                "app.topic",
                                topic,
                                "app.group",
                                SharedServers.name("handlers")))
                        .run();
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            send(producer, topic, "foo", "a");
            send(producer, topic, "bar", "b");
            send(producer, topic, "int", "7");
            send(producer, topic, null, "plain");
            send(producer, topic + "-strict", "bar", "c");
            send(producer, topic + "-strict", "foo", "d");

            HandlersApp.Multi multi = ctx.getBean(HandlersApp.Multi.class);
            await().atMost(WAIT).until(() -> multi.seen.size() >= 4);
            assertThat(multi.seen)
                    .as("each to the method of its type; a String to the default")
                    .containsExactly("foo:a", "bar:b@1", "int:7", "default:plain");
            HandlersApp.NoDefault strict = ctx.getBean(HandlersApp.NoDefault.class);
            await().atMost(WAIT).until(() -> strict.seen.size() >= 1);
            assertThat(strict.seen)
                    .as("the record after the one no method takes")
                    .containsExactly("foo:d");

            ConsumerRecord<String, String> dead = read(topic + "-strict-dlt");
            assertThat(dead.value()).isEqualTo("c");
            assertThat(new String(
                            dead.headers()
                                    .lastHeader("kafka_dlt-exception-message")
                                    .value(),
                            StandardCharsets.UTF_8))
                    .contains("No method found for class " + HandlersApp.Bar.class.getName());
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String type, String value)
            throws Exception {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, null, "k", value);
        if (type != null) {
            r.headers().add("type", type.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(r).get();
    }

    private static ConsumerRecord<String, String> read(String topic) {
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
                return !out.isEmpty();
            });
            return out.get(0);
        }
    }
}

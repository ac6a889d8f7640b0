package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.errors.ErrorsApp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Issue 45 item 2: an application's {@code DefaultErrorHandler} bean is honoured as Spring honours it — sample-01's
 * {@code FixedBackOff(100, 1)} is 1 retry, 2 attempts 100 ms apart, then its {@code DeadLetterPublishingRecoverer}
 * dead-letters to {@code <topic>-dlt}; Spring's default not-retryable exceptions are not retried.
 */
class SpringErrorHandlerIT {

    @Test
    void aDefaultErrorHandlerBeanIsTheListenersErrorPolicy() {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-valid", 1);
        try (var ctx = new SpringApplicationBuilder(ErrorsApp.class)
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
                        SharedServers.name("errors")))
                .run()) {
            ErrorsApp.Orders orders = ctx.getBean(ErrorsApp.Orders.class);
            SharedServers.send(topic, 0, "fail-1");
            SharedServers.send(topic, 0, "cast-1");
            SharedServers.send(topic, 0, "ok-1");
            await().atMost(WAIT).until(() -> orders.done.contains("ok-1"));
            List<Long> fail = new ArrayList<>(orders.attempts.get("fail-1"));
            assertThat(fail).as("FixedBackOff(100, 1): 1 retry = 2 attempts").hasSize(2);
            assertThat(Duration.ofNanos(fail.get(1) - fail.get(0)))
                    .as("100 ms apart")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(100));
            assertThat(orders.attempts.get("cast-1"))
                    .as("ClassCastException: not retryable, as in Spring")
                    .hasSize(1);
            assertThat(orders.deliveryAttempts.get("fail-1"))
                    .as("@Header(DELIVERY_ATTEMPT)")
                    .containsExactly(1, 2);
            assertThat(orders.deliveryAttempts.get("ok-1")).containsExactly(1);
            List<ConsumerRecord<String, String>> dead = read(topic + "-dlt", 2);
            assertThat(dead).extracting(ConsumerRecord::value).containsExactly("fail-1", "cast-1");
            assertThat(new String(
                            dead.get(0)
                                    .headers()
                                    .lastHeader("kafka_dlt-exception-fqcn")
                                    .value(),
                            StandardCharsets.UTF_8))
                    .isEqualTo(IllegalStateException.class.getName());

            // @Validated payloads with the registrar's validator (KafkaListenerConfigurer), as Spring Kafka validates
            ErrorsApp.Foos foos = ctx.getBean(ErrorsApp.Foos.class);
            SharedServers.send(topic + "-valid", 0, "{\"bar\":42}");
            SharedServers.send(topic + "-valid", 0, "{\"bar\":5}");
            await().atMost(WAIT).until(() -> foos.seen.contains(5));
            assertThat(foos.calls).as("bar=42 never reached the method").containsExactly(5);
            ConsumerRecord<String, String> invalid =
                    read(topic + "-valid-dlt", 1).get(0);
            assertThat(invalid.value()).isEqualTo("{\"bar\":42}");
            assertThat(new String(
                            invalid.headers()
                                    .lastHeader("kafka_dlt-exception-fqcn")
                                    .value(),
                            StandardCharsets.UTF_8))
                    .isEqualTo(org.springframework.messaging.handler.annotation.support.MethodArgumentNotValidException
                            .class
                            .getName());
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
            return out;
        }
    }
}

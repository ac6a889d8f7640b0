package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.tracing.Tracer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A listener written as for Spring Kafka, in a Boot application with Actuator and Micrometer Tracing (Brave): the trace
 * of a produced record's W3C {@code traceparent} continues in the handler, the {@code groupkeeper.listener} timer is in
 * {@code /actuator/metrics} (its endpoint bean) with the listener's tags, and a value that is not JSON for the payload
 * type is dead-lettered raw without reaching the handler; a {@code @FencingToken} parameter gets the partition's token.
 */
@SpringBootTest(classes = ListenerObservationIT.App.class)
@AutoConfigureTracing // Boot's tests turn tracing export off, and propagation with it, unless asked
class ListenerObservationIT {

    static final String TOPIC = SharedServers.topic(1);
    static final String GROUP = SharedServers.name("traced");
    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    record Payment(String id, long cents) {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Payments payments(Tracer tracer) {
            return new Payments(tracer);
        }
    }

    static class Payments {
        final Tracer tracer;
        final Queue<String> seen = new ConcurrentLinkedQueue<>();
        final Queue<Long> tokens = new ConcurrentLinkedQueue<>();

        Payments(Tracer tracer) {
            this.tracer = tracer;
        }

        @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
        void pay(Payment payment, @Header(KafkaHeaders.OFFSET) long offset, @FencingToken long token) {
            tokens.add(token);
            seen.add(payment.id() + "@" + offset + " trace "
                    + tracer.currentSpan().context().traceId());
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Map.of(
                        "management.endpoints.web.exposure.include",
                        "metrics",
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.producer.acks",
                        "1",
                        "spring.kafka.producer.properties.enable.idempotence",
                        "false",
                        "groupkeeper.listener.start-position",
                        "earliest",
                        "groupkeeper.listener.dead-letter.create-topics",
                        "true",
                        "management.tracing.sampling.probability",
                        "1.0",
                        "app.topic",
                        TOPIC,
                        "app.group",
                        GROUP)
                .forEach((k, v) -> registry.add(k, () -> v));
    }

    @Autowired
    Payments payments;

    @Autowired
    MetricsEndpoint metrics;

    @Test
    void theRecordsTraceContinuesInTheHandlerTheTimerIsInActuatorAndANonJsonValueIsDeadLetteredRaw() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        SharedServers.get().bootstrapServers(),
                        "acks",
                        "1",
                        "enable.idempotence",
                        false),
                new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "not json")).get();
            ProducerRecord<String, String> traced =
                    new ProducerRecord<>(TOPIC, 0, "k", "{\"id\":\"p-1\",\"cents\":250}");
            traced.headers()
                    .add("traceparent", ("00-" + TRACE_ID + "-00f067aa0ba902b7-01").getBytes(StandardCharsets.UTF_8));
            producer.send(traced).get();
        }
        await().atMost(WAIT).until(() -> !payments.seen.isEmpty());
        assertThat(payments.seen).containsExactly("p-1@1 trace " + TRACE_ID);
        assertThat(payments.tokens)
                .as("@FencingToken: the partition's token")
                .singleElement()
                .satisfies(t -> assertThat(t).isPositive());

        MetricsEndpoint.MetricDescriptor timer = metrics.metric(
                "groupkeeper.listener",
                List.of("listener.id:payments.pay", "outcome:success", "topic:" + TOPIC, "group:" + GROUP));
        assertThat(timer).as("groupkeeper.listener in /actuator/metrics").isNotNull();
        assertThat(timer.getMeasurements()).anySatisfy(m -> {
            assertThat(m.getStatistic().name()).isEqualTo("COUNT");
            assertThat(m.getValue()).isEqualTo(1.0);
        });

        try (KafkaConsumer<String, String> dlt = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers(), "auto.offset.reset", "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            String deadLetters = deadLetterTopic();
            dlt.assign(List.of(new TopicPartition(deadLetters, 0)));
            dlt.seekToBeginning(List.of(new TopicPartition(deadLetters, 0)));
            ConsumerRecords<String, String> got = ConsumerRecords.empty();
            long until = System.currentTimeMillis() + WAIT.toMillis();
            while (got.isEmpty() && System.currentTimeMillis() < until) {
                got = dlt.poll(Duration.ofMillis(200));
            }
            assertThat(got.count()).isEqualTo(1);
            ConsumerRecord<String, String> dead = got.iterator().next();
            assertThat(dead.value()).as("dead-lettered raw").isEqualTo("not json");
        }
    }

    /** The dead-letter topic the container created for {@link #TOPIC} (its name follows the configured convention). */
    private static String deadLetterTopic() throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()))) {
            return admin.listTopics().names().get().stream()
                    .filter(t -> t.startsWith(TOPIC) && !t.equals(TOPIC))
                    .findFirst()
                    .orElseThrow();
        }
    }
}

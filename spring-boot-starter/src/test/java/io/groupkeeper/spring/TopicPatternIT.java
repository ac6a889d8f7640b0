package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.patterns.PatternApp;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Issue 45: {@code topicPattern} as a {@code @KafkaListener}'s: the listener consumes the topics whose whole name
 * matches, evaluated at start and again every {@code metadata.max.age.ms}; a pattern matching no topic at start
 * fails the start naming it.
 */
class TopicPatternIT {

    @Test
    void theTopicsMatchingThePatternAtStartAreConsumed() throws Exception {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-a", 2);
        SharedServers.get().kafka().createTopic(topic + "-b", 1);
        SharedServers.get().kafka().createTopic(topic + "-a-x", 1);
        try (var ctx = app(topic, topic + "-(a|b)").run();
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "base")).get();
            producer.send(new ProducerRecord<>(topic + "-a", 0, "k", "a0")).get();
            producer.send(new ProducerRecord<>(topic + "-a", 1, "k", "a1")).get();
            producer.send(new ProducerRecord<>(topic + "-b", "k", "b")).get();
            producer.send(new ProducerRecord<>(topic + "-a-x", "k", "ax")).get();
            PatternApp.Matching m = ctx.getBean(PatternApp.Matching.class);
            await().atMost(WAIT).until(() -> m.seen.size() >= 3);
            await().pollDelay(java.time.Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
            assertThat(m.seen)
                    .as("the whole name matches: not the base topic, not -a-x")
                    .containsExactlyInAnyOrder(topic + "-a:a0", topic + "-a:a1", topic + "-b:b");
        }
    }

    /** As a pattern subscription after a metadata refresh (metadata.max.age.ms): a new topic is consumed too. */
    @Test
    void aMatchingTopicCreatedWhileRunningIsConsumedWithoutRedelivery() throws Exception {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-a", 1);
        try (var ctx = app(topic, topic + "-.*", Map.of("spring.kafka.consumer.properties.metadata.max.age.ms", "500"))
                        .run();
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            PatternApp.Matching m = ctx.getBean(PatternApp.Matching.class);
            producer.send(new ProducerRecord<>(topic + "-a", "k", "a1")).get();
            await().atMost(WAIT).until(() -> m.seen.size() >= 1);
            var before = ctx.getBean(GroupKeeperContainers.class).container("patternApp.Matching.on");

            SharedServers.get().kafka().createTopic(topic + "-b", 1);
            producer.send(new ProducerRecord<>(topic + "-b", "k", "b1")).get();
            await().atMost(WAIT).until(() -> m.seen.size() >= 2);
            producer.send(new ProducerRecord<>(topic + "-a", "k", "a2")).get();
            await().atMost(WAIT).until(() -> m.seen.size() >= 3);
            await().pollDelay(java.time.Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
            assertThat(m.seen)
                    .as("the new topic from its start, the old one neither redelivered nor skipped")
                    .containsExactly(topic + "-a:a1", topic + "-b:b1", topic + "-a:a2");
            assertThat(ctx.getBean(GroupKeeperContainers.class).container("patternApp.Matching.on"))
                    .as("a new container")
                    .isNotSameAs(before);
            assertThat(ctx.getBean(GroupKeeperContainers.class).allRunning()).isTrue();
        }
    }

    @Test
    void aPatternMatchingNoTopicFailsTheStart() {
        String topic = SharedServers.topic(1);
        assertThatThrownBy(() -> app(topic, topic + "-nothing-.*").run().close())
                .hasStackTraceContaining("topicPattern '" + topic + "-nothing-.*' matches no topic in Kafka; the "
                        + "pattern is evaluated at start");
    }

    private static SpringApplicationBuilder app(String topic, String pattern) {
        return app(topic, pattern, Map.of());
    }

    private static SpringApplicationBuilder app(String topic, String pattern, Map<String, Object> more) {
        return new SpringApplicationBuilder(PatternApp.class)
                .web(WebApplicationType.NONE)
                .properties(more)
                .properties(Map.of(
                        "groupkeeper.zookeeper.connect",
                        SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers",
                        SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "groupkeeper.listener.stop-deadline",
                        "5s",
                        "app.pattern",
                        pattern,
                        "app.group",
                        SharedServers.name("pattern")));
    }
}

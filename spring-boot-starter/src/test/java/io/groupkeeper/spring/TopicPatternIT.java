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
 * matches, evaluated at start; a pattern matching no topic fails the start naming it.
 */
class TopicPatternIT {

    @Test
    void theTopicsMatchingThePatternAtStartAreConsumed() throws Exception {
        String topic = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(topic + "-a", 2);
        SharedServers.get().kafka().createTopic(topic + "-b", 1);
        SharedServers.get().kafka().createTopic(topic + "-a-x", 1);
        try (var ctx = app(topic, topic + "-(a|b)").run();
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                     SharedServers.get().bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "base")).get();
            producer.send(new ProducerRecord<>(topic + "-a", 0, "k", "a0")).get();
            producer.send(new ProducerRecord<>(topic + "-a", 1, "k", "a1")).get();
            producer.send(new ProducerRecord<>(topic + "-b", "k", "b")).get();
            producer.send(new ProducerRecord<>(topic + "-a-x", "k", "ax")).get();
            PatternApp.Matching m = ctx.getBean(PatternApp.Matching.class);
            await().atMost(WAIT).until(() -> m.seen.size() >= 3);
            await().pollDelay(java.time.Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
            assertThat(m.seen).as("the whole name matches: not the base topic, not -a-x")
                    .containsExactlyInAnyOrder(topic + "-a:a0", topic + "-a:a1", topic + "-b:b");
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
        return new SpringApplicationBuilder(PatternApp.class).web(WebApplicationType.NONE).properties(Map.of(
                "groupkeeper.zookeeper.connect", SharedServers.get().zkConnectString(),
                "spring.kafka.bootstrap-servers", SharedServers.get().bootstrapServers(),
                "spring.kafka.consumer.auto-offset-reset", "earliest",
                "groupkeeper.listener.stop-deadline", "5s",
                "app.pattern", pattern, "app.group", SharedServers.name("pattern")));
    }
}

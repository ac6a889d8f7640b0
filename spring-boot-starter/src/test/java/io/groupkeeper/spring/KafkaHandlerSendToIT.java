package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.handlerreplies.HandlerRepliesApp;
import io.groupkeeper.spring.handlers.HandlersApp;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * Issue 45: {@code @SendTo} on the {@code @KafkaHandler} methods of a class-level listener is honoured as Spring Kafka
 * honours it: a method's result goes to its own {@code @SendTo} topic (placeholders resolved) or, bare, to the record's
 * {@code kafka_replyTopic}; a method without {@code @SendTo} sends nothing.
 */
class KafkaHandlerSendToIT {

    @Test
    void eachHandlerRepliesToItsOwnSendToTopic() throws Exception {
        String topic = SharedServers.topic(1);
        String replies = topic + "-replies";
        String asked = SharedServers.topic(1);
        SharedServers.get().kafka().createTopic(replies, 1);
        try (var ctx = new SpringApplicationBuilder(HandlerRepliesApp.class)
                        .web(WebApplicationType.NONE)
                        .properties(
                                "groupkeeper.zookeeper.connect="
                                        + SharedServers.get().zkConnectString(),
                                "spring.kafka.bootstrap-servers="
                                        + SharedServers.get().bootstrapServers(),
                                "spring.kafka.consumer.auto-offset-reset=earliest",
                                "spring.kafka.consumer.value-deserializer="
                                        + HandlersApp.TypedDeserializer.class.getName(),
                                "groupkeeper.listener.stop-deadline=5s",
                                "app.topic=" + topic,
                                "app.group=" + SharedServers.name("handler-replies"))
                        .run();
                KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            send(producer, topic, "bar", "b", null);
            send(producer, topic, null, "x", asked);
            send(producer, topic, "foo", "a", null);

            HandlerRepliesApp.Replying replying = ctx.getBean(HandlerRepliesApp.Replying.class);
            await().atMost(WAIT).until(() -> replying.seen.size() >= 3);
            assertThat(replying.seen).containsExactly("bar:b", "other:x", "foo:a");
            assertThat(ListenerTemplateTransactionIT.read(replies, "read_uncommitted", 1))
                    .as("foo's @SendTo topic; " + "nothing from bar, which has no @SendTo")
                    .containsExactly("foo:A");
            assertThat(ListenerTemplateTransactionIT.read(asked, "read_uncommitted", 1))
                    .as("the bare @SendTo: the " + "record's kafka_replyTopic")
                    .containsExactly("other:x");
        }
    }

    private static void send(
            KafkaProducer<String, String> producer, String topic, String type, String value, String replyTopic)
            throws Exception {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, null, "k", value);
        if (type != null) {
            r.headers().add("type", type.getBytes(StandardCharsets.UTF_8));
        }
        if (replyTopic != null) {
            r.headers().add(KafkaHeaders.REPLY_TOPIC, replyTopic.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(r).get();
    }
}

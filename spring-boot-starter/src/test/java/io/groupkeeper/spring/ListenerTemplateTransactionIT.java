package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.templatetx.TemplateTxApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.kafka.support.SendResult;

/**
 * Issue 45: with transactions configured ({@code spring.kafka.producer.transaction-id-prefix}, Spring Kafka's
 * sample-03) a {@code KafkaTemplate} used inside a {@code @GroupKeeperListener} method joins the listener's transaction,
 * as it joins the container's transaction in Spring Kafka: its sends commit with the input position (exactly once in
 * {@code read_committed}), a call that throws leaves nothing of them, and the template's futures complete.
 */
class ListenerTemplateTransactionIT {

    @Test
    void aTemplatesSendsInsideTheListenerCommitWithThePositionAndAFailedCallLeavesNone() {
        String in = SharedServers.topic(1);
        String out = SharedServers.topic(1);
        try (var ctx = new SpringApplicationBuilder(TemplateTxApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers(),
                        "spring.kafka.producer.transaction-id-prefix=tx.",
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "groupkeeper.listener.commit-interval=200ms",
                        "groupkeeper.listener.error.attempts=2",
                        "groupkeeper.listener.error.backoff=10ms",
                        "groupkeeper.listener.stop-deadline=5s",
                        "app.in=" + in,
                        "app.out=" + out,
                        "app.group=" + SharedServers.name("tx"))
                .run()) {
            TemplateTxApp.Forwarder forwarder = ctx.getBean(TemplateTxApp.Forwarder.class);
            for (String v : List.of("a", "b", "fail-1", "c")) {
                SharedServers.send(in, 0, v);
            }
            List<String> expected = List.of("A:a", "B:a", "A:b", "B:b", "A:c", "B:c");
            assertThat(read(out, "read_committed", 6))
                    .as("exactly once, none of the failed calls")
                    .containsExactlyElementsOf(expected);
            assertThat(read(out, "read_uncommitted", 6))
                    .as("a failed call's sends never reach Kafka")
                    .containsExactlyElementsOf(expected);
            assertThat(forwarder.attempts.get("fail-1")).hasValue(2);
            assertThat(ListenerExtrasIT.readCommitted(in + "-dlt", 1)).containsExactly("fail-1");
            // the template's futures: the successful calls' complete with their offsets, the failed calls' fail
            await().atMost(WAIT).until(() -> forwarder.sent.stream().allMatch(CompletableFuture::isDone));
            List<String> succeeded = new ArrayList<>();
            int failed = 0;
            for (CompletableFuture<SendResult<String, String>> f : forwarder.sent) {
                if (f.isCompletedExceptionally()) {
                    failed++;
                } else {
                    SendResult<String, String> r = f.join();
                    assertThat(r.getRecordMetadata().offset()).isNotNegative();
                    succeeded.add(r.getProducerRecord().value());
                }
            }
            assertThat(succeeded).containsExactlyElementsOf(expected);
            assertThat(failed).as("2 sends in each of the 2 failed calls").isEqualTo(4);
        }
    }

    /** Reads {@code topic} (one partition) from the beginning to its end, at least {@code count} records. */
    static List<String> read(String topic, String isolation, int count) {
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers(), "isolation.level", isolation),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            List<String> out = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                reader.poll(Duration.ofMillis(100)).forEach(r -> out.add(((ConsumerRecord<String, String>) r).value()));
                return out.size() >= count
                        && reader.position(tp) >= reader.endOffsets(List.of(tp)).get(tp);
            });
            return out;
        }
    }
}

package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.Sample01;
import io.groupkeeper.spring.differential.groupkeeper.GroupKeeperSide;
import io.groupkeeper.spring.differential.spring.SpringKafkaSide;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Issue 45 item 7, the start of the differential suite: one application (Spring Kafka's sample-01 — a
 * {@code DefaultErrorHandler} bean with a {@code DeadLetterPublishingRecoverer} and {@code FixedBackOff(100, 1)}, a
 * listener that fails some records) runs on Spring for Apache Kafka ({@code @KafkaListener}, Boot's container) and on
 * the starter ({@code @GroupKeeperListener}), each on its own topic and group with the same records; what the
 * application observes must be equal: records handled, attempts per record, dead letters (value, key, Spring's
 * {@code kafka_dlt-*} headers decoded). Known and allowed: {@code kafka_dlt-exception-fqcn} is Spring's wrapper
 * {@code ListenerExecutionFailedException} there and the method's own exception here (the root cause, in
 * {@code -exception-cause-fqcn}, is the same); the starter adds {@code groupkeeper.dlt.*} headers.
 */
class DifferentialIT {

    @Test
    void sample01ObservesTheSameOnSpringKafkaAndOnTheStarter() {
        Observed spring = run(SpringKafkaSide.class);
        Observed groupkeeper = run(GroupKeeperSide.class);
        assertThat(groupkeeper.handled).as("records handled").isEqualTo(spring.handled);
        assertThat(groupkeeper.attempts).as("attempts per record").isEqualTo(spring.attempts);
        assertThat(groupkeeper.deadLetters).as("dead letters").isEqualTo(spring.deadLetters);
        assertThat(spring.attempts).containsEntry("fail-1", 2); // FixedBackOff(100, 1): the case is not vacuous
    }

    /** Sample-03: batch listeners, a KafkaTemplate inside one, in the listener's transaction (transaction-id-prefix). */
    @Test
    void sample03ObservesTheSameOnSpringKafkaAndOnTheStarter() {
        List<String> values = List.of("a", "b", "c", "d", "e");
        Sample03Differential.Observed spring = Sample03Differential.run(false, values);
        Sample03Differential.Observed groupkeeper = Sample03Differential.run(true, values);
        assertThat(groupkeeper).isEqualTo(spring);
        assertThat(spring.committedOutputs()).hasSize(5); // each output once in read_committed: not vacuous
    }

    /** A record with a java.time.Instant, read by Spring Kafka's Jackson 3 converter over Boot's JsonMapper. */
    @Test
    void instantPayloadsObserveTheSameOnSpringKafkaAndOnTheStarter() {
        List<String> values = List.of(
                "{\"id\":\"e1\",\"at\":\"2026-12-07T05:00:00.250Z\"}",
                "{\"id\":\"e2\",\"at\":1765083600.5,\"unknown\":1}");
        List<String> spring = InstantDifferential.run(false, values);
        List<String> groupkeeper = InstantDifferential.run(true, values);
        assertThat(groupkeeper).isEqualTo(spring);
        assertThat(spring).contains("Event[id=e1, at=2026-12-07T05:00:00.250Z]"); // not vacuous
    }

    /**
     * {@code spring.kafka.listener.ack-mode} MANUAL and MANUAL_IMMEDIATE, a listener taking {@code Acknowledgment}:
     * acknowledges some records, skips some (one between two acknowledged, one last), nacks one once. The records
     * received, then after a restart of the application what is redelivered, are the same on both: a skipped record
     * before an acknowledged one is committed with it, the last one runs again, the nacked one ran twice.
     */
    @Test
    void manualAcknowledgementsObserveTheSameOnSpringKafkaAndOnTheStarterAcrossARestart() {
        List<String> values = List.of("ack-0", "ack-1", "skip-2", "ack-3", "nack-4", "skip-5");
        for (String mode : List.of("MANUAL", "manual_immediate")) {
            ManualAckDifferential.Observed spring = ManualAckDifferential.run(false, mode, values, 7);
            ManualAckDifferential.Observed groupkeeper = ManualAckDifferential.run(true, mode, values, 7);
            assertThat(groupkeeper).as(mode).isEqualTo(spring);
            assertThat(spring.firstStart())
                    .as("not vacuous: the nacked record twice")
                    .containsExactly("ack-0", "ack-1", "skip-2", "ack-3", "nack-4", "nack-4", "skip-5");
            assertThat(spring.afterRestart())
                    .as("not vacuous: only the last record again")
                    .containsExactly("skip-5");
        }
    }

    /**
     * Spring Kafka's sample-04 ({@code @RetryableTopic} + {@code @DltHandler}, {@code Sample04Listener}), its
     * {@code @KafkaListener} swapped for {@code @GroupKeeperListener} by the test: the same calls per value and topic,
     * the same retry and DLT topics, every forwarded record with the same headers (Spring's names, order and values),
     * the DLT handler's headers; each attempt no earlier than its delay on both.
     */
    @Test
    void sample04RetryTopicsObserveTheSameOnSpringKafkaAndOnTheStarter() {
        Sample04Differential.Observed spring = Sample04Differential.run(true);
        Sample04Differential.Observed groupkeeper = Sample04Differential.run(false);
        assertThat(groupkeeper.calls()).as("calls per value: kind@topic").isEqualTo(spring.calls());
        assertThat(groupkeeper.topics()).as("retry and DLT topics").isEqualTo(spring.topics());
        assertThat(groupkeeper.forwarded())
                .as("records of the retry and DLT topics")
                .isEqualTo(spring.forwarded());
        assertThat(groupkeeper.dltHeaders()).as("the DLT handler's headers").isEqualTo(spring.dltHeaders());
        assertThat(spring.calls().get("fail-1"))
                .as("not vacuous: 5 attempts then the DLT")
                .hasSize(6);
        for (Sample04Differential.Observed o : List.of(spring, groupkeeper)) {
            // Due times are epoch millis and the gaps are read on the monotonic clock: on a loaded machine the two
            // drift a few ms apart. An attempt that did not wait for its due time comes at once (gaps of a few ms),
            // far below these bounds.
            o.gapsMs()
                    .values()
                    .forEach(g -> assertThat(g)
                            .as("attempt gaps ≥ 300, 600, 1000, 1000 ms")
                            .hasSize(4)
                            .satisfies(x -> {
                                assertThat(x.get(0)).isGreaterThanOrEqualTo(290);
                                assertThat(x.get(1)).isGreaterThanOrEqualTo(590);
                                assertThat(x.get(2)).isGreaterThanOrEqualTo(990);
                                assertThat(x.get(3)).isGreaterThanOrEqualTo(990);
                            }));
        }
    }

    /**
     * {@code @RetryableTopic(autoCreateTopics = "false")}: Spring creates neither retry nor DLT topic and starts all the
     * same; the topics created by the user after the start, a failing record goes through them to the DLT handler.
     */
    @Test
    void retryTopicsNotAutoCreatedObserveTheSameOnSpringKafkaAndOnTheStarter() {
        NoAutoCreateDifferential.Observed spring = NoAutoCreateDifferential.run(true);
        NoAutoCreateDifferential.Observed groupkeeper = NoAutoCreateDifferential.run(false);
        assertThat(groupkeeper.start()).as("the start").isEqualTo(spring.start());
        assertThat(groupkeeper.topicsAfterStart())
                .as("retry and DLT topics after the start")
                .isEqualTo(spring.topicsAfterStart());
        assertThat(groupkeeper.calls()).as("calls per value: kind@topic").isEqualTo(spring.calls());
        assertThat(groupkeeper.topicsAtEnd()).isEqualTo(spring.topicsAtEnd());
        assertThat(spring.start()).isEqualTo("started"); // not vacuous: Spring starts without the topics
        assertThat(spring.topicsAfterStart()).isEmpty();
        assertThat(spring.calls().get("fail-1"))
                .containsExactly("listen@<topic>", "listen@<topic>-retry", "listen@<topic>-retry", "dlt@<topic>-dlt");
    }

    record Observed(List<String> handled, Map<String, Integer> attempts, List<Map<String, String>> deadLetters) {}

    private static Observed run(Class<?> app) {
        String topic = SharedServers.topic(2);
        SharedServers.get().kafka().createTopic(topic + "-dlt", 2);
        String group = SharedServers.name("diff");
        try (var ctx = new SpringApplicationBuilder(app)
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
                        group))
                .run()) {
            Sample01.Body body = ctx.getBean(Sample01.Body.class);
            List<String> values = List.of("a", "fail-1", "b", "c", "fail-2", "d");
            for (int i = 0; i < values.size(); i++) {
                SharedServers.send(topic, i % 2, "{\"foo\":\"" + values.get(i) + "\"}");
            }
            await().atMost(WAIT).until(() -> body.handled.size() == 4);
            List<Map<String, String>> dead = new ArrayList<>();
            for (ConsumerRecord<String, String> r : read(topic + "-dlt", 2)) {
                Map<String, String> d = new TreeMap<>();
                d.put("value", r.value().replaceAll(".*\"foo\":\"([^\"]*)\".*", "$1"));
                d.put("key", r.key());
                d.put("dlt-partition", Integer.toString(r.partition()));
                d.put("original-topic", text(r, "kafka_dlt-original-topic").replace(topic, "<topic>"));
                d.put(
                        "original-partition",
                        Integer.toString(ByteBuffer.wrap(bytes(r, "kafka_dlt-original-partition"))
                                .getInt()));
                d.put(
                        "original-offset",
                        Long.toString(ByteBuffer.wrap(bytes(r, "kafka_dlt-original-offset"))
                                .getLong()));
                d.put("original-timestamp-type", text(r, "kafka_dlt-original-timestamp-type"));
                d.put(
                        "original-consumer-group",
                        text(r, "kafka_dlt-original-consumer-group").replace(group, "<group>"));
                d.put("exception-cause-fqcn", text(r, "kafka_dlt-exception-cause-fqcn"));
                d.put(
                        "exception-message-ends",
                        text(r, "kafka_dlt-exception-message").replaceAll(".*failed: ", ""));
                d.put("has-stacktrace", Boolean.toString(bytes(r, "kafka_dlt-exception-stacktrace") != null));
                dead.add(d);
            }
            dead.sort(java.util.Comparator.comparing(m -> m.get("value")));
            Map<String, Integer> attempts = new TreeMap<>();
            body.attempts.forEach((v, n) -> attempts.put(v, n.get()));
            List<String> handled = new ArrayList<>(body.handled);
            handled.sort(null);
            return new Observed(handled, attempts, dead);
        }
    }

    private static byte[] bytes(ConsumerRecord<String, String> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : h.value();
    }

    private static String text(ConsumerRecord<String, String> r, String name) {
        byte[] b = bytes(r, name);
        return b == null ? "<none>" : new String(b, StandardCharsets.UTF_8);
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

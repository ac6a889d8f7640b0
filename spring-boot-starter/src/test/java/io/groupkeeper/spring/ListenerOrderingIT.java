package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.ordering.OrderingApp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @GroupKeeperListener(ordering = "key", parallelism = "8")}: one partition's records run on several workers at
 * once, records of one key one at a time and in offset order (docs/parallel.md).
 */
class ListenerOrderingIT {

    @Test
    void keyOrderingRunsOnePartitionOnManyWorkersKeepingEachKeysOrder() throws Exception {
        String topic = SharedServers.topic(1);
        try (ConfigurableApplicationContext ctx = start(topic, "key")) {
            OrderingApp.Slow slow = ctx.getBean(OrderingApp.Slow.class);
            Map<String, List<String>> sent = send(topic, 16, 25);
            await().atMost(WAIT)
                    .until(() ->
                            slow.byKey.values().stream().mapToInt(List::size).sum() == 400);
            assertThat(slow.byKey).as("each key's values in offset order").isEqualTo(sent);
            assertThat(slow.keyOverlaps).as("two records of one key at once").hasValue(0);
            assertThat(slow.mostInFlight.get())
                    .as("records of the one partition handled at once")
                    .isGreaterThan(1);
        }
    }

    @Test
    void anOrderingThatIsNotOneOfTheThreeFailsTheStartNamingIt() {
        assertThatThrownBy(() -> start(SharedServers.topic(1), "by-key").close())
                .rootCause()
                .hasMessageContaining("ordering 'by-key' is not one of partition, key, unordered");
    }

    /** {@code groupkeeper.listener.max-span=3}: at most 3 records of the partition in flight, although 8 workers. */
    @Test
    void theMaxSpanPropertyBoundsWhatOnePartitionHasInFlight() throws Exception {
        String topic = SharedServers.topic(1);
        try (ConfigurableApplicationContext ctx = start(topic, "key", Map.of("groupkeeper.listener.max-span", "3"))) {
            OrderingApp.Slow slow = ctx.getBean(OrderingApp.Slow.class);
            Map<String, List<String>> sent = send(topic, 16, 25);
            await().atMost(WAIT)
                    .until(() ->
                            slow.byKey.values().stream().mapToInt(List::size).sum() == 400);
            assertThat(slow.byKey).isEqualTo(sent);
            assertThat(slow.mostInFlight.get())
                    .as("records of the one partition handled at once")
                    .isBetween(2, 3);
        }
    }

    @Test
    void aProgressLimitOutOfRangeFailsTheStartNamingIt() {
        assertThatThrownBy(() -> start(SharedServers.topic(1), "key", Map.of("groupkeeper.listener.max-span", "262145"))
                        .close())
                .hasStackTraceContaining("maxSpan must be in 1..262144, was 262145")
                .hasStackTraceContaining("groupkeeper.listener(s).max-span");
    }

    private static ConfigurableApplicationContext start(String topic, String ordering) {
        return start(topic, ordering, Map.of());
    }

    private static ConfigurableApplicationContext start(String topic, String ordering, Map<String, Object> extra) {
        Map<String, Object> p = new java.util.HashMap<>(Map.of(
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
                SharedServers.name("ordering"),
                "app.ordering",
                ordering));
        p.putAll(extra);
        return new SpringApplicationBuilder(OrderingApp.class)
                .web(WebApplicationType.NONE)
                .properties(p)
                .run();
    }

    /** {@code keys} keys, {@code each} values per key, interleaved, all to partition 0; the values per key in order. */
    private static Map<String, List<String>> send(String topic, int keys, int each) throws Exception {
        Map<String, List<String>> sent = new java.util.HashMap<>();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < each; i++) {
                for (int k = 0; k < keys; k++) {
                    String key = "k" + k;
                    String value = key + "-" + i;
                    p.send(new ProducerRecord<>(topic, 0, key, value));
                    sent.computeIfAbsent(key, x -> new ArrayList<>()).add(value);
                }
            }
            p.flush();
        }
        return sent;
    }
}

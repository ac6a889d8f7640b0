package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.AnnotationSwap;
import io.groupkeeper.spring.differential.Sample03;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * One run of Spring Kafka's sample-03 for {@link DifferentialIT}: its listener source compiled as it is or with the
 * annotation swapped ({@link AnnotationSwap}), its application class and properties, on fresh topics; sends
 * {@code {"foo":...}} for each value, waits until the second listener received them all, and returns what the
 * application observed (each sorted: partitions interleave differently per run).
 */
final class Sample03Differential {

    record Observed(List<String> received1, List<String> received2, List<String> committedOutputs) {}

    private Sample03Differential() {}

    static Observed run(boolean onGroupKeeper, List<String> values) {
        Class<?> asWritten = AnnotationSwap.compile("sample03.Listener", Sample03.LISTENER);
        Class<?> listener = onGroupKeeper ? AnnotationSwap.toGroupKeeper(asWritten) : asWritten;
        String topic2 = SharedServers.topic(1);
        String topic3 = SharedServers.topic(1);
        List<String> properties = new ArrayList<>(List.of(Sample03.PROPERTIES));
        properties.addAll(List.of(
                "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers(),
                "spring.kafka.consumer.auto-offset-reset=earliest",
                "groupkeeper.listener.stop-deadline=5s",
                "app.topic2=" + topic2,
                "app.topic3=" + topic3,
                "app.group=" + SharedServers.name("s03-")));
        try (var ctx = new SpringApplicationBuilder(Sample03.class, listener)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run()) {
            Sample03.Observed observed = ctx.getBean(Sample03.Observed.class);
            for (String v : values) {
                SharedServers.send(topic2, 0, "{\"foo\":\"" + v + "\"}");
            }
            await().atMost(WAIT).until(() -> observed.received2.size() >= values.size());
            List<String> outputs = readCommitted(topic3, values.size());
            return new Observed(sorted(observed.received1), sorted(observed.received2), sorted(outputs));
        }
    }

    private static List<String> sorted(java.util.Collection<String> values) {
        List<String> l = new ArrayList<>(values);
        l.sort(null);
        return l;
    }

    private static List<String> readCommitted(String topic, int count) {
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers",
                        SharedServers.get().bootstrapServers(),
                        "isolation.level",
                        "read_committed"),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            List<String> out = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                reader.poll(Duration.ofMillis(100)).forEach(r -> out.add(r.value()));
                return out.size() >= count
                        && reader.position(tp) >= reader.endOffsets(List.of(tp)).get(tp);
            });
            return out;
        }
    }
}

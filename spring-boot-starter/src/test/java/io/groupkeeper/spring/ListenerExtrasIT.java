package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.extras.ExtrasApp;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Issue 35 item 1 and issue 36 items 3 and 6 in a Spring Boot application: a transactional {@code @GroupKeeperListener}
 * (outputs and dead letters commit with the input positions), the listeners' Kafka client metrics in
 * {@code /actuator/metrics}, a {@link GroupKeeperSeekAware} bean positioning its partitions, and
 * {@link ListenerIdleEvent}s.
 */
@SpringBootTest(classes = ExtrasApp.class)
class ListenerExtrasIT {

    static final String GROUP = SharedServers.name("extras");
    static final String IN = SharedServers.topic(1);
    static final String OUT = SharedServers.topic(1);
    static final String QUIET = SharedServers.topic(1);
    static final String POSITIONED = positioned();

    /** A topic holding v0..v4 before the application starts. */
    static String positioned() {
        String t = SharedServers.topic(1);
        for (int i = 0; i < 5; i++) {
            SharedServers.send(t, 0, "v" + i);
        }
        return t;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Map.ofEntries(
                        Map.entry("management.endpoints.web.exposure.include", "metrics"),
                        Map.entry(
                                "groupkeeper.zookeeper.connect",
                                SharedServers.get().zkConnectString()),
                        Map.entry(
                                "spring.kafka.bootstrap-servers",
                                SharedServers.get().bootstrapServers()),
                        Map.entry("groupkeeper.listener.start-position", "earliest"),
                        Map.entry("groupkeeper.listener.commit-interval", "200ms"),
                        Map.entry("groupkeeper.listener.error.attempts", "2"),
                        Map.entry("groupkeeper.listener.error.backoff", "10ms"),
                        Map.entry("groupkeeper.listener.dead-letter.create-topics", "true"),
                        Map.entry("groupkeeper.listener.stop-deadline", "5s"),
                        Map.entry("app.group", GROUP),
                        Map.entry("app.in", IN),
                        Map.entry("app.out", OUT),
                        Map.entry("app.quiet", QUIET),
                        Map.entry("app.positioned", POSITIONED))
                .forEach((k, v) -> registry.add(k, () -> v));
    }

    @Autowired
    ExtrasApp.Enricher enricher;

    @Autowired
    ExtrasApp.Positioned positioned;

    @Autowired
    ExtrasApp.Quiet quiet;

    @Autowired
    MetricsEndpoint metrics;

    @Autowired
    MeterRegistry registry;

    @Test
    void aTransactionalListenersOutputsAndDeadLettersCommitWithItsPositionsAndAFailedCallLeavesNothing() {
        for (String v : List.of("a", "b", "poison-1", "c")) {
            SharedServers.send(IN, 0, v);
        }
        List<String> out = readCommitted(OUT, 3);
        assertThat(out).containsExactly("out:a", "out:b", "out:c"); // none of the 2 failed calls' "out:poison-1"
        assertThat(enricher.poisonAttempts).hasValue(2);
        List<ConsumerRecord<String, String>> dead = readCommittedRecords(IN + "-dlt", 1);
        assertThat(dead).extracting(ConsumerRecord::value).containsExactly("poison-1");
        assertThat(new String(
                        dead.get(0)
                                .headers()
                                .lastHeader("groupkeeper.dlt.attempts")
                                .value(),
                        StandardCharsets.UTF_8))
                .isEqualTo("2");
    }

    @Test
    void everyListenersKafkaClientsAreInTheMetricsEndpointTaggedBySpringIdNamingTheListener() {
        String consumed = "kafka.consumer.fetch.manager.records.consumed.total";
        await().atMost(WAIT).untilAsserted(() -> {
            MetricsEndpoint.MetricDescriptor all = metrics.metric(consumed, List.of());
            assertThat(all).as("in /actuator/metrics").isNotNull();
            assertThat(registry.find(consumed)
                            .tag("spring.id", clientOf("positioned", GROUP + "-positioned"))
                            .functionCounters())
                    .singleElement()
                    .satisfies(c -> assertThat(c.count()).isGreaterThanOrEqualTo(2.0)); // v3, v4
        });
        assertThat(registry.find(consumed)
                        .tag("spring.id", clientOf("quiet", GROUP + "-quiet"))
                        .meters())
                .isNotEmpty();
        // the transactional listener's producers (one per owned input partition, and the dead-letter producer)
        assertThat(registry.find("kafka.producer.record.send.total")
                        .tag("spring.id", clientOf("enrich", GROUP))
                        .meters())
                .isNotEmpty();
    }

    /** The {@code spring.id} values of a listener's clients: {@code groupkeeper/<listener>/<group>/<client id>}. */
    static java.util.function.Predicate<String> clientOf(String listener, String group) {
        return v -> v.startsWith("groupkeeper/" + listener + "/" + group + "/");
    }

    @Test
    void aSeekAwareBeanPositionsItsPartitionsBeforeTheFirstRecord() {
        await().atMost(WAIT).until(() -> positioned.seen.size() >= 2);
        assertThat(positioned.seen).containsExactly("v3", "v4");
        assertThat(positioned.assigned).containsExactly("positioned:" + POSITIONED + "-0");
    }

    @Test
    void aQuietListenerPublishesIdleEvents() {
        await().atMost(WAIT)
                .until(() -> quiet.idle.stream()
                                .filter(e -> e.getListenerId().equals("quiet"))
                                .count()
                        >= 2);
        assertThat(quiet.idle)
                .filteredOn(e -> e.getListenerId().equals("quiet"))
                .allSatisfy(e -> {
                    assertThat(e.getGroup()).isEqualTo(GROUP + "-quiet");
                    assertThat(e.getIdleFor()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
                });
        assertThat(quiet.idle)
                .as("only the listener with an interval")
                .allMatch(e -> e.getListenerId().equals("quiet"));
    }

    static List<String> readCommitted(String topic, int count) {
        List<String> out = new ArrayList<>();
        readCommittedRecords(topic, count).forEach(r -> out.add(r.value()));
        return out;
    }

    /** Reads with read_committed until {@code count} records and the last stable offset are reached. */
    static List<ConsumerRecord<String, String>> readCommittedRecords(String topic, int count) {
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
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                reader.poll(Duration.ofMillis(100)).forEach(out::add);
                return out.size() >= count
                        && reader.position(tp) >= reader.endOffsets(List.of(tp)).get(tp);
            });
            return out;
        }
    }
}

package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.DeadLetterHeaders;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.spring.app.TestApp;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a real Spring Boot application on in-process ZooKeeper and Kafka: two contexts split a group, a poison
 * record is dead-lettered after the configured retries, meters land in the application's registry, and the health
 * contributor stays UP on a deliberate stop (naming the stopped listener), and the container restarts.
 */
@SpringBootTest(classes = TestApp.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StarterIT {

    static final String TOPIC = SharedServers.topic(4);
    static final String GROUP = SharedServers.name("billing");

    static Map<String, Object> properties() {
        return Map.ofEntries(
                Map.entry("groupkeeper.zookeeper.connect", SharedServers.get().zkConnectString()),
                Map.entry("spring.kafka.bootstrap-servers", SharedServers.get().bootstrapServers()),
                Map.entry("spring.kafka.producer.acks", "1"),
                Map.entry("spring.kafka.producer.properties.enable.idempotence", "false"),
                Map.entry("groupkeeper.listener.start-position", "earliest"),
                Map.entry("groupkeeper.listener.commit-interval", "200ms"),
                Map.entry("groupkeeper.listener.error.attempts", "2"),
                Map.entry("groupkeeper.listener.error.backoff", "10ms"),
                Map.entry("groupkeeper.listener.dead-letter.create-topics", "true"),
                Map.entry("groupkeeper.listener.stop-deadline", "10s"),
                Map.entry("groupkeeper.listeners.audit.mirror-offsets", "true"),
                Map.entry("app.topic", TOPIC),
                Map.entry("app.group", GROUP));
    }

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        properties().forEach((k, v) -> registry.add(k, () -> v));
    }

    @Autowired
    TestApp.Billing billing;

    @Autowired
    TestApp.Audit audit;

    @Autowired
    GroupKeeperContainers containers;

    @Autowired
    HealthContributorRegistry health;

    @Autowired
    MeterRegistry meters;

    static Set<TopicPartition> owned(GroupKeeperContainers c) {
        Set<TopicPartition> out = new HashSet<>();
        c.container("billing").workers().forEach(w -> out.addAll(w.owned()));
        return out;
    }

    @Test
    @Order(1)
    void twoApplicationContextsInOneGroupSplitThePartitionsAndEveryRecordIsConsumedOnce() {
        await().atMost(WAIT).until(() -> owned(containers).size() == 4);
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(TestApp.class)
                .web(WebApplicationType.NONE)
                .properties(properties())
                .run()) {
            GroupKeeperContainers other = second.getBean(GroupKeeperContainers.class);
            TestApp.Billing otherBilling = second.getBean(TestApp.Billing.class);
            await().atMost(WAIT)
                    .until(() -> owned(containers).size() == 2 && owned(other).size() == 2);
            assertThat(owned(containers)).doesNotContainAnyElementsOf(owned(other));

            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String v = "order-" + i;
                SharedServers.send(TOPIC, i % 4, v);
                sent.add(v);
            }
            await().atMost(WAIT).until(() -> billing.seen.size() + otherBilling.seen.size() >= 100);
            List<String> all = new ArrayList<>();
            billing.seen.forEach(r -> all.add(r.value()));
            otherBilling.seen.forEach(r -> all.add(r.value()));
            assertThat(all).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(billing.seen)
                    .hasSize(50)
                    .allSatisfy(
                            r -> assertThat(owned(containers)).contains(new TopicPartition(r.topic(), r.partition())));
            assertThat(otherBilling.seen).hasSize(50);
            // The batch listener is another group: it gets everything too.
            await().atMost(WAIT)
                    .until(() -> audit.seen.size()
                                    + second.getBean(TestApp.Audit.class).seen.size()
                            >= 100);
        }
        await().atMost(WAIT).until(() -> owned(containers).size() == 4); // the second context left gracefully
    }

    @Test
    @Order(2)
    void aPoisonRecordLandsInTheDeadLetterTopicAfterTheConfiguredRetriesAndTheGroupMovesOn() {
        int before = billing.seen.size();
        SharedServers.send(TOPIC, 1, "poison-pill");
        SharedServers.send(TOPIC, 1, "after-the-pill");
        await().atMost(WAIT).until(() -> billing.seen.size() == before + 1);
        assertThat(billing.seen).last().satisfies(r -> assertThat(r.value()).isEqualTo("after-the-pill"));
        assertThat(billing.poisonAttempts).hasValue(2);

        ConsumerRecord<String, String> dead = readOne(TOPIC + "-dlt");
        assertThat(dead.value()).isEqualTo("poison-pill");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_TOPIC)).isEqualTo(TOPIC);
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_PARTITION)).isEqualTo("1");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("25"); // after 25 orders on partition 1
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_TIMESTAMP)).matches("\\d+");
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_CLASS)).isEqualTo(IllegalStateException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_MESSAGE)).isEqualTo("cannot bill poison-pill");
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("2");
        // Spring for Apache Kafka's format (issue 45 item 4), beside the earlier one for this release
        assertThat(header(dead, DeadLetterHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(TOPIC);
        assertThat(java.nio.ByteBuffer.wrap(dead.headers()
                                .lastHeader(DeadLetterHeaders.DLT_ORIGINAL_PARTITION)
                                .value())
                        .getInt())
                .isEqualTo(1);
        assertThat(java.nio.ByteBuffer.wrap(dead.headers()
                                .lastHeader(DeadLetterHeaders.DLT_ORIGINAL_OFFSET)
                                .value())
                        .getLong())
                .isEqualTo(25L);
        assertThat(header(dead, DeadLetterHeaders.DLT_EXCEPTION_FQCN)).isEqualTo(IllegalStateException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.DLT_EXCEPTION_MESSAGE)).isEqualTo("cannot bill poison-pill");
        assertThat(header(dead, DeadLetterHeaders.DLT_ORIGINAL_CONSUMER_GROUP)).isEqualTo(GROUP);
    }

    @Test
    @Order(3)
    void aListenerWithMirrorOffsetsLetsKafkasToolsSeeItsGroupAndTheOthersDoNot() throws Exception {
        // Test 1 sent 100 records to 4 partitions; the audit listener (mirror-offsets) consumed them all.
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()))) {
            await().atMost(WAIT).untilAsserted(() -> {
                Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> mirrored =
                        admin.listConsumerGroupOffsets(GROUP + "-audit")
                                .partitionsToOffsetAndMetadata()
                                .get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(mirrored).hasSize(4);
                assertThat(mirrored.values().stream().mapToLong(o -> o.offset()).sum())
                        .isGreaterThanOrEqualTo(100);
                assertThat(mirrored.values())
                        .allSatisfy(o -> assertThat(o.metadata()).isEqualTo("groupkeeper-mirror"));
            });
            assertThat(admin.listConsumerGroupOffsets(GROUP)
                            .partitionsToOffsetAndMetadata()
                            .get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("billing does not mirror")
                    .isEmpty();
        }
    }

    @Test
    @Order(3)
    void metersAreBoundToTheApplicationsRegistry() {
        assertThat(meters.find("groupkeeper.member.partitions.owned")
                        .tags("group", GROUP)
                        .gauges())
                .hasSize(2);
        assertThat(meters.get("groupkeeper.container.records")
                        .tags("group", GROUP)
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(51.0);
        assertThat(meters.get("groupkeeper.container.records.recovered")
                        .tags("group", GROUP, "recovery", "dead-letter")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(meters.get("groupkeeper.container.handlers.stuck")
                        .tags("group", GROUP)
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    @Order(4)
    void healthIsUpWithDetailsAndStaysUpWhenAContainerIsStoppedOnPurposeWhichThenRestarts() {
        HealthIndicator indicator = (HealthIndicator) health.getContributor("groupkeeper");
        assertThat(indicator).isNotNull();
        // The second context's member may have led the group: wait until one of ours took over.
        await().atMost(WAIT)
                .until(() -> containers.container("billing").workers().stream().anyMatch(w -> w.leader()));
        var up = indicator.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        @SuppressWarnings("unchecked")
        Map<String, Object> billingDetails =
                (Map<String, Object>) ((Map<String, Object>) up.getDetails().get("listeners")).get("billing");
        assertThat(billingDetails).containsEntry("group", GROUP).containsEntry("state", "RUNNING");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> members = (List<Map<String, Object>>) billingDetails.get("members");
        assertThat(members).hasSize(2).allSatisfy(m -> assertThat(m).containsKeys("member", "leader", "partitions"));
        assertThat(members.stream().filter(m -> Boolean.TRUE.equals(m.get("leader"))))
                .hasSize(1);
        assertThat(members.stream()
                        .mapToInt(m -> ((List<?>) m.get("partitions")).size())
                        .sum())
                .isEqualTo(4);

        // Issue 36 defect 6: a listener stopped on purpose is said, not unhealthy; and it starts again.
        ListenerContainer<?, ?> c = containers.container("billing");
        assertThat(c.stop(Duration.ofSeconds(10))).isTrue();
        assertThat(c.state()).isEqualTo(ContainerState.STOPPED);
        var stopped = indicator.health();
        assertThat(stopped.getStatus()).isEqualTo(Status.UP);
        assertThat(stopped.getDetails()).containsEntry("stoppedListeners", List.of("billing"));
        c.start();
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
        await().atMost(WAIT)
                .until(() ->
                        c.workers().stream().mapToInt(w -> w.owned().size()).sum() > 0);
        assertThat(indicator.health().getDetails()).doesNotContainKey("stoppedListeners");
    }

    static ConsumerRecord<String, String> readOne(String topic) {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SharedServers.get().bootstrapServers()),
                new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(10))
                    .forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            await().atMost(WAIT).pollInSameThread().until(() -> {
                c.poll(Duration.ofMillis(100)).forEach(out::add);
                return !out.isEmpty();
            });
            return out.get(0);
        }
    }

    static String header(ConsumerRecord<?, ?> r, String key) {
        return new String(r.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
    }
}

package io.groupkeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaTest {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        long t0 = System.nanoTime();
        kafka = EmbeddedKafka.builder()
                // The benchmark use case: a broker-side KIP-848 heartbeat interval below the 5 s default.
                .brokerProperty("group.consumer.min.heartbeat.interval.ms", "500")
                .brokerProperty("group.consumer.heartbeat.interval.ms", "1000")
                .build()
                .start();
        System.out.println("[timing] EmbeddedKafka start: " + TestSupport.millisSince(t0) + " ms");
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            Path dir = kafka.dataDir();
            long t0 = System.nanoTime();
            kafka.close();
            System.out.println("[timing] EmbeddedKafka close: " + TestSupport.millisSince(t0) + " ms");
            assertThat(dir).doesNotExist();
        }
    }

    @Test
    void producesAndConsumesTenRecordsOnAThreePartitionTopic() {
        assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + kafka.port());
        long t0 = System.nanoTime();
        kafka.createTopic("orders", 3);
        System.out.println("[timing] createTopic(orders, 3): " + TestSupport.millisSince(t0) + " ms");

        Map<String, Object> producerProps = kafka.clientProperties();
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("orders", i % 3, "k" + i, "v" + i));
            }
            producer.flush();
        }

        List<TopicPartition> partitions = IntStream.range(0, 3)
                .mapToObj(p -> new TopicPartition("orders", p))
                .toList();
        Map<String, Object> consumerProps = kafka.clientProperties();
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            partitions.forEach(tp -> consumer.seek(tp, 0));
            await().atMost(Duration.ofSeconds(20)).pollInSameThread().until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
                return received.size() >= 10;
            });
        }
        assertThat(received)
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrder(
                        IntStream.range(0, 10).mapToObj(i -> "v" + i).toArray(String[]::new));
        assertThat(received)
                .allSatisfy(r -> assertThat(r.partition())
                        .isEqualTo(Integer.parseInt(r.key().substring(1)) % 3));
        assertThat(received).extracting(ConsumerRecord::partition).containsOnly(0, 1, 2);
    }

    @Test
    void brokerPropertyOverridesAndDefaultsReachTheBroker() throws Exception {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Config config = admin.describeConfigs(Set.of(broker))
                    .all()
                    .get(10, TimeUnit.SECONDS)
                    .get(broker);
            assertThat(config.get("group.consumer.heartbeat.interval.ms").value())
                    .isEqualTo("1000");
            assertThat(config.get("group.initial.rebalance.delay.ms").value()).isEqualTo("0");
            assertThat(config.get("auto.create.topics.enable").value()).isEqualTo("false");
            assertThat(config.get("offsets.topic.replication.factor").value()).isEqualTo("1");
            assertThat(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS))
                    .hasSize(1);
        }
    }

    @Test
    void createTopicFailsForAnExistingTopicAndBadArguments() {
        kafka.createTopic("twice", 1);
        assertThatThrownBy(() -> kafka.createTopic("twice", 1))
                .isInstanceOf(EmbeddedServerException.class)
                .hasCauseInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> kafka.createTopic("zero", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitions");
        assertThatThrownBy(() -> kafka.createTopic(" ", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic name");
    }

    @Test
    void retriesWithFreshPortsWhenAnAutomaticPortIsTakenBeforeTheBrokerBindsIt() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            AtomicInteger picks = new AtomicInteger();
            // The first "free" port handed out is already bound, as if another process won the race.
            IntSupplier racyPorts = () -> picks.getAndIncrement() == 0 ? taken.getLocalPort() : Ports.freePort();
            try (EmbeddedKafka second =
                    EmbeddedKafka.builder().freePorts(racyPorts).build().start()) {
                assertThat(second.port()).isNotEqualTo(taken.getLocalPort());
                assertThat(picks.get()).isGreaterThanOrEqualTo(4); // two ports per attempt
                second.createTopic("after-retry", 1);
            }
        }
    }

    @Test
    void aGivenLogDirStartsAgainOnTheSamePortsWithItsDataAndClusterId(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        String clusterId;
        int port;
        int controllerPort;
        try (EmbeddedKafka first = EmbeddedKafka.builder().logDir(dir).build().start()) {
            first.createTopic("kept", 1);
            try (KafkaProducer<String, String> p =
                    new KafkaProducer<>(first.clientProperties(), new StringSerializer(), new StringSerializer())) {
                p.send(new ProducerRecord<>("kept", "k", "v")).get(30, TimeUnit.SECONDS);
            }
            clusterId = first.clusterId();
            port = first.port();
            controllerPort = first.controllerPort();
        }
        try (EmbeddedKafka again = EmbeddedKafka.builder()
                        .logDir(dir)
                        .port(port)
                        .controllerPort(controllerPort)
                        .build()
                        .start();
                Admin admin = Admin.create(again.clientProperties())) {
            assertThat(again.clusterId()).isEqualTo(clusterId);
            TopicPartition tp = new TopicPartition("kept", 0);
            assertThat(admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .get(tp)
                            .offset())
                    .isEqualTo(1);
        }
    }

    @Test
    void rejectsBadOptionsNamingThem() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().port(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port")
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> EmbeddedKafka.builder().controllerPort(70_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("controllerPort");
        assertThatThrownBy(() -> EmbeddedKafka.builder()
                        .port(19092)
                        .controllerPort(19092)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("controllerPort");
        assertThatThrownBy(() -> EmbeddedKafka.builder().brokerProperty("listeners", "PLAINTEXT://:9092"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listeners");
        assertThatThrownBy(() -> EmbeddedKafka.builder()
                        .brokerProperty("num.io.threads", "-1")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("num.io.threads");
        assertThatThrownBy(() -> EmbeddedKafka.builder()
                        .brokerProperty("group.consumer.heartbeat.interval.ms", "100")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heartbeat");
        assertThatThrownBy(() -> EmbeddedKafka.builder().startTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("startTimeout");
    }
}

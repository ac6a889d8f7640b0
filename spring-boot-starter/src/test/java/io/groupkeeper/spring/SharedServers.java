package io.groupkeeper.spring;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.spring.app.TestApp;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** One in-process ZooKeeper + Kafka for every test class of this module (started on first use, stopped at exit). */
final class SharedServers {
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static EmbeddedServers servers;
    private static KafkaProducer<String, String> producer;

    private SharedServers() {}

    static synchronized EmbeddedServers get() {
        if (servers == null) {
            servers = EmbeddedServers.startDefault();
            producer = new KafkaProducer<>(
                    Map.of(
                            "bootstrap.servers",
                            servers.bootstrapServers(),
                            "acks",
                            "1",
                            "enable.idempotence",
                            false,
                            "linger.ms",
                            0),
                    new StringSerializer(),
                    new StringSerializer());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                producer.close(Duration.ofSeconds(2));
                servers.close();
            }));
        }
        return servers;
    }

    static String name(String prefix) {
        return prefix + NAMES.incrementAndGet() + "-" + System.nanoTime() % 100000;
    }

    /** A new topic, awaited until every partition answers ListOffsets. */
    static String topic(int partitions) {
        String t = name("t");
        get().kafka().createTopic(t, partitions);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                q.put(new TopicPartition(t, p), OffsetSpec.latest());
            }
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> admin.listOffsets(q).all().get().size() == partitions);
        }
        return t;
    }

    /**
     * A {@code TestApp} context on the shared servers, listening to {@code topic} as {@code group} (the batch listener
     * as {@code <group>-audit}): one consumer per listener, from the earliest offset, dead-letter topics created;
     * {@code extra} properties over these.
     */
    static ConfigurableApplicationContext startApp(String topic, String group, Map<String, Object> extra) {
        Map<String, Object> p = new HashMap<>(Map.of(
                "groupkeeper.zookeeper.connect", get().zkConnectString(),
                "spring.kafka.bootstrap-servers", get().bootstrapServers(),
                "spring.kafka.producer.acks", "1",
                "spring.kafka.producer.properties.enable.idempotence", "false",
                "groupkeeper.listener.start-position", "earliest",
                "groupkeeper.listener.dead-letter.create-topics", "true",
                "groupkeeper.listener.stop-deadline", "5s",
                "app.topic", topic,
                "app.group", group,
                "app.concurrency", "1"));
        p.putAll(extra);
        return new SpringApplicationBuilder(TestApp.class)
                .web(WebApplicationType.NONE)
                .properties(p)
                .run();
    }

    static void send(String topic, Integer partition, String value) {
        try {
            producer.send(new ProducerRecord<>(topic, partition, "k-" + value, value))
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException("produce to " + topic + " failed", e);
        }
    }
}

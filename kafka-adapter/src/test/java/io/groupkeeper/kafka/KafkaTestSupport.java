package io.groupkeeper.kafka;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.fixtures.Keepers;
import io.groupkeeper.fixtures.RawZk;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.kafka.internal.DefaultCoordinatedConsumer;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * Real in-process ZooKeeper + Kafka, started once per test class; fresh topic and group names per test; a producer,
 * an Admin client and a raw ZooKeeper client (for "hand edits") to drive and observe the group.
 */
abstract class KafkaTestSupport {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);
    static final Duration WAIT = Duration.ofSeconds(30);

    static EmbeddedServers servers;
    static KafkaProducer<String, String> producer;
    static Admin admin;
    static ZooKeeperStore zk;

    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        servers = EmbeddedServers.startDefault();
        producer = new KafkaProducer<>(
                producerConfig(servers.bootstrapServers()), new StringSerializer(), new StringSerializer());
        admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()));
        zk = ZooKeeperStore.builder().connectString(servers.zkConnectString()).build();
        zk.start();
    }

    /**
     * acks=1, not idempotent: on this single-broker cluster it is as durable as acks=all, and it avoids a broker quirk
     * right after topic creation (a produce waiting in purgatory is answered NOT_LEADER_OR_FOLLOWER although it was
     * appended; the idempotent producer's retry then fails with OutOfOrderSequence until its delivery timeout).
     */
    static Map<String, Object> producerConfig(String bootstrap) {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "1",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                false,
                ProducerConfig.LINGER_MS_CONFIG,
                0,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                1);
    }

    @AfterAll
    static void stopServers() {
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
        zk.close();
        servers.close();
    }

    @AfterEach
    void closeAll() {
        Keepers.closeQuietly(toClose);
    }

    static String newName(String prefix) {
        return TestNames.unique(prefix);
    }

    static String newTopic(int partitions) {
        String topic = newName("t");
        servers.kafka().createTopic(topic, partitions);
        awaitWritable(topic, partitions);
        return topic;
    }

    /** Waits until every partition's leader answers a ListOffsets (the topic accepts writes). */
    static void awaitWritable(String topic, int partitions) {
        Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> query =
                new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            query.put(
                    new org.apache.kafka.common.TopicPartition(topic, p),
                    org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> admin.listOffsets(query).all().get().size() == partitions);
    }

    GroupKeeper newKeeper() {
        return Keepers.started(
                ZooKeeperStore.builder()
                        .connectString(servers.zkConnectString())
                        .sessionTimeout(SESSION_TIMEOUT)
                        .build(),
                toClose);
    }

    /** A builder with String deserializers, the embedded bootstrap and a short commit interval. */
    static CoordinatedConsumer.Builder<String, String> consumer(GroupKeeper keeper, String group, String... topics) {
        return CoordinatedConsumer.<String, String>builder(keeper)
                .group(group)
                .topics(topics)
                .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .commitInterval(Duration.ofMillis(200))
                .metadataRefreshInterval(Duration.ofMillis(500));
    }

    /** Produces {@code count} records round-robin over {@code partitions} partitions; returns their values. */
    static List<String> produce(String topic, int partitions, int count) {
        List<String> values = new ArrayList<>();
        try {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String value = topic + "#" + TestNames.next();
                values.add(value);
                sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, value)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("produce to " + topic + " failed", e);
        }
        return values;
    }

    /** Produces one record to one partition with a given timestamp; returns its value. */
    static String produceAt(String topic, int partition, long timestamp) {
        String value = topic + "#" + TestNames.next();
        try {
            producer.send(new ProducerRecord<>(topic, partition, timestamp, "k", value))
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException("produce to " + topic + " failed", e);
        }
        return value;
    }

    /** The stored offset, read straight from ZooKeeper (empty: no node or no offset). */
    static OptionalLong storedOffset(String group, String topic, int partition) throws Exception {
        // zk.curator() works in the store's namespace, so the path is the store's own (no /groupkeeper prefix).
        return RawZk.readOffset(
                zk.curator(), ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(topic, partition)));
    }

    /** An operator's hand edit in zkCli: {@code set .../offsets/<topic>/<p> <offset>} (creates the node if missing). */
    static void handEdit(String group, String topic, int partition, long offset) throws Exception {
        RawZk.writeOffset(
                zk.curator(), ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(topic, partition)), offset);
    }

    static void awaitAssigned(CoordinatedConsumer<?, ?> consumer, int partitions) {
        await().atMost(WAIT).until(() -> consumer.assignment().size() == partitions);
    }

    /** Captures WARN+ lines of the adapter's consumer logger. */
    static ListAppender<ILoggingEvent> captureWarnings() {
        return captureWarnings(DefaultCoordinatedConsumer.class);
    }

    static ListAppender<ILoggingEvent> captureWarnings(Class<?> source) {
        return captureWarnings(source.getName());
    }

    /** As {@link #captureWarnings(Class)}, for a logger by name (a package-private class's). */
    static ListAppender<ILoggingEvent> captureWarnings(String source) {
        Logger logger = (Logger) LoggerFactory.getLogger(source);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        return appender;
    }

    /**
     * A line as the documented pattern prints it: {@code %X{group}/%X{member} - %msg} (the MDC keys the core and the
     * adapter both set; issue 36 defect 9).
     */
    static String rendered(ILoggingEvent e) {
        Map<String, String> mdc = e.getMDCPropertyMap();
        return mdc.getOrDefault("group", "") + "/" + mdc.getOrDefault("member", "") + " - " + e.getFormattedMessage();
    }

    /** Whether {@code line} (see {@link #rendered}) names {@code group} and a member in its logging context. */
    static boolean namesGroupAndMember(String line, String group) {
        return line.matches("^" + java.util.regex.Pattern.quote(group) + "/[^ /]+ - (?s).*");
    }

    static List<String> warnings(ListAppender<ILoggingEvent> appender) {
        List<String> out = new ArrayList<>();
        synchronized (appender) {
            for (ILoggingEvent e : appender.list) {
                if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
                    out.add(rendered(e));
                }
            }
        }
        return out;
    }

    static void stopCapture(ListAppender<ILoggingEvent> appender) {
        stopCapture(appender, DefaultCoordinatedConsumer.class);
    }

    static void stopCapture(ListAppender<ILoggingEvent> appender, Class<?> source) {
        stopCapture(appender, source.getName());
    }

    static void stopCapture(ListAppender<ILoggingEvent> appender, String source) {
        ((Logger) LoggerFactory.getLogger(source)).detachAppender(appender);
    }
}

package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.RawZk;
import io.groupkeeper.fixtures.TestNames;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Drives the CLI in-process ({@link GroupkeeperCli#run} with captured output) against the shared real ZooKeeper and
 * Kafka, and offers the helpers tests need to set up and observe groups the way members and other systems write them.
 */
@ExtendWith(SharedServers.class)
abstract class CliTestSupport {

    static CuratorFramework raw;
    static Admin kafkaAdmin;

    /** The outcome of one command line. */
    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\\R"));
        }

        /** Asserts success and returns stdout. */
        String ok() {
            assertThat(exit).as("exit code; stderr: %s", err).isZero();
            assertThat(err).as("stderr").isEmpty();
            return out;
        }

        /** Asserts a failure with exactly one line on stderr, nothing on stdout; returns that line. */
        String failed(int code) {
            assertThat(exit).as("exit code; stdout: %s stderr: %s", out, err).isEqualTo(code);
            assertThat(out).as("stdout").isEmpty();
            assertThat(errLines()).as("stderr").hasSize(1);
            assertThat(err).startsWith("error: ");
            return errLines().get(0);
        }
    }

    @BeforeAll
    static void connect() throws Exception {
        raw = RawZk.connect(SharedServers.zk());
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedServers.bootstrap());
        kafkaAdmin = Admin.create(p);
    }

    @AfterAll
    static void disconnect() {
        raw.close();
        kafkaAdmin.close();
    }

    static String unique(String prefix) {
        return TestNames.unique(prefix);
    }

    static String zk() {
        return SharedServers.zk();
    }

    static String bootstrap() {
        return SharedServers.bootstrap();
    }

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = GroupkeeperCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    /** The command line plus {@code --zk <shared>}. */
    static Result gk(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--zk";
        all[args.length + 1] = zk();
        return cli(all);
    }

    /** The command line plus {@code --zk <shared> --bootstrap <shared>}. */
    static Result gkb(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 4);
        all[args.length] = "--zk";
        all[args.length + 1] = zk();
        all[args.length + 2] = "--bootstrap";
        all[args.length + 3] = bootstrap();
        return cli(all);
    }

    // ------------------------------------------------------------------ Kafka

    /** A Kafka topic with {@code partitions}, also registered in groupkeeper's topic registry (for members). */
    static void topic(String name, int partitions) {
        SharedServers.kafka().createTopic(name, partitions);
        registerTopic(name, partitions);
    }

    static void registerTopic(String name, int partitions) {
        try (ZooKeeperStore s = ZooKeeperStore.builder().connectString(zk()).build()) {
            s.start();
            s.topics().ensureTopic(name, partitions);
        }
    }

    /** Produces {@code count} records to a partition; record i gets timestamp {@code timestamp.applyAsLong(i)}. */
    static void produce(String topic, int partition, int count, IntToLongFunction timestamp) {
        produce(topic, partition, count, timestamp, 16384);
    }

    /** As above, with the producer's batch size in bytes (small batches make small fetches possible). */
    static void produce(String topic, int partition, int count, IntToLongFunction timestamp, int batchBytes) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(batchBytes));
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(
                        topic, partition, timestamp.applyAsLong(i), null, topic + "-" + partition + "-" + i));
            }
            producer.flush();
        }
    }

    /** Moves a partition's log start to {@code offset} (as retention would). */
    static void deleteRecordsBefore(String topic, int partition, long offset) throws Exception {
        kafkaAdmin
                .deleteRecords(Map.of(
                        new org.apache.kafka.common.TopicPartition(topic, partition),
                        RecordsToDelete.beforeOffset(offset)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ ZooKeeper

    static String groupPath(String group) {
        return ZkLayout.group(group);
    }

    static String offsetPath(String group, TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }

    /** Offsets written as a member writes them: the group's nodes, then one JSON offset node per partition. */
    static void seed(String group, Map<TopicPartition, Long> offsets) throws Exception {
        try (ZooKeeperStore s = ZooKeeperStore.builder().connectString(zk()).build()) {
            s.start();
            GroupStores.of(s, group).ensureGroup("sticky");
        }
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            byte[] body = NodeCodec.offset(new NodeCodec.OffsetBody(
                    OptionalLong.of(e.getValue()),
                    "",
                    java.util.Optional.of("m-seed"),
                    1,
                    java.util.Optional.of(Instant.now())));
            RawZk.write(raw, offsetPath(group, e.getKey()), body);
        }
    }

    static OptionalLong stored(String group, TopicPartition tp) throws Exception {
        return RawZk.readOffset(raw, offsetPath(group, tp));
    }

    /** Every node below the namespace with its data and the zxid of its last change: equal snapshots = nothing written. */
    static Map<String, String> snapshot() throws Exception {
        return snapshot(ZkLayout.ROOT);
    }

    /** As {@link #snapshot()} for the subtree at {@code root} (empty if it does not exist). */
    static Map<String, String> snapshot(String root) throws Exception {
        Map<String, String> all = new TreeMap<>();
        List<String> level = new ArrayList<>(List.of(root));
        while (!level.isEmpty()) {
            List<String> next = new ArrayList<>();
            for (String path : level) {
                Stat stat = new Stat();
                try {
                    byte[] data = raw.getData().storingStatIn(stat).forPath(path);
                    all.put(
                            path,
                            stat.getMzxid() + "/" + stat.getCversion() + ":"
                                    + (data == null ? "" : new String(data, StandardCharsets.UTF_8)));
                    for (String c : raw.getChildren().forPath(path)) {
                        next.add(path + "/" + c);
                    }
                } catch (KeeperException.NoNodeException e) {
                    // not there
                }
            }
            level = next;
        }
        return all;
    }

    /** The cells of the table row whose first two cells are {@code first} and {@code second} (cells: 2+ spaces apart). */
    static List<String> row(String out, String first, Object second) {
        for (String line : out.split("\\R")) {
            String[] cells = line.split("\\s{2,}");
            if (cells.length >= 2 && cells[0].equals(first) && cells[1].equals(String.valueOf(second))) {
                return List.of(cells);
            }
        }
        throw new AssertionError("no row " + first + " " + second + " in:\n" + out);
    }

    static Map<TopicPartition, Long> offsetsOf(String topic, long... values) {
        Map<TopicPartition, Long> m = new HashMap<>();
        for (int p = 0; p < values.length; p++) {
            m.put(new TopicPartition(topic, p), values[p]);
        }
        return m;
    }
}

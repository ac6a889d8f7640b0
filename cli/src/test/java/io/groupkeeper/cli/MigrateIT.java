package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each migration source, written into ZooKeeper (or Kafka) exactly as that system wrote it: Storm's storm-kafka
 * KafkaSpout (both layouts), Kafka's old ZooKeeper consumer, and a Kafka consumer group (both directions).
 */
class MigrateIT extends CliTestSupport {

    private static String topic;

    /** intsmazeX: partition 0 holds 4 records, partition 1 holds 10, partition 2 is empty. */
    @BeforeAll
    static void data() {
        topic = unique("intsmazeX");
        topic(topic, 3);
        produce(topic, 0, 4, i -> System.currentTimeMillis());
        produce(topic, 1, 10, i -> System.currentTimeMillis());
    }

    /** As Storm's ZkState.writeJSON: a JSON object serialised by json-simple, written with Curator. */
    private static void stormNode(String path, String topicName, int partition, long offset) throws Exception {
        String json = "{\"topology\":{\"id\":\"onetest-3-1480000000\",\"name\":\"onetest\"},\"offset\":" + offset
                + ",\"partition\":" + partition
                + ",\"broker\":{\"host\":\"kafka-1.example\",\"port\":6667},\"topic\":\""
                + topicName + "\"}";
        write(path, json);
    }

    private static void write(String path, String body) throws Exception {
        raw.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT)
                .forPath(path, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void stormKafkaSpoutNodesAreMigratedAndOffsetsPastTheLogEndClamped() throws Exception {
        String root = "/" + unique("kafka-offset");
        String spout = "onetest";
        stormNode(root + "/" + spout + "/partition_0", topic, 0, 6); // the log ends at 4
        stormNode(root + "/" + spout + "/partition_1", topic, 1, 8);
        stormNode(root + "/" + spout + "/partition_2", topic, 2, 7000); // the log is empty
        String group = unique("storm");
        String[] args = {
            "migrate", "storm-kafka", "--storm-zk", zk(), "--zk-root", root, "--spout-id", spout, "--group", group
        };

        String dry = gkb(args).ok();
        assertThat(dry)
                .startsWith("Plan: migrate storm-kafka of group " + group + " (from storm-kafka " + zk() + " " + root
                        + "/onetest), dry run");
        assertThat(row(dry, topic, 0)).containsExactly(topic, "0", "-", "4", "-", "clamped from 6 to log end 4");
        assertThat(row(dry, topic, 1)).containsExactly(topic, "1", "-", "8", "-", "-");
        assertThat(row(dry, topic, 2)).containsExactly(topic, "2", "-", "0", "-", "clamped from 7000 to log end 0");
        assertThat(raw.checkExists().forPath(groupPath(group))).as("dry run").isNull();

        String[] execute = java.util.Arrays.copyOf(args, args.length + 1);
        execute[args.length] = "--execute";
        assertThat(gkb(execute).ok()).contains("Wrote 3 offset(s) in one ZooKeeper transaction.");
        assertThat(stored(group, new TopicPartition(topic, 0))).hasValue(4);
        assertThat(stored(group, new TopicPartition(topic, 1))).hasValue(8);
        assertThat(stored(group, new TopicPartition(topic, 2))).hasValue(0);
        assertThat(gk("groups", "describe", "--group", group).ok()).contains("admin:migrate:storm-kafka");
    }

    @Test
    void stormKafkaTopicLayoutAndTopicFilter() throws Exception {
        String other = unique("other");
        topic(other, 1);
        produce(other, 0, 3, i -> System.currentTimeMillis());
        String root = "/" + unique("storm-root");
        stormNode(root + "/multi/" + topic + "/partition_0", topic, 0, 2);
        stormNode(root + "/multi/" + topic + "/partition_1", topic, 1, 9);
        stormNode(root + "/multi/" + other + "/partition_0", other, 0, 3);
        String group = unique("storm-multi");
        String out = gkb(
                        "migrate",
                        "storm-kafka",
                        "--storm-zk",
                        zk(),
                        "--zk-root",
                        root,
                        "--spout-id",
                        "multi",
                        "--group",
                        group,
                        "--execute")
                .ok();
        assertThat(row(out, topic, 1)).startsWith(topic, "1", "-", "9");
        assertThat(row(out, other, 0)).startsWith(other, "0", "-", "3");
        assertThat(stored(group, new TopicPartition(topic, 0))).hasValue(2);

        String only = unique("storm-one");
        gkb(
                        "migrate",
                        "storm-kafka",
                        "--storm-zk",
                        zk(),
                        "--zk-root",
                        root,
                        "--spout-id",
                        "multi",
                        "--group",
                        only,
                        "--topic",
                        other,
                        "--execute")
                .ok();
        assertThat(gk("offsets", "export", "--group", only).ok()).isEqualTo(other + ",0,3\n");
    }

    @Test
    void aForeignStormNodeIsNamedAndNothingIsWritten() throws Exception {
        String root = "/" + unique("storm-bad");
        stormNode(root + "/s/partition_0", topic, 0, 1);
        write(root + "/s/partition_1", "not json");
        Map<String, String> before = snapshot();
        assertThat(gkb(
                                "migrate",
                                "storm-kafka",
                                "--storm-zk",
                                zk(),
                                "--zk-root",
                                root,
                                "--spout-id",
                                "s",
                                "--group",
                                unique("x"),
                                "--execute")
                        .failed(1))
                .isEqualTo("error: Storm node " + root + "/s/partition_1 is not JSON: 'not json'");
        assertThat(gkb(
                                "migrate",
                                "storm-kafka",
                                "--storm-zk",
                                zk(),
                                "--zk-root",
                                root,
                                "--spout-id",
                                "nope",
                                "--group",
                                unique("x"))
                        .failed(1))
                .isEqualTo("error: no Storm KafkaSpout offsets at " + zk() + " " + root
                        + "/nope (check --zk-root and --spout-id)");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void kafkasOldZooKeeperConsumerOffsets() throws Exception {
        String old = unique("old-consumer");
        // As Kafka 0.8's ZookeeperConsumerConnector (ZkUtils.updatePersistentPath): the offset as a plain string.
        write("/consumers/" + old + "/offsets/" + topic + "/0", "3");
        write("/consumers/" + old + "/offsets/" + topic + "/1", "10");
        write(
                "/consumers/" + old + "/ids/" + old + "_host-1",
                "{\"version\":1,\"subscription\":{\"" + topic + "\":1}}");
        String group = unique("from-old");
        String out = gkb("migrate", "kafka-zk", "--kafka-group", old, "--group", group, "--execute")
                .ok();
        assertThat(out)
                .startsWith("Applied migrate kafka-zk of group " + group + " (from kafka-zk " + zk() + " /consumers/"
                        + old + "/offsets)");
        assertThat(gk("offsets", "export", "--group", group).ok()).isEqualTo(topic + ",0,3\n" + topic + ",1,10\n");

        write("/consumers/" + old + "-bad/offsets/" + topic + "/0", "three");
        assertThat(gkb("migrate", "kafka-zk", "--kafka-group", old + "-bad", "--group", unique("x"))
                        .failed(1))
                .isEqualTo("error: Kafka offset node /consumers/" + old + "-bad/offsets/" + topic
                        + "/0 is not a number: 'three'");
    }

    @Test
    void kafkaConsumerGroupOffsetsBothWays() throws Exception {
        String kafkaGroup = unique("kafka-native");
        kafkaAdmin
                .alterConsumerGroupOffsets(
                        kafkaGroup,
                        Map.of(
                                new org.apache.kafka.common.TopicPartition(topic, 0), new OffsetAndMetadata(2),
                                new org.apache.kafka.common.TopicPartition(topic, 1), new OffsetAndMetadata(7)))
                .all()
                .get(30, TimeUnit.SECONDS);
        String group = unique("from-kafka");
        String out = gkb("migrate", "kafka-native", "--kafka-group", kafkaGroup, "--group", group, "--execute")
                .ok();
        assertThat(row(out, topic, 1)).startsWith(topic, "1", "-", "7");
        assertThat(gk("offsets", "export", "--group", group).ok()).isEqualTo(topic + ",0,2\n" + topic + ",1,7\n");

        // And back: the groupkeeper group's offsets into another Kafka consumer group.
        gkb("offsets", "reset", "--group", group, "--topic", topic + ":1", "--to-offset", "9", "--execute")
                .ok();
        String target = unique("to-kafka");
        String dry = gkb("migrate", "kafka-native", "--to-kafka", "--kafka-group", target, "--group", group)
                .ok();
        assertThat(row(dry, topic, 1)).startsWith(topic, "1", "-", "9");
        assertThat(kafkaAdmin
                        .listConsumerGroupOffsets(target)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS))
                .as("dry run")
                .isEmpty();
        gkb("migrate", "kafka-native", "--to-kafka", "--kafka-group", target, "--group", group, "--execute")
                .ok();
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> written = kafkaAdmin
                .listConsumerGroupOffsets(target)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        assertThat(written.get(new org.apache.kafka.common.TopicPartition(topic, 0))
                        .offset())
                .isEqualTo(2);
        assertThat(written.get(new org.apache.kafka.common.TopicPartition(topic, 1))
                        .offset())
                .isEqualTo(9);

        assertThat(gk("migrate", "kafka-native", "--kafka-group", kafkaGroup, "--group", group)
                        .failed(2))
                .contains("migrate kafka-native needs --bootstrap");
    }

    @Test
    void offsetsOutsideTheLogAreClampedOnTheWayToKafkaAndTheOutputSaysWhereTheyWent() throws Exception {
        String group = unique("outside");
        // As given, no clamp: partition 0 holds 4 records, partition 1 holds 10.
        Path file = Files.createTempFile("outside", ".csv");
        Files.writeString(file, topic + ",0,6\n" + topic + ",1,3\n");
        gk("offsets", "import", "--group", group, "--from-file", file.toString(), "--execute")
                .ok();
        String target = unique("clamped");
        String out = gkb(
                        "migrate", "kafka-native", "--to-kafka", "--kafka-group", target, "--group", group, "--execute")
                .ok();
        assertThat(row(out, topic, 0)).startsWith(topic, "0", "-", "4");
        assertThat(out)
                .contains("clamped from 6 to log end 4")
                .contains("Wrote 2 offset(s) in one Kafka OffsetCommit request.")
                .doesNotContain("ZooKeeper transaction");
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> written = kafkaAdmin
                .listConsumerGroupOffsets(target)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        assertThat(written.get(new org.apache.kafka.common.TopicPartition(topic, 0))
                        .offset())
                .isEqualTo(4);
        assertThat(written.get(new org.apache.kafka.common.TopicPartition(topic, 1))
                        .offset())
                .isEqualTo(3);
    }
}

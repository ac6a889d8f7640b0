package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads the offsets of Kafka's old ZooKeeper-based consumer (0.8–0.10 high-level consumer):
 * {@code /consumers/<group>/offsets/<topic>/<partition>}, each a plain decimal number, the next offset to consume.
 */
public final class KafkaZkOffsets {

    private KafkaZkOffsets() {}

    /** Reads every offset of {@code kafkaGroup}; {@code topicFilter}, if present, keeps only that topic. */
    public static SourceOffsets read(ZkSource zk, String kafkaGroup, Optional<String> topicFilter) {
        if (kafkaGroup == null || kafkaGroup.isBlank() || kafkaGroup.contains("/")) {
            throw new AdminException("invalid Kafka consumer group '" + kafkaGroup + "'");
        }
        String base = "/consumers/" + kafkaGroup + "/offsets";
        ZkReader r = zk.reader();
        Optional<List<String>> topics = r.children(List.of(base)).get(base);
        if (topics.isEmpty()) {
            throw new AdminException(
                    "no offsets of Kafka consumer group '" + kafkaGroup + "' at " + zk.connectString() + " " + base);
        }
        List<String> folders = new ArrayList<>();
        for (String t : topics.get()) {
            if (topicFilter.isEmpty() || topicFilter.get().equals(t)) {
                folders.add(base + "/" + t);
            }
        }
        List<String> nodes = new ArrayList<>();
        r.children(folders).forEach((folder, kids) -> kids.orElse(List.of()).forEach(k -> nodes.add(folder + "/" + k)));
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        r.data(nodes).forEach((path, node) -> {
            if (node.isEmpty()) {
                return;
            }
            String rel = path.substring(base.length() + 1);
            String topic = rel.substring(0, rel.indexOf('/'));
            String partition = rel.substring(rel.indexOf('/') + 1);
            if (!Names.isValid(topic)) {
                throw new AdminException("Kafka offset node " + path + ": invalid topic '" + topic + "'");
            }
            int p;
            try {
                p = Integer.parseInt(partition);
            } catch (NumberFormatException e) {
                throw new AdminException(
                        "Kafka offset node " + path + ": '" + partition + "' is not a partition number");
            }
            String text =
                    node.get().data() == null ? "" : new String(node.get().data(), StandardCharsets.UTF_8).strip();
            long offset;
            try {
                offset = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new AdminException("Kafka offset node " + path + " is not a number: "
                        + StormKafkaOffsets.abbreviate(node.get().data()));
            }
            if (offset < 0 || p < 0) {
                throw new AdminException("Kafka offset node " + path + ": offset must be >= 0, was " + offset);
            }
            TopicPartition tp = new TopicPartition(topic, p);
            offsets.put(tp, offset);
            origins.put(tp, path);
        });
        if (offsets.isEmpty()) {
            throw new AdminException(
                    "no offsets" + topicFilter.map(f -> " of topic " + f).orElse("") + " of Kafka consumer group '"
                            + kafkaGroup + "' at " + zk.connectString() + " " + base);
        }
        return new SourceOffsets("kafka-zk " + zk.connectString() + " " + base, offsets, origins);
    }
}

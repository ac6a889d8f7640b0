package io.groupkeeper.zkprotocol.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the offsets Storm's old {@code storm-kafka} {@code KafkaSpout} kept in ZooKeeper:
 * {@code <zkRoot>/<spoutId>/partition_N}, or {@code <zkRoot>/<spoutId>/<topic>/partition_N} (wildcard topics and
 * multi-topic spouts), each a JSON body like
 * {@code {"topology":{"id":"…","name":"…"},"offset":8,"partition":0,"broker":{"host":"…","port":6667},"topic":"t"}}.
 *
 * <p>The spout's {@code offset} is the first offset not yet completed (acked), i.e. the next offset to process — the
 * same convention as groupkeeper's, so it is taken as is.
 */
public final class StormKafkaOffsets {

    private static final Pattern PARTITION = Pattern.compile("partition_(\\d+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    private StormKafkaOffsets() {}

    /**
     * Reads every partition node of one spout. {@code topicFilter}, if present, keeps only that topic.
     *
     * @throws AdminException naming the node when a body is not what the spout writes, or when there is no such spout
     */
    public static SourceOffsets read(ZkSource zk, String zkRoot, String spoutId, Optional<String> topicFilter) {
        String root = normalize(zkRoot);
        if (spoutId == null || spoutId.isBlank() || spoutId.contains("/")) {
            throw new AdminException("the spout id must be the spout's id (one path segment), was '" + spoutId + "'");
        }
        String base = (root.equals("/") ? "" : root) + "/" + spoutId;
        ZkReader r = zk.reader();
        Optional<List<String>> children = r.children(List.of(base)).get(base);
        if (children.isEmpty()) {
            throw new AdminException(
                    "no Storm KafkaSpout offsets at " + zk.connectString() + " " + base,
                    AdminException.Remedy.CHECK_SOURCE_LOCATION,
                    null);
        }
        // Flat layout: partition_N directly below the spout; topic layout: <topic>/partition_N.
        Map<String, String> nodeTopicFolder = new HashMap<>();
        List<String> nodes = new ArrayList<>();
        List<String> topicFolders = new ArrayList<>();
        for (String c : children.get()) {
            if (PARTITION.matcher(c).matches()) {
                nodes.add(base + "/" + c);
            } else {
                topicFolders.add(c);
            }
        }
        r.children(topicFolders.stream().map(t -> base + "/" + t).toList()).forEach((folder, kids) -> {
            String topic = folder.substring(base.length() + 1);
            for (String k : kids.orElse(List.of())) {
                if (PARTITION.matcher(k).matches()) {
                    nodes.add(folder + "/" + k);
                    nodeTopicFolder.put(folder + "/" + k, topic);
                }
            }
        });
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        r.data(nodes).forEach((path, node) -> {
            if (node.isEmpty()) {
                return; // deleted meanwhile
            }
            Matcher m = PARTITION.matcher(path.substring(path.lastIndexOf('/') + 1));
            m.matches();
            int partitionFromName = parsePartition(path, m.group(1));
            JsonNode body = parse(path, node.get().data());
            JsonNode off = body.get("offset");
            if (off == null || !off.isIntegralNumber() || !off.canConvertToLong() || off.asLong() < 0) {
                throw new AdminException("Storm node " + path + ": \"offset\" must be an integer >= 0, was " + off);
            }
            JsonNode p = body.get("partition");
            if (p != null && !p.isNull() && (!p.isIntegralNumber() || p.asLong() != partitionFromName)) {
                throw new AdminException("Storm node " + path + ": \"partition\" is " + p
                        + " but the node is partition_" + partitionFromName);
            }
            String folderTopic = nodeTopicFolder.get(path);
            JsonNode t = body.get("topic");
            String bodyTopic = t != null && t.isTextual() ? t.asText() : null;
            if (folderTopic != null && bodyTopic != null && !folderTopic.equals(bodyTopic)) {
                throw new AdminException("Storm node " + path + ": \"topic\" is '" + bodyTopic
                        + "' but the node lies under topic '" + folderTopic + "'");
            }
            String topic = folderTopic != null ? folderTopic : bodyTopic;
            if (topic == null) {
                throw new AdminException("Storm node " + path + " names no \"topic\"");
            }
            if (!Names.isValid(topic)) {
                throw new AdminException("Storm node " + path + ": invalid topic '" + topic + "'");
            }
            if (topicFilter.isPresent() && !topicFilter.get().equals(topic)) {
                return;
            }
            TopicPartition tp = new TopicPartition(topic, partitionFromName);
            String previous = origins.put(tp, path);
            if (previous != null) {
                throw new AdminException("Storm offsets of " + tp + " found twice: " + previous + " and " + path);
            }
            offsets.put(tp, off.asLong());
        });
        if (offsets.isEmpty()) {
            throw new AdminException("no Storm KafkaSpout partition nodes"
                    + topicFilter.map(f -> " of topic " + f).orElse("") + " under " + zk.connectString() + " " + base);
        }
        return new SourceOffsets("storm-kafka " + zk.connectString() + " " + base, offsets, origins);
    }

    private static JsonNode parse(String path, byte[] data) {
        try {
            JsonNode n = JSON.readTree(data);
            if (n == null || !n.isObject()) {
                throw new AdminException("Storm node " + path + " is not a JSON object: " + abbreviate(data));
            }
            return n;
        } catch (IOException e) {
            throw new AdminException("Storm node " + path + " is not JSON: " + abbreviate(data));
        }
    }

    private static int parsePartition(String path, String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new AdminException("Storm node " + path + ": partition number out of range");
        }
    }

    static String normalize(String zkRoot) {
        if (zkRoot == null || zkRoot.isBlank()) {
            throw new AdminException("the spout's root path in ZooKeeper is required, e.g. /kafka-offset");
        }
        String r = zkRoot.strip();
        if (!r.startsWith("/")) {
            r = "/" + r;
        }
        while (r.length() > 1 && r.endsWith("/")) {
            r = r.substring(0, r.length() - 1);
        }
        return r;
    }

    static String abbreviate(byte[] data) {
        String s = data == null ? "" : new String(data, StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        return "'" + (s.length() <= 60 ? s : s.substring(0, 57) + "...") + "'";
    }
}

package io.groupkeeper.zkprotocol.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.status.CommitSample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes and decodes every node body as small, readable JSON. Decoding is strict about what it needs (field
 * present, right type, valid value) and lenient about what it does not (unknown fields are ignored, so newer
 * versions can add fields; a member's rack that fails the rack check is read as none, with a WARN). Every failure is a {@link CorruptNodeException} naming the path and the problem.
 *
 * <p>An offset node may also hold a plain number ({@code set .../offsets/orders/0 42} in zkCli): operators coming
 * from Kafka's old ZooKeeper consumer type exactly that, and it means what they think.
 */
public final class NodeCodec {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(NodeCodec.class);
    /** Node path and rack pairs already logged as unusable member racks. */
    private static final Set<String> WARNED_RACKS = ConcurrentHashMap.newKeySet();
    /** Offset nodes larger than this are not offsets; refuse before parsing, and never write one. */
    public static final int MAX_BODY = 64 * 1024;

    private NodeCodec() {}

    // ------------------------------------------------------------------ bodies

    public record GroupBody(Instant createdAt, String assignor) {}

    public record AssignmentBody(long generation, Optional<String> leader, Instant updatedAt, int members) {}

    public record TargetBody(long generation, SortedSet<TopicPartition> partitions, boolean isStatic) {}

    public record OwnerBody(String memberId, long generation, Instant since) {}

    /** How many recent commits an offset node keeps for lag status. */
    public static final int HISTORY = 10;

    /**
     * An offset node's body. {@code done}: the committer's done value, one JSON object written as it is into the body
     * beside {@code offset} (field {@code "done"}, last; absent when empty, so the body is then what it was before done
     * values existed) and read back as compact JSON text.
     */
    public record OffsetBody(
            OptionalLong offset,
            String metadata,
            Optional<String> committedBy,
            long generation,
            Optional<Instant> updatedAt,
            List<CommitSample> history,
            Optional<String> done) {
        public OffsetBody {
            history = history.size() <= HISTORY
                    ? List.copyOf(history)
                    : List.copyOf(history.subList(history.size() - HISTORY, history.size()));
            Objects.requireNonNull(done, "done");
        }

        public OffsetBody(
                OptionalLong offset,
                String metadata,
                Optional<String> committedBy,
                long generation,
                Optional<Instant> updatedAt,
                List<CommitSample> history) {
            this(offset, metadata, committedBy, generation, updatedAt, history, Optional.empty());
        }

        public OffsetBody(
                OptionalLong offset,
                String metadata,
                Optional<String> committedBy,
                long generation,
                Optional<Instant> updatedAt) {
            this(offset, metadata, committedBy, generation, updatedAt, List.of());
        }

        public static OffsetBody none() {
            return new OffsetBody(OptionalLong.empty(), "", Optional.empty(), 0, Optional.empty());
        }
    }

    /** {@code history} with one more sample appended; the body keeps the last {@link #HISTORY}. */
    public static List<CommitSample> append(List<CommitSample> history, CommitSample sample) {
        List<CommitSample> next = new ArrayList<>(history);
        next.add(sample);
        return next;
    }

    // ------------------------------------------------------------------ encode

    public static byte[] group(GroupBody b) {
        ObjectNode n = JSON.createObjectNode();
        n.put("createdAt", b.createdAt().toString());
        n.put("assignor", b.assignor());
        return bytes(n);
    }

    public static byte[] member(MemberInfo m) {
        ObjectNode n = JSON.createObjectNode();
        n.put("memberId", m.memberId());
        if (m.instanceId().isPresent()) {
            n.put("instanceId", m.instanceId().get());
        } else {
            n.putNull("instanceId");
        }
        n.put("host", m.host());
        ArrayNode topics = n.putArray("topics");
        m.topics().forEach(topics::add);
        n.put("joinedAt", m.joinedAt().toString());
        n.put("assignor", m.assignor());
        m.rack().ifPresent(r -> n.put("rack", r)); // absent when none: the node of a member older than racks
        return bytes(n);
    }

    public static byte[] assignment(AssignmentBody b) {
        ObjectNode n = JSON.createObjectNode();
        n.put("generation", b.generation());
        if (b.leader().isPresent()) {
            n.put("leader", b.leader().get());
        } else {
            n.putNull("leader");
        }
        n.put("updatedAt", b.updatedAt().toString());
        n.put("members", b.members());
        return bytes(n);
    }

    public static byte[] target(TargetBody b) {
        ObjectNode n = JSON.createObjectNode();
        n.put("generation", b.generation());
        ObjectNode partitions = n.putObject("partitions");
        SortedMap<String, ArrayNode> byTopic = new TreeMap<>();
        for (TopicPartition tp : b.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), partitions::putArray).add(tp.partition());
        }
        n.put("static", b.isStatic());
        return bytes(n);
    }

    public static byte[] owner(OwnerBody b) {
        ObjectNode n = JSON.createObjectNode();
        n.put("memberId", b.memberId());
        n.put("generation", b.generation());
        n.put("since", b.since().toString());
        return bytes(n);
    }

    /**
     * The body of an offset node.
     *
     * @throws IllegalArgumentException if its done value is not one JSON object, or the body would be larger than
     *                                  {@link #MAX_BODY} (no reader would take it)
     */
    public static byte[] offset(OffsetBody b) {
        ObjectNode n = JSON.createObjectNode();
        if (b.offset().isPresent()) {
            n.put("offset", b.offset().getAsLong());
        } else {
            n.putNull("offset");
        }
        n.put("metadata", b.metadata());
        if (b.committedBy().isPresent()) {
            n.put("committedBy", b.committedBy().get());
        } else {
            n.putNull("committedBy");
        }
        n.put("generation", b.generation());
        if (b.updatedAt().isPresent()) {
            n.put("updatedAt", b.updatedAt().get().toString());
        } else {
            n.putNull("updatedAt");
        }
        if (!b.history().isEmpty()) {
            ArrayNode history = n.putArray("history");
            for (CommitSample s : b.history()) {
                ArrayNode entry = history.addArray();
                entry.add(s.offset());
                if (s.logEnd().isPresent()) {
                    entry.add(s.logEnd().getAsLong());
                } else {
                    entry.addNull();
                }
                entry.add(s.at().toString());
            }
        }
        if (b.done().isPresent()) {
            n.set("done", doneValue(b.done().get()));
        }
        byte[] body = bytes(n);
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("offset node body of " + body.length + " bytes is over the limit of "
                    + MAX_BODY + " bytes (its done value takes "
                    + b.done().map(String::length).orElse(0)
                    + " characters); not written");
        }
        return body;
    }

    /** A done value as the JSON object it must be. */
    private static JsonNode doneValue(String done) {
        JsonNode v;
        try {
            v = JSON.reader()
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readTree(done);
        } catch (IOException e) {
            v = null;
        }
        if (v == null || !v.isObject()) {
            throw new IllegalArgumentException("done value must be one JSON object, was '" + abbreviate(done) + "'");
        }
        return v;
    }

    public static byte[] topic(int partitions) {
        ObjectNode n = JSON.createObjectNode();
        n.put("partitions", partitions);
        return bytes(n);
    }

    // ------------------------------------------------------------------ decode

    public static GroupBody group(String path, byte[] data) {
        JsonNode n = object(path, data);
        return new GroupBody(instant(path, n, "createdAt"), text(path, n, "assignor"));
    }

    public static MemberInfo member(String path, byte[] data) {
        JsonNode n = object(path, data);
        String memberId = name(path, text(path, n, "memberId"), "memberId");
        Optional<String> instanceId = optionalText(path, n, "instanceId").map(i -> name(path, i, "instanceId"));
        JsonNode topicsNode = n.get("topics");
        if (topicsNode == null || !topicsNode.isArray()) {
            throw new CorruptNodeException(path, "field 'topics' must be an array of topic names");
        }
        SortedSet<String> topics = new TreeSet<>();
        for (JsonNode t : topicsNode) {
            if (!t.isTextual()) {
                throw new CorruptNodeException(path, "field 'topics' must hold strings, found " + t);
            }
            topics.add(name(path, t.asText(), "topics"));
        }
        String host = optionalText(path, n, "host").orElse("");
        String assignor = optionalText(path, n, "assignor").orElse("");
        // Absent or null in the nodes of members older than racks, or without one: no rack. The rack is only a
        // hint for the assignor: a string that fails the rack check (blank, over-long, control characters) is read
        // as no rack, with one WARN, rather than losing the whole member. A non-string is still a corrupt node.
        Optional<String> rack = optionalText(path, n, "rack").flatMap(r -> {
            try {
                return Optional.of(MemberSubscription.requireValidRack(r));
            } catch (IllegalArgumentException e) {
                warnInvalidRack(path, r, e.getMessage());
                return Optional.empty();
            }
        });
        return new MemberInfo(memberId, instanceId, host, topics, instant(path, n, "joinedAt"), assignor, rack);
    }

    public static AssignmentBody assignment(String path, byte[] data) {
        JsonNode n = object(path, data);
        long generation = nonNegativeLong(path, n, "generation");
        Optional<String> leader = optionalText(path, n, "leader");
        Instant updatedAt = n.hasNonNull("updatedAt") ? instant(path, n, "updatedAt") : Instant.EPOCH;
        int members = n.hasNonNull("members") ? (int) nonNegativeLong(path, n, "members") : 0;
        return new AssignmentBody(generation, leader, updatedAt, members);
    }

    public static TargetBody target(String path, byte[] data) {
        JsonNode n = object(path, data);
        long generation = nonNegativeLong(path, n, "generation");
        JsonNode p = n.get("partitions");
        if (p == null || !p.isObject()) {
            throw new CorruptNodeException(path, "field 'partitions' must be an object of topic -> [partition, ...]");
        }
        SortedSet<TopicPartition> partitions = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = p.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String topic = name(path, e.getKey(), "partitions");
            if (!e.getValue().isArray()) {
                throw new CorruptNodeException(path, "partitions of topic '" + topic + "' must be an array");
            }
            for (JsonNode v : e.getValue()) {
                if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0) {
                    throw new CorruptNodeException(
                            path, "partition of topic '" + topic + "' must be an integer >= 0, was " + v);
                }
                partitions.add(new TopicPartition(topic, v.asInt()));
            }
        }
        boolean isStatic = n.path("static").asBoolean(false);
        return new TargetBody(generation, partitions, isStatic);
    }

    public static OwnerBody owner(String path, byte[] data) {
        JsonNode n = object(path, data);
        String memberId = name(path, text(path, n, "memberId"), "memberId");
        long generation = n.hasNonNull("generation") ? nonNegativeLong(path, n, "generation") : 0;
        Instant since = n.hasNonNull("since") ? instant(path, n, "since") : Instant.EPOCH;
        return new OwnerBody(memberId, generation, since);
    }

    public static OffsetBody offset(String path, byte[] data) {
        if (data == null || data.length == 0) {
            throw new CorruptNodeException(path, "empty body; expected {\"offset\": N, ...} or a plain number");
        }
        if (data.length > MAX_BODY) {
            throw new CorruptNodeException(path, "body of " + data.length + " bytes is not an offset");
        }
        String text = new String(data, StandardCharsets.UTF_8).trim();
        if (!text.isEmpty() && (Character.isDigit(text.charAt(0)) || text.charAt(0) == '-')) {
            return new OffsetBody(OptionalLong.of(plainOffset(path, text)), "", Optional.empty(), 0, Optional.empty());
        }
        JsonNode n = object(path, data);
        if (!n.has("offset")) {
            throw new CorruptNodeException(path, "no field 'offset' (foreign JSON?): " + abbreviate(text));
        }
        JsonNode o = n.get("offset");
        OptionalLong offset;
        if (o.isNull()) {
            offset = OptionalLong.empty();
        } else if (o.isIntegralNumber() && o.canConvertToLong() && o.asLong() >= 0) {
            offset = OptionalLong.of(o.asLong());
        } else {
            throw new CorruptNodeException(path, "field 'offset' must be an integer >= 0 or null, was " + o);
        }
        String metadata = n.path("metadata").isTextual() ? n.get("metadata").asText() : "";
        Optional<String> committedBy = n.path("committedBy").isTextual()
                ? Optional.of(n.get("committedBy").asText())
                : Optional.empty();
        long generation = n.path("generation").canConvertToLong()
                ? Math.max(0, n.get("generation").asLong())
                : 0;
        Optional<Instant> updatedAt = Optional.empty();
        if (n.path("updatedAt").isTextual()) {
            updatedAt = Optional.of(instant(path, n, "updatedAt"));
        }
        // Auxiliary too: a "done" that is not an object (a hand edit gone wrong) reads as none, the records run again.
        JsonNode done = n.get("done");
        return new OffsetBody(
                offset,
                metadata,
                committedBy,
                generation,
                updatedAt,
                history(n.get("history")),
                done != null && done.isObject() ? Optional.of(done.toString()) : Optional.empty());
    }

    /** Recent commits, [[offset, logEnd|null, "instant"], ...]. Auxiliary: malformed entries are skipped, not fatal. */
    private static List<CommitSample> history(JsonNode h) {
        List<CommitSample> samples = new ArrayList<>();
        if (h == null || !h.isArray()) {
            return samples;
        }
        for (JsonNode e : h) {
            if (e.isArray()
                    && e.size() == 3
                    && e.get(0).canConvertToLong()
                    && e.get(0).asLong() >= 0
                    && e.get(2).isTextual()) {
                try {
                    OptionalLong logEnd = e.get(1).canConvertToLong()
                            ? OptionalLong.of(e.get(1).asLong())
                            : OptionalLong.empty();
                    samples.add(new CommitSample(
                            e.get(0).asLong(), logEnd, Instant.parse(e.get(2).asText())));
                } catch (DateTimeParseException ignored) {
                    // skip this entry
                }
            }
        }
        return samples;
    }

    public static int topic(String path, byte[] data) {
        JsonNode n = object(path, data);
        long partitions = nonNegativeLong(path, n, "partitions");
        if (partitions > 1_000_000) {
            throw new CorruptNodeException(path, "field 'partitions' is implausibly large: " + partitions);
        }
        return (int) partitions;
    }

    // ------------------------------------------------------------------ helpers

    private static long plainOffset(String path, String text) {
        try {
            long v = Long.parseLong(text);
            if (v < 0) {
                throw new CorruptNodeException(path, "offset must be >= 0, was " + v);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CorruptNodeException(path, "not an offset: '" + abbreviate(text) + "'");
        }
    }

    private static JsonNode object(String path, byte[] data) {
        if (data == null || data.length == 0) {
            throw new CorruptNodeException(path, "empty body; expected a JSON object");
        }
        if (data.length > MAX_BODY * 16) {
            throw new CorruptNodeException(path, "body of " + data.length + " bytes is too large");
        }
        JsonNode n;
        try {
            n = JSON.readTree(data);
        } catch (IOException e) {
            throw new CorruptNodeException(
                    path, "not JSON: '" + abbreviate(new String(data, StandardCharsets.UTF_8)) + "'");
        }
        if (n == null || !n.isObject()) {
            throw new CorruptNodeException(
                    path, "expected a JSON object, was '" + abbreviate(new String(data, StandardCharsets.UTF_8)) + "'");
        }
        return n;
    }

    private static String text(String path, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new CorruptNodeException(path, "field '" + field + "' must be a string, was " + v);
        }
        return v.asText();
    }

    /** Logs an unusable member rack once per node path and value (the leader decodes member nodes each rebalance). */
    private static void warnInvalidRack(String path, String rack, String problem) {
        if (WARNED_RACKS.size() > 10_000) {
            WARNED_RACKS.clear(); // bounded: member nodes come and go
        }
        if (WARNED_RACKS.add(path + "\n" + rack)) {
            StringBuilder printable = new StringBuilder();
            rack.codePoints().limit(300).forEach(c -> {
                if (Character.isISOControl(c)) {
                    printable.append(String.format("\\u%04x", c));
                } else {
                    printable.appendCodePoint(c);
                }
            });
            LOG.warn(
                    "member node {} has rack \"{}\", which is not a rack ({}); the member is read as having no rack",
                    path,
                    printable,
                    problem);
        }
    }

    private static Optional<String> optionalText(String path, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isTextual()) {
            throw new CorruptNodeException(path, "field '" + field + "' must be a string or null, was " + v);
        }
        return Optional.of(v.asText());
    }

    private static long nonNegativeLong(String path, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new CorruptNodeException(path, "field '" + field + "' must be an integer >= 0, was " + v);
        }
        return v.asLong();
    }

    private static Instant instant(String path, JsonNode n, String field) {
        String t = text(path, n, field);
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new CorruptNodeException(path, "field '" + field + "' is not an ISO-8601 instant: '" + t + "'");
        }
    }

    private static String name(String path, String value, String field) {
        if (!Names.isValid(value)) {
            throw new CorruptNodeException(
                    path, "field '" + field + "' holds an invalid name '" + abbreviate(value) + "'");
        }
        return value;
    }

    private static byte[] bytes(ObjectNode n) {
        try {
            return JSON.writeValueAsBytes(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String abbreviate(String s) {
        String oneLine = s.replaceAll("\\s+", " ");
        return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 77) + "...";
    }
}

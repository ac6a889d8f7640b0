package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Offsets read from somewhere else (an import file, Storm's KafkaSpout nodes, Kafka's old {@code /consumers} layout,
 * a Kafka consumer group), each with where it came from ({@code origins}: "line 4", a ZooKeeper path) so that an
 * error about one entry can name it.
 *
 * @param source  what was read, e.g. {@code offsets.csv} or {@code storm-kafka zk=...:/kafka-offset/onetest}
 * @param offsets the next offset to process per partition (Kafka's convention)
 * @param origins where each entry came from; may lack entries
 * @param group   the group the offsets were exported from, where the source says (a JSON export's {@code "group"})
 */
public record SourceOffsets(
        String source,
        SortedMap<TopicPartition, Long> offsets,
        Map<TopicPartition, String> origins,
        Optional<String> group) {

    public SourceOffsets {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(group, "group");
        offsets = Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
        origins = Map.copyOf(origins);
        offsets.forEach((tp, o) -> {
            if (o == null || o < 0) {
                throw new IllegalArgumentException("offset of " + tp + " must be >= 0, was " + o);
            }
        });
    }

    /** Offsets from a source that does not name a group. */
    public SourceOffsets(String source, SortedMap<TopicPartition, Long> offsets, Map<TopicPartition, String> origins) {
        this(source, offsets, origins, Optional.empty());
    }

    public static SourceOffsets of(String source, Map<TopicPartition, Long> offsets) {
        return new SourceOffsets(source, new TreeMap<>(offsets), Map.of());
    }

    /** "orders:0 (line 4 of offsets.csv)" or just "orders:0". */
    public String describe(TopicPartition tp) {
        String origin = origins.get(tp);
        return origin == null ? tp.toString() : tp + " (" + origin + ")";
    }
}

package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where each partition's replicas live: partition to the set of racks that hold a replica of it. The leader learns
 * it from the topic metadata source ({@link io.groupkeeper.spi.TopicMetadataSource#partitionRacks}: for Kafka the
 * brokers' {@code broker.rack} of every replica, in sync or not, as KIP-881 uses them) and hands it to the assignor
 * beside the members' racks ({@link MemberSubscription#rack()}). A partition absent here, or mapped to an empty set,
 * has no known racks: no member is local or remote to it, and a rack-aware assignor treats it like any other.
 *
 * <p>Core knows nothing of Kafka: racks are plain strings, compared exactly.
 */
public final class PartitionRacks {

    private static final PartitionRacks EMPTY = new PartitionRacks(new TreeMap<>());

    private final SortedMap<TopicPartition, SortedSet<String>> racks;

    private PartitionRacks(SortedMap<TopicPartition, SortedSet<String>> racks) {
        this.racks = racks;
    }

    /** No rack is known for any partition: assignment ignores racks. */
    public static PartitionRacks empty() {
        return EMPTY;
    }

    /** A copy of {@code racks}; each rack must pass {@link MemberSubscription#requireValidRack}. */
    public static PartitionRacks of(Map<TopicPartition, ? extends Set<String>> racks) {
        Objects.requireNonNull(racks, "racks");
        SortedMap<TopicPartition, SortedSet<String>> copy = new TreeMap<>();
        racks.forEach((tp, set) -> {
            Objects.requireNonNull(tp, "partition");
            Objects.requireNonNull(set, "racks of " + tp);
            SortedSet<String> s = new TreeSet<>();
            for (String r : set) {
                s.add(MemberSubscription.requireValidRack(r));
            }
            if (!s.isEmpty()) {
                copy.put(tp, Collections.unmodifiableSortedSet(s));
            }
        });
        return copy.isEmpty() ? EMPTY : new PartitionRacks(copy);
    }

    /** The racks holding a replica of {@code partition}; empty when unknown. */
    public SortedSet<String> racksOf(TopicPartition partition) {
        SortedSet<String> s = racks.get(partition);
        return s != null ? s : Collections.emptySortedSet();
    }

    /** The racks holding a replica of {@code topic}'s partition {@code partition}; empty when unknown. */
    public SortedSet<String> racksOf(String topic, int partition) {
        return racksOf(new TopicPartition(topic, partition));
    }

    /** Whether no partition has a known rack. */
    public boolean isEmpty() {
        return racks.isEmpty();
    }

    /** The view restricted to {@code topics}. */
    public PartitionRacks restrictedTo(Set<String> topics) {
        SortedMap<TopicPartition, SortedSet<String>> copy = new TreeMap<>();
        racks.forEach((tp, s) -> {
            if (topics.contains(tp.topic())) {
                copy.put(tp, s);
            }
        });
        return copy.isEmpty() ? EMPTY : new PartitionRacks(copy);
    }

    /** The whole map, unmodifiable. */
    public SortedMap<TopicPartition, SortedSet<String>> asMap() {
        return Collections.unmodifiableSortedMap(racks);
    }

    /**
     * Whether a member in {@code memberRack} reads {@code partition} from its own rack: true when both racks are known
     * and the partition has a replica there.
     */
    public boolean isLocal(TopicPartition partition, String memberRack) {
        return memberRack != null && racksOf(partition).contains(memberRack);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionRacks other && racks.equals(other.racks);
    }

    @Override
    public int hashCode() {
        return racks.hashCode();
    }

    @Override
    public String toString() {
        return "PartitionRacks" + racks;
    }
}

package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable map from member id to the partitions it should own. Members with no partitions may be present
 * with an empty set. Sorted throughout so that equal assignments print and serialise identically.
 */
public final class Assignment {

    private static final Assignment EMPTY = new Assignment(new TreeMap<>());

    private final SortedMap<String, SortedSet<TopicPartition>> byMember;

    private Assignment(SortedMap<String, SortedSet<TopicPartition>> byMember) {
        this.byMember = byMember;
    }

    public static Assignment empty() {
        return EMPTY;
    }

    /** Copies {@code byMember}; throws if a partition is given to two members. */
    public static Assignment of(Map<String, ? extends Set<TopicPartition>> byMember) {
        Objects.requireNonNull(byMember, "byMember");
        SortedMap<String, SortedSet<TopicPartition>> copy = new TreeMap<>();
        Map<TopicPartition, String> seen = new HashMap<>();
        byMember.forEach((member, partitions) -> {
            SortedSet<TopicPartition> set = new TreeSet<>(partitions);
            for (TopicPartition tp : set) {
                String other = seen.putIfAbsent(tp, member);
                if (other != null) {
                    throw new IllegalArgumentException(
                            "partition " + tp + " assigned to both " + other + " and " + member);
                }
            }
            copy.put(member, Collections.unmodifiableSortedSet(set));
        });
        return new Assignment(Collections.unmodifiableSortedMap(copy));
    }

    /** Member id to partitions, sorted. */
    public SortedMap<String, SortedSet<TopicPartition>> byMember() {
        return byMember;
    }

    /** The partitions of {@code memberId}; empty if it has none or is absent. */
    public SortedSet<TopicPartition> partitionsOf(String memberId) {
        return byMember.getOrDefault(memberId, Collections.emptySortedSet());
    }

    /** Partition to owning member. */
    public SortedMap<TopicPartition, String> ownerByPartition() {
        SortedMap<TopicPartition, String> owners = new TreeMap<>();
        byMember.forEach((m, tps) -> tps.forEach(tp -> owners.put(tp, m)));
        return owners;
    }

    /** The member that owns {@code tp}, if any. */
    public Optional<String> ownerOf(TopicPartition tp) {
        return byMember.entrySet().stream()
                .filter(e -> e.getValue().contains(tp))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    /** Number of partitions assigned in total. */
    public int partitionCount() {
        return byMember.values().stream().mapToInt(Set::size).sum();
    }

    /** How many partitions change owner between this assignment and {@code next}. */
    public int movesTo(Assignment next) {
        SortedMap<TopicPartition, String> before = ownerByPartition();
        int moves = 0;
        for (Map.Entry<TopicPartition, String> e : next.ownerByPartition().entrySet()) {
            String old = before.get(e.getKey());
            if (old != null && !old.equals(e.getValue())) {
                moves++;
            }
        }
        return moves;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Assignment a && a.byMember.equals(byMember);
    }

    @Override
    public int hashCode() {
        return byMember.hashCode();
    }

    @Override
    public String toString() {
        return byMember.toString();
    }
}

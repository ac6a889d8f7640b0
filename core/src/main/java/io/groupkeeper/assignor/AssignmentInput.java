package io.groupkeeper.assignor;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The input of one assignment: members by id (sorted, so iteration order is deterministic), partition counts by
 * topic (a topic absent here has no known partitions and gets no owner), the current target assignment, and the
 * racks of the partitions' replicas ({@link PartitionRacks#empty()} when unknown; assignors that ignore racks ignore
 * it).
 */
public record AssignmentInput(
        SortedMap<String, MemberSubscription> members,
        SortedMap<String, Integer> partitionCounts,
        Assignment current,
        PartitionRacks partitionRacks) {

    public AssignmentInput {
        Objects.requireNonNull(members, "members");
        Objects.requireNonNull(partitionCounts, "partitionCounts");
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(partitionRacks, "partitionRacks");
        members.forEach((id, s) -> {
            if (!id.equals(s.memberId())) {
                throw new IllegalArgumentException("member key " + id + " does not match subscription " + s.memberId());
            }
        });
        partitionCounts.forEach((t, n) -> {
            if (n == null || n < 0) {
                throw new IllegalArgumentException("partition count of topic " + t + " must be >= 0, was " + n);
            }
        });
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        partitionCounts = Collections.unmodifiableSortedMap(new TreeMap<>(partitionCounts));
    }

    /** An input without rack information. */
    public AssignmentInput(
            SortedMap<String, MemberSubscription> members,
            SortedMap<String, Integer> partitionCounts,
            Assignment current) {
        this(members, partitionCounts, current, PartitionRacks.empty());
    }

    public static AssignmentInput of(
            Map<String, MemberSubscription> members, Map<String, Integer> partitionCounts, Assignment current) {
        return of(members, partitionCounts, current, PartitionRacks.empty());
    }

    public static AssignmentInput of(
            Map<String, MemberSubscription> members,
            Map<String, Integer> partitionCounts,
            Assignment current,
            PartitionRacks partitionRacks) {
        return new AssignmentInput(new TreeMap<>(members), new TreeMap<>(partitionCounts), current, partitionRacks);
    }
}

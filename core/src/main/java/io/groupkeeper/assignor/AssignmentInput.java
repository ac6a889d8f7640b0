package io.groupkeeper.assignor;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The input of one assignment: members by id (sorted, so iteration order is deterministic), partition counts by
 * topic (a topic absent here has no known partitions and gets no owner), and the current target assignment.
 */
public record AssignmentInput(SortedMap<String, MemberSubscription> members,
                              SortedMap<String, Integer> partitionCounts,
                              Assignment current) {

    public AssignmentInput {
        Objects.requireNonNull(members, "members");
        Objects.requireNonNull(partitionCounts, "partitionCounts");
        Objects.requireNonNull(current, "current");
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

    public static AssignmentInput of(Map<String, MemberSubscription> members, Map<String, Integer> partitionCounts,
                                     Assignment current) {
        return new AssignmentInput(new TreeMap<>(members), new TreeMap<>(partitionCounts), current);
    }
}

package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's round-robin assignor. All partitions of all topics are sorted by (topic, partition) and dealt one at a
 * time to the members, which are sorted by member id and visited in a circle; a member that does not subscribe to
 * the partition's topic is skipped, and the next partition starts after the member that took the last one.
 *
 * <p>Guarantees: valid (see {@link PartitionAssignor}); deterministic; when all members subscribe to the same
 * topics, member partition counts differ by at most one. With different subscriptions the deal can be uneven (a
 * member subscribed to fewer topics is skipped more often), and the current assignment is ignored (no
 * stickiness). Runs in O(P + M) for a common subscription, O(P * M) in the worst heterogeneous case.
 */
public final class RoundRobinAssignor implements PartitionAssignor {

    public static final String NAME = "round-robin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Objects.requireNonNull(input, "input");
        String[] members = input.members().keySet().toArray(new String[0]);
        Map<String, SortedSet<TopicPartition>> result = new TreeMap<>();
        Set<String> subscribedTopics = new HashSet<>();
        for (String id : members) {
            result.put(id, new TreeSet<>());
            subscribedTopics.addAll(input.members().get(id).topics());
        }
        int cursor = 0;
        // partitionCounts is sorted by topic, so this visits partitions in (topic, partition) order.
        for (Map.Entry<String, Integer> entry : input.partitionCounts().entrySet()) {
            String topic = entry.getKey();
            if (!subscribedTopics.contains(topic)) {
                continue; // nobody to deal to; also keeps the skip loop below finite
            }
            for (int p = 0; p < entry.getValue(); p++) {
                while (!input.members().get(members[cursor]).topics().contains(topic)) {
                    cursor = (cursor + 1) % members.length;
                }
                result.get(members[cursor]).add(new TopicPartition(topic, p));
                cursor = (cursor + 1) % members.length;
            }
        }
        return Assignment.of(result);
    }

    @Override
    public String toString() {
        return NAME;
    }
}

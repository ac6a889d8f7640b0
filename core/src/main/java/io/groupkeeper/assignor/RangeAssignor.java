package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's range assignor. Each topic is handled on its own: the members subscribed to it are sorted by member id,
 * and its {@code n} partitions are cut into contiguous ranges, one per member, of {@code n / m} partitions each;
 * the first {@code n % m} members get one partition more. Member {@code i} therefore always gets the same slice of
 * every topic, which co-locates equally numbered partitions of co-partitioned topics.
 *
 * <p>Guarantees: valid (see {@link PartitionAssignor}); deterministic; per topic, the partition counts of its
 * subscribers differ by at most one. Across several topics the members that sort first are favoured every time,
 * so the total load is <em>not</em> balanced, and the current assignment is ignored (no stickiness).
 */
public final class RangeAssignor implements PartitionAssignor {

    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Objects.requireNonNull(input, "input");
        Map<String, SortedSet<TopicPartition>> result = new TreeMap<>();
        Map<String, List<String>> subscribersByTopic = new TreeMap<>();
        // input.members() is sorted by id, so every subscriber list is sorted by id too.
        input.members().forEach((id, subscription) -> {
            result.put(id, new TreeSet<>());
            for (String topic : subscription.topics()) {
                subscribersByTopic
                        .computeIfAbsent(topic, t -> new ArrayList<>())
                        .add(id);
            }
        });
        input.partitionCounts().forEach((topic, partitions) -> {
            List<String> subscribers = subscribersByTopic.get(topic);
            if (subscribers == null || partitions == 0) {
                return;
            }
            int members = subscribers.size();
            int base = partitions / members;
            int extra = partitions % members;
            int next = 0;
            for (int i = 0; i < members; i++) {
                int length = base + (i < extra ? 1 : 0);
                Set<TopicPartition> target = result.get(subscribers.get(i));
                for (int p = next; p < next + length; p++) {
                    target.add(new TopicPartition(topic, p));
                }
                next += length;
            }
        });
        return Assignment.of(result);
    }

    @Override
    public String toString() {
        return NAME;
    }
}

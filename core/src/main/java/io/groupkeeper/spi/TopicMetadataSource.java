package io.groupkeeper.spi;

import io.groupkeeper.assignor.PartitionRacks;
import java.util.Collection;
import java.util.Map;

/**
 * Where the rebalancer learns how many partitions each topic has: the ZooKeeper topic registry, or Kafka.
 */
public interface TopicMetadataSource {

    /**
     * Partition counts of those {@code topics} that exist (missing topics are absent from the result), and arms a
     * one-shot notification: {@code onChange} runs once when any of these counts may have changed.
     */
    Map<String, Integer> partitionCounts(Collection<String> topics, Runnable onChange);

    /**
     * The racks holding a replica of each partition of those {@code topics} that exist, for rack-aware assignment.
     * The leader asks only when some member has a rack, right after {@link #partitionCounts} (and again whenever it
     * re-reads the counts), so a source that watches racks fires the hook armed there when they change. Default: no
     * racks known (a registry of partition counts has none).
     */
    default PartitionRacks partitionRacks(Collection<String> topics) {
        return PartitionRacks.empty();
    }
}

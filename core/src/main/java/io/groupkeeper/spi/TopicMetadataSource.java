package io.groupkeeper.spi;

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
}

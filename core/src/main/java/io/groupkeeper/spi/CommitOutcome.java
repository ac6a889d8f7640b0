package io.groupkeeper.spi;

import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * The result of a batch of fenced commits: the new node version of each partition written, and the partitions
 * whose write was refused because the node's version had moved or this member's owner node was gone.
 */
public record CommitOutcome(Map<TopicPartition, Long> committed, Set<TopicPartition> conflicted) {

    public CommitOutcome {
        committed = Map.copyOf(committed);
        conflicted = Set.copyOf(conflicted);
    }
}

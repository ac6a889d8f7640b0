package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * The result of a batch of fenced commits: the new node version of each partition written, the incarnation
 * ({@link OffsetSnapshot#created()}) of each node written, and the partitions whose write was refused because the
 * node's version had moved or this member's owner node was gone.
 *
 * <p>The incarnation matters when the commit created the node (after an operator deleted it): without it, a second
 * delete and re-creation that brings the version back to the same number would look like this member's own node.
 */
public record CommitOutcome(
        Map<TopicPartition, Long> committed, Map<TopicPartition, Long> created, Set<TopicPartition> conflicted) {

    public CommitOutcome {
        committed = Map.copyOf(committed);
        created = Map.copyOf(created);
        conflicted = Set.copyOf(conflicted);
    }

    /** The incarnation of {@code tp}'s node as written, or 0 when the store did not say. */
    public long createdOf(TopicPartition tp) {
        return created.getOrDefault(tp, 0L);
    }
}

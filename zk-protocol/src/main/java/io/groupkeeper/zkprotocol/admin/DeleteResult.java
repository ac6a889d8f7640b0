package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What {@code groups delete} or {@code offsets delete} removed, in one transaction.
 *
 * @param group          the group
 * @param what           {@code group} or {@code offsets of topic T}
 * @param nodesDeleted   how many ZooKeeper nodes the transaction deleted
 * @param offsetsDeleted the committed offsets that were deleted (empty for partitions with a null offset)
 * @param liveMembers    live members at the time (non-empty only with {@code force})
 */
public record DeleteResult(
        String group,
        String what,
        int nodesDeleted,
        SortedMap<TopicPartition, Long> offsetsDeleted,
        List<String> liveMembers) {

    public DeleteResult {
        offsetsDeleted = Collections.unmodifiableSortedMap(new TreeMap<>(offsetsDeleted));
        liveMembers = List.copyOf(liveMembers);
    }
}

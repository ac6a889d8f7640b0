package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/** The partitions the leader wants one member to own, as of a generation. */
public record TargetAssignment(long generation, SortedSet<TopicPartition> partitions) {

    public TargetAssignment {
        partitions = Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
    }
}

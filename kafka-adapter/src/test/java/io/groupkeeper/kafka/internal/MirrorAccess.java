package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.SortedSet;

/** The offset mirror's calls the adapter makes, open to the simulator (whose tests live in another package). */
public final class MirrorAccess {

    private final OffsetMirror mirror;

    MirrorAccess(OffsetMirror mirror) {
        this.mirror = mirror;
    }

    public long mark() {
        return mirror.mark();
    }

    public void offer(Map<TopicPartition, Long> committed, long mark) {
        mirror.offer(committed, mark);
    }

    public void gained(Collection<TopicPartition> partitions) {
        mirror.gained(partitions);
    }

    public void released(Collection<TopicPartition> partitions) {
        mirror.released(partitions);
    }

    public void lost(Collection<TopicPartition> partitions) {
        mirror.lost(partitions);
    }

    public SortedSet<TopicPartition> owed() {
        return mirror.owed();
    }
}

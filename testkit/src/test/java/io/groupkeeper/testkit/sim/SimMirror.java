package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.SortedSet;

/**
 * The Kafka adapter's offset mirror as a simulated member drives it, with the calls the adapter's
 * {@code PositionCommitter} makes (a mark before every store commit, the committed offsets offered after it, gained,
 * released, lost, owed re-commits). Supplied by kafka-adapter's tests ({@code MirrorSimulationTest}), which run the
 * shipped {@code OffsetMirror} over a model of Kafka's offset store; testkit's own schedules run without it.
 */
interface SimMirror {

    long mark();

    void offer(Map<TopicPartition, Long> committed, long mark);

    void gained(Collection<TopicPartition> partitions);

    void released(Collection<TopicPartition> partitions);

    void lost(Collection<TopicPartition> partitions);

    SortedSet<TopicPartition> owed();

    /** Kafka's side of one simulated world: the mirrors of its members, over one model of Kafka. */
    interface Kafka {
        /**
         * Member {@code memberId}'s mirror; the tasks of its one thread are tasks of {@code thread}'s tag, run in order
         * ({@link SerialTasks}).
         */
        SimMirror mirror(String memberId, java.util.concurrent.ScheduledExecutorService thread);
    }

    /**
     * What a world gives its Kafka: its seed, an executor for Kafka's own late work (a write landing after its sender
     * gave up), where violations go, and which store commit a member's offset came from.
     */
    record World(
            long seed,
            java.util.concurrent.ScheduledExecutorService broker,
            java.util.function.Consumer<String> violations,
            StoreCommits commits) {}
}

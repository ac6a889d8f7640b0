package io.groupkeeper.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.LeaderElection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** A won election whose publishes are recorded, version-checked and, when scripted, fail. */
final class ScriptedElection implements LeaderElection {

    record Publish(
            long expectedVersion,
            long generation,
            Map<String, SortedSet<TopicPartition>> changed,
            Set<String> removed,
            SortedSet<String> staticMembers) {}

    final List<Publish> publishes = new ArrayList<>();
    long version = -1;
    int failures;
    /** Runs as a publish begins, once: what happens elsewhere while the publish is on its way. */
    Runnable duringNextPublish;

    @Override
    public void start() {}

    @Override
    public boolean isLeader() {
        return true;
    }

    @Override
    public long publish(
            long expectedVersion,
            long generation,
            Map<String, ? extends Set<TopicPartition>> changedTargets,
            Set<String> removedMembers,
            SortedSet<String> staticMembers) {
        Runnable during = duringNextPublish;
        duringNextPublish = null;
        if (during != null) {
            during.run();
        }
        if (failures > 0) {
            failures--;
            throw new StoreException("publish failed: connection loss (scripted)");
        }
        if (expectedVersion != version) {
            throw new StoreException("assignment version " + version + ", not " + expectedVersion);
        }
        Map<String, SortedSet<TopicPartition>> changed = new TreeMap<>();
        changedTargets.forEach((m, tps) -> changed.put(m, new TreeSet<>(tps)));
        publishes.add(new Publish(
                expectedVersion, generation, changed, new TreeSet<>(removedMembers), new TreeSet<>(staticMembers)));
        return ++version;
    }

    Publish last() {
        return publishes.get(publishes.size() - 1);
    }

    @Override
    public void close() {}
}

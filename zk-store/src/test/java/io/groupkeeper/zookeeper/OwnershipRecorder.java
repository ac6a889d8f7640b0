package io.groupkeeper.zookeeper;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records, across all members of a test, the interval during which each member believed it owned each partition
 * (from onPartitionsAssigned to onPartitionsRevoked/Lost), and checks that no two intervals of one partition
 * overlap (invariant I1 as user code observes it).
 */
final class OwnershipRecorder {

    record Interval(String member, TopicPartition tp, long start, long end) {}

    private final List<Interval> closed = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Map<TopicPartition, Long>> open = new ConcurrentHashMap<>();
    private final Map<String, List<String>> events = new ConcurrentHashMap<>();
    private final java.util.Set<String> crashed = ConcurrentHashMap.newKeySet();

    /**
     * The member's process died now: it processes nothing from this instant, so its intervals end here and whatever
     * its (simulated) leftovers report later is ignored.
     */
    synchronized void crash(String member) {
        Map<TopicPartition, Long> mine = open.computeIfAbsent(member, m -> new HashMap<>());
        end(member, new java.util.HashSet<>(mine.keySet()), "crashed");
        crashed.add(member);
    }

    RebalanceListener listenerFor(String member) {
        return listenerFor(member, RebalanceListener.NOOP);
    }

    RebalanceListener listenerFor(String member, RebalanceListener delegate) {
        return new RebalanceListener() {
            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                delegate.onPartitionsRevoked(partitions);
                end(member, partitions, "revoked");
            }

            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                start(member, partitions.keySet());
                delegate.onPartitionsAssigned(partitions);
            }

            @Override
            public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
                end(member, partitions, "lost");
                delegate.onPartitionsLost(partitions);
            }

            @Override
            public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
                event(member, "offsetsChanged " + partitions);
                delegate.onOffsetsChanged(partitions);
            }
        };
    }

    private synchronized void start(String member, java.util.Set<TopicPartition> tps) {
        if (crashed.contains(member)) {
            return;
        }
        long now = System.nanoTime();
        Map<TopicPartition, Long> mine = open.computeIfAbsent(member, m -> new HashMap<>());
        tps.forEach(tp -> mine.put(tp, now));
        event(member, "assigned " + tps);
    }

    private synchronized void end(String member, java.util.Set<TopicPartition> tps, String how) {
        if (crashed.contains(member)) {
            return;
        }
        long now = System.nanoTime();
        Map<TopicPartition, Long> mine = open.computeIfAbsent(member, m -> new HashMap<>());
        for (TopicPartition tp : tps) {
            Long start = mine.remove(tp);
            if (start != null) {
                closed.add(new Interval(member, tp, start, now));
            }
        }
        event(member, how + " " + tps);
    }

    private void event(String member, String what) {
        events.computeIfAbsent(member, m -> Collections.synchronizedList(new ArrayList<>()))
                .add(what);
    }

    /** The partitions the member's listener was told it owns and not told it lost, right now. */
    synchronized SortedSet<TopicPartition> told(String member) {
        return new TreeSet<>(open.getOrDefault(member, Map.of()).keySet());
    }

    /**
     * Waits until the member's listener has been told of what its {@code assignment()} shows: that includes a partition
     * while its {@code onPartitionsAssigned} call is still on its way.
     */
    void awaitTold(String member, GroupMember m) {
        await().atMost(Duration.ofSeconds(30)).until(() -> told(member).equals(m.assignment()));
    }

    List<String> events(String member) {
        return List.copyOf(events.getOrDefault(member, List.of()));
    }

    /** Closes every open interval now (the test ends) and returns overlaps found, described. */
    synchronized List<String> overlaps() {
        long now = System.nanoTime();
        List<Interval> all = new ArrayList<>(closed);
        open.forEach((m, tps) -> tps.forEach((tp, s) -> all.add(new Interval(m, tp, s, now))));
        Map<TopicPartition, List<Interval>> byTp = new HashMap<>();
        all.forEach(i -> byTp.computeIfAbsent(i.tp(), k -> new ArrayList<>()).add(i));
        List<String> problems = new ArrayList<>();
        byTp.forEach((tp, list) -> {
            list.sort((a, b) -> Long.compare(a.start(), b.start()));
            Interval longest = list.get(0);
            for (int i = 1; i < list.size(); i++) {
                Interval cur = list.get(i);
                if (cur.start() < longest.end() && !cur.member().equals(longest.member())) {
                    problems.add(tp + " owned by " + longest.member() + " and " + cur.member() + " at once");
                }
                if (cur.end() > longest.end()) {
                    longest = cur;
                }
            }
        });
        return problems;
    }

    int intervals() {
        return closed.size() + open.values().stream().mapToInt(Map::size).sum();
    }
}

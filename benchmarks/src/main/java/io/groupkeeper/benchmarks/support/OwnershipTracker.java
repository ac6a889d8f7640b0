package io.groupkeeper.benchmarks.support;

import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Who owns which partition of one topic, as the members' own {@link RebalanceListener} callbacks say, with the
 * instant of every change. groupkeeper calls {@code onPartitionsRevoked} before it releases a partition and
 * {@code onPartitionsAssigned} after it claimed one, so a revocation is counted when the old owner stops and an
 * assignment when the new owner holds the owner node: what an application sees. An assignment of a partition that
 * another member still holds is counted as an overlap (it must stay 0: invariant I1).
 */
public final class OwnershipTracker {

    private final String topic;
    private final int partitions;
    private final String[] owner;
    private final Map<String, Integer> counts = new HashMap<>();
    private final Set<String> live = new HashSet<>();
    private int owned;
    private int overlaps;
    private int changes;
    private long lastChangeNanos;

    public OwnershipTracker(String topic, int partitions) {
        this.topic = topic;
        this.partitions = partitions;
        this.owner = new String[partitions];
    }

    /** A listener that reports member {@code memberName}'s callbacks here. */
    public RebalanceListener listenerFor(String memberName) {
        synchronized (this) {
            live.add(memberName);
            counts.putIfAbsent(memberName, 0);
        }
        return new RebalanceListener() {
            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> gained) {
                assigned(memberName, gained.keySet());
            }

            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> revoked) {
                released(memberName, revoked);
            }

            @Override
            public void onPartitionsLost(SortedSet<TopicPartition> lost) {
                released(memberName, lost);
            }
        };
    }

    public synchronized void assigned(String member, Set<TopicPartition> gained) {
        long now = System.nanoTime();
        for (TopicPartition tp : gained) {
            if (!tp.topic().equals(topic)) {
                continue;
            }
            String before = owner[tp.partition()];
            if (member.equals(before)) {
                continue;
            }
            if (before != null) {
                overlaps++;
                counts.merge(before, -1, Integer::sum);
            } else {
                owned++;
            }
            owner[tp.partition()] = member;
            counts.merge(member, 1, Integer::sum);
            changes++;
            lastChangeNanos = now;
        }
        notifyAll();
    }

    public synchronized void released(String member, Set<TopicPartition> gone) {
        long now = System.nanoTime();
        for (TopicPartition tp : gone) {
            if (tp.topic().equals(topic) && member.equals(owner[tp.partition()])) {
                owner[tp.partition()] = null;
                owned--;
                counts.merge(member, -1, Integer::sum);
                changes++;
                lastChangeNanos = now;
            }
        }
        notifyAll();
    }

    /** The member left (its partitions must have been released through callbacks already). */
    public synchronized void forget(String member) {
        live.remove(member);
        counts.remove(member);
    }

    /** Every partition owned by exactly one live member, and live members' counts differ by at most one. */
    public synchronized boolean completeAndBalanced() {
        if (owned != partitions) {
            return false;
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (String m : live) {
            int c = counts.getOrDefault(m, 0);
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        for (String o : owner) {
            if (o == null || !live.contains(o)) {
                return false;
            }
        }
        return live.isEmpty() || max - min <= 1;
    }

    /** Waits until {@link #completeAndBalanced()}; false on timeout. */
    public synchronized boolean awaitCompleteAndBalanced(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!completeAndBalanced()) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(Math.min(left, 100));
        }
        return true;
    }

    public synchronized long lastChangeNanos() {
        return lastChangeNanos;
    }

    public synchronized int changes() {
        return changes;
    }

    public synchronized int overlaps() {
        return overlaps;
    }

    public synchronized int countOf(String member) {
        return counts.getOrDefault(member, 0);
    }

    public synchronized String[] owners() {
        return Arrays.copyOf(owner, owner.length);
    }

    public synchronized String describe() {
        return "owned " + owned + "/" + partitions + ", live " + live.size() + ", counts "
                + new TreeMap<>(counts)
                        .values().stream().mapToInt(Integer::intValue).summaryStatistics();
    }
}

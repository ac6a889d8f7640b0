package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.NodeStat;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The invariants, checked as the simulated users act (and once more when the group has settled):
 * <ul>
 *   <li>I1: no two members whose claims' sessions are alive process one partition at once (a member whose session
 *   ended without its knowing — paused, cut off — is a zombie: its processing is counted, not a violation);</li>
 *   <li>I2: a commit that lands comes from the member that holds the owner node in its current session;</li>
 *   <li>I4: a commit never lands over an external write its member has not adopted;</li>
 *   <li>no loss: every record from where the group (or the last external write) put a partition's start up to its log
 *   end is processed;</li>
 *   <li>I6, once settled: every partition owned by exactly one live member that processes it, the assignment balanced
 *   within one, every committed offset at the log end.</li>
 * </ul>
 */
final class SimChecker {

    private static final long NO_FLOOR = -1;
    private static final long AT_NEXT_START = -2;

    private final InMemoryZooKeeper zk;
    private final String group;
    private final SimLog log;
    private final List<String> violations = new ArrayList<>();
    private final Map<TopicPartition, Long> logEnd = new HashMap<>();
    private final Map<TopicPartition, BitSet> processed = new HashMap<>();
    private final Map<TopicPartition, Long> floor = new HashMap<>();
    private final Map<TopicPartition, Integer> edits = new HashMap<>();
    private final java.util.Set<TopicPartition> committedSinceExternal = new java.util.HashSet<>();
    private Collection<SimMember> members = List.of();
    private java.util.function.Function<String, java.util.Set<TopicPartition>> targets = id -> java.util.Set.of();
    private long zombieRecords;

    SimChecker(InMemoryZooKeeper zk, String group, SimLog log) {
        this.zk = zk;
        this.group = group;
        this.log = log;
    }

    void members(Collection<SimMember> all) {
        this.members = all;
    }

    /** Where the settled check reads each member's published target from. */
    void targets(java.util.function.Function<String, java.util.Set<TopicPartition>> targetOf) {
        this.targets = targetOf;
    }

    List<String> violations() {
        return violations;
    }

    long zombieRecords() {
        return zombieRecords;
    }

    private void violation(String what) {
        violations.add(what);
    }

    // ------------------------------------------------------------------ the log

    long logEnd(TopicPartition tp) {
        return logEnd.getOrDefault(tp, 0L);
    }

    void produced(TopicPartition tp, long records) {
        logEnd.merge(tp, records, Long::sum);
    }

    int edits(TopicPartition tp) {
        return edits.getOrDefault(tp, 0);
    }

    // ------------------------------------------------------------------ what users and operators do

    /**
     * User code starts {@code tp} at {@code start}; {@code fromNothing}: no offset was stored, so it starts at the log
     * end (the start position "latest"), legitimately skipping what came before — unless an offset was committed or
     * handed over since the last operator write, which the store must then still hold.
     */
    void started(SimMember m, TopicPartition tp, long start, boolean fromNothing) {
        if (fromNothing) {
            if (committedSinceExternal.contains(tp)) {
                violation("lost offset: " + m.id + " found no stored offset for " + tp + " although one was "
                        + "committed or handed over since the last operator write; starts at " + start);
            }
            floor.put(tp, start);
            return;
        }
        long f = floor.getOrDefault(tp, NO_FLOOR);
        if (f == NO_FLOOR || f == AT_NEXT_START) {
            floor.put(tp, start);
        }
    }

    void adopted(SimMember m, TopicPartition tp, long position, boolean fromNothing) {
        log.event(m.id + " adopted " + tp + " at " + position);
        started(m, tp, position, fromNothing);
    }

    void processed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p) {
        processed.computeIfAbsent(tp, k -> new BitSet()).set((int) offset);
        if (!zk.isSessionAlive(p.session)) {
            zombieRecords++;
            return;
        }
        for (SimMember other : members) {
            if (other == m || other.crashed) {
                continue;
            }
            SimMember.Processing q = other.processing.get(tp);
            if (q != null && zk.isSessionAlive(q.session)) {
                violation("I1: " + m.id + " and " + other.id + " both process " + tp + " (record " + offset
                        + ") with live sessions");
                log.event("VIOLATION I1 " + tp);
            }
        }
    }

    /**
     * The session a partition was claimed in, as user code hears of the claim: the owner node's session if it is the
     * member's current one; else 0 (the claim's session has ended meanwhile: what user code does with it is a zombie's).
     */
    long claimSession(SimMember m, TopicPartition tp) {
        Optional<NodeStat> owner = zk.stat(ownerPath(tp));
        return owner.isPresent() && owner.get().ephemeralOwner() == m.sessionId() ? m.sessionId() : 0;
    }

    void committed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p) {
        Optional<NodeStat> owner = zk.stat(ownerPath(tp));
        if (owner.isEmpty() || owner.get().ephemeralOwner() != m.sessionId()) {
            violation("I2: a commit of " + tp + " at " + offset + " by " + m.id + " landed while "
                    + (owner.isEmpty() ? "nobody" : "session 0x" + Long.toHexString(owner.get().ephemeralOwner()))
                    + " held its owner node");
        }
        if (p != null && p.seenEdits < edits(tp)) {
            violation("I4: " + m.id + " committed " + tp + " at " + offset + " over an external write it never saw");
        }
        committedSinceExternal.add(tp);
        log.routine(m.id + " committed " + tp + "=" + offset);
    }

    /**
     * A final offset handed over on revocation. The store must keep it only if the member had seen every operator write
     * of the partition: one prepared before an operator's write loses to that write (I4).
     */
    void handedOver(SimMember m, TopicPartition tp, long offset, int seenEdits) {
        if (seenEdits == edits(tp)) {
            committedSinceExternal.add(tp);
        }
        log.event(m.id + " hands over " + tp + "=" + offset);
    }

    /** An operator wrote {@code tp}'s offset node: {@code value} is where processing starts again (null: unknown). */
    void external(TopicPartition tp, String what, Long value) {
        edits.merge(tp, 1, Integer::sum);
        if (value == null) {
            committedSinceExternal.remove(tp);
        } else {
            committedSinceExternal.add(tp);
        }
        floor.put(tp, value == null ? AT_NEXT_START : value);
        log.event("operator " + what + " " + tp + (value == null ? "" : " -> " + value));
    }

    // ------------------------------------------------------------------ once settled

    /** Whether the group looks settled (checked without recording anything): the run may end early. */
    boolean looksSettled(int partitions, String topic,
                         java.util.function.Function<TopicPartition, java.util.OptionalLong> committed,
                         java.util.Set<TopicPartition> excluded) {
        int before = violations.size();
        List<String> saved = new ArrayList<>(violations);
        settled(partitions, topic, committed, excluded);
        boolean quiet = violations.size() == before;
        violations.clear();
        violations.addAll(saved);
        return quiet;
    }

    /**
     * The settled group's checks; partitions in {@code excluded} (offset nodes still corrupt) must only not be processed,
     * and balance is not judged while there are any (a stopped partition is targeted but not owned).
     */
    void settled(int partitions, String topic, java.util.function.Function<TopicPartition, java.util.OptionalLong> committed,
                 java.util.Set<TopicPartition> excluded) {
        List<SimMember> live = members.stream().filter(SimMember::alive).toList();
        if (live.isEmpty()) {
            violation("I6: no live member at the end");
            return;
        }
        SortedSet<TopicPartition> all = new TreeSet<>();
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (SimMember m : live) {
            SortedSet<TopicPartition> a = m.assignment();
            min = Math.min(min, a.size());
            max = Math.max(max, a.size());
            for (TopicPartition tp : a) {
                if (!all.add(tp)) {
                    violation("I1: " + tp + " in two members' assignments at the end");
                }
                if (!m.processing.containsKey(tp)) {
                    violation("I6: " + m.id + " owns " + tp + " but its user code does not process it");
                }
            }
        }
        for (SimMember m : live) {
            for (TopicPartition tp : excluded) {
                if (m.processing.containsKey(tp)) {
                    violation(m.id + " processes " + tp + " while its offset node is corrupt");
                }
            }
        }
        for (SimMember m : live) {
            SortedSet<TopicPartition> target = new TreeSet<>(targets.apply(m.id));
            target.removeAll(excluded);
            if (!target.equals(m.assignment())) {
                violation("I6: " + m.id + " owns " + m.assignment() + " but its published target is " + target);
            }
        }
        if (excluded.isEmpty() && max - min > 1) {
            violation("I6: assignment not balanced at the end (" + min + ".." + max + " partitions per member)");
        }
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            if (excluded.contains(tp)) {
                continue;
            }
            if (!all.contains(tp)) {
                violation("I6: " + tp + " owned by no live member at the end");
                continue;
            }
            java.util.OptionalLong c = committed.apply(tp);
            if (c.isEmpty() || c.getAsLong() != logEnd(tp)) {
                violation("I6: " + tp + " committed " + c + " at the end, log end " + logEnd(tp));
            }
            long f = floor.getOrDefault(tp, NO_FLOOR);
            if (f >= 0) {
                BitSet done = processed.getOrDefault(tp, new BitSet());
                int missing = done.nextClearBit((int) f);
                if (missing < logEnd(tp)) {
                    violation("lost: " + tp + " record " + missing + " never processed (start " + f + ", log end "
                            + logEnd(tp) + ")");
                }
            }
        }
    }

    private String ownerPath(TopicPartition tp) {
        return ZkLayout.owner(group, tp);
    }

    String offsetPath(TopicPartition tp) {
        return ZkLayout.offset(group, tp);
    }
}

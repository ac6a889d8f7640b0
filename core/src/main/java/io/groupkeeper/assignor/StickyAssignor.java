package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default assignor: balanced, sticky and deterministic.
 *
 * <p>Algorithm, in three phases, and a fourth when members and partitions have racks:
 * <ol>
 *   <li><b>Keep.</b> Every partition of the current assignment stays with its owner if the owner is still a
 *   member, still subscribes to the topic, and the partition still exists.</li>
 *   <li><b>Place.</b> Each partition left without an owner goes to the least-loaded member subscribed to its
 *   topic (ties by member id); topics with fewer subscribers are placed first.</li>
 *   <li><b>Balance.</b> Load levels are processed from the highest down. At level {@code k} a breadth-first
 *   search from the members owning {@code k} partitions looks for a member owning at most {@code k - 2} that can
 *   be reached by handing partitions on: the source gives a partition of a topic to a subscriber of that topic,
 *   which may in turn give one of its partitions to a subscriber of that one, and so on. The least-loaded
 *   reachable member (then the nearest, then the first in search order) receives; along the path the source loses
 *   one partition, the receiver gains one and the members in between keep their count. Each giver hands over its
 *   highest-ordered partition of the topic, preferring one that has already changed owner in this run (moving it
 *   again costs nothing). A level is done when no such path exists; no later step can undo that, so one sweep
 *   from the top suffices.</li>
 *   <li><b>Racks</b> (only when some member has a rack and {@link AssignmentInput#partitionRacks()} knows some
 *   partition's replica racks). {@link RackLocality} applies cycles of hand-overs (each member of a cycle gives one
 *   partition and receives one, or two members of adjacent loads swap loads) that raise the number of partitions read
 *   from a replica in the owner's rack, preferring partitions that already moved in this run. The multiset of loads
 *   never changes, so balance is exactly that of phase 3; with a common subscription the same-rack count is then the
 *   largest any balanced assignment has (tested against a max-flow oracle). When racks cannot gain anything, nothing
 *   changes. Like KIP-881's sticky assignors, balance comes first, then locality, then stickiness: a partition may move
 *   to make the group more local.</li>
 * </ol>
 *
 * <p>Guarantees:
 * <ul>
 *   <li><b>Valid</b> as required by {@link PartitionAssignor}; every member of the input appears in the result.</li>
 *   <li><b>Balanced.</b> When the search ends no path from a member with {@code k} partitions to one with
 *   {@code k - 2} or fewer exists, which is exactly the optimality condition of a balanced "semi-matching"
 *   (Harvey, Ladner, Lovász and Tamir, 2003): no other valid assignment has a smaller largest load or a more even
 *   spread (a smaller sum of squared loads). In
 *   particular members with the same subscription (counting only topics that exist) differ by at most one
 *   partition, and with one common subscription every member has {@code floor(P/M)} or {@code ceil(P/M)}.</li>
 *   <li><b>Sticky.</b> With one common subscription each member's quota is {@code floor(P/M)} or
 *   {@code ceil(P/M)}, the ceilings going to members that already own more than the floor where possible; only
 *   the excess of members above their quota moves (their highest-ordered partitions), always to a member below
 *   its quota, so a member at or under its quota loses nothing and the number of moves is the minimum possible.
 *   With different subscriptions balance can force a member to swap: if {@code a} subscribes to x and y and owns
 *   y:0, and {@code b}, subscribed to y only, joins as x gets its first partition, the only balanced answer gives
 *   y:0 to {@code b} and x:0 to {@code a}. There the choices above (least-loaded receiver, short paths,
 *   already-moved partitions first, scarce topics placed first) keep movement low, but the minimum is not
 *   guaranteed. Always: feeding the result back as the current assignment moves nothing.</li>
 *   <li><b>Deterministic</b>: a pure function of the (sorted) input; no clock, no randomness, no hash order.</li>
 * </ul>
 *
 * <p>Cost: the search runs over topics and classes of members with identical subscriptions rather than over
 * members, O(T + C + E) per search for T topics, C classes and E class-topic pairs, and stops early once it reaches
 * a least-loaded member. With a common subscription there is one class: placement is O((P + M) log M) and each move
 * O(log M) plus the sources' owned topics. Without racks, 1,000 members on 10,000 partitions take tens of
 * milliseconds, with common or mixed subscriptions. With racks (some member has one and partitions have known replica
 * racks) the rack phase ({@code RackLocality}) adds to that: benchmarks/RESULTS.md measures a fresh group of 1,000
 * members on 10,000 partitions in three racks at 847 ms rack-aware against 118 ms rack-blind (~0.7 s for the rack
 * phase, a loaded machine), and one member joining at 219 ms against 124 ms.
 *
 * <p>About 600 lines, 80 of them this comment: the phases share one working state ({@code Run}: loads, owners,
 * subscription classes), the balance phase's search is most of it, and the rack phase is {@code RackLocality}; it is
 * tested as a whole by the assignor contract and property tests.
 */
public final class StickyAssignor implements PartitionAssignor {

    public static final String NAME = "sticky";

    private static final Logger LOG = LoggerFactory.getLogger(StickyAssignor.class);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Objects.requireNonNull(input, "input");
        Run run = new Run(input);
        run.keepCurrent();
        run.placeUnowned();
        run.balance();
        run.improveLocality();
        Assignment result = run.result();
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "sticky: {} members, {} partitions: kept {}, placed {}, moved {} ({} hand-on paths, {} searches, "
                            + "{} rack cycles, same-rack {} -> {})",
                    run.memberCount,
                    run.totalPartitions,
                    run.kept,
                    run.placed,
                    run.moved(),
                    run.paths,
                    run.searches,
                    run.rackCycles,
                    run.localBefore,
                    run.localAfter);
        }
        return result;
    }

    @Override
    public String toString() {
        return NAME;
    }

    /** The state of one assignment. Members, topics and classes are dense indexes in sorted order. */
    private static final class Run {

        private static final long LOW32 = 0xFFFF_FFFFL;
        /** In an owned-partition key: set when the holder is not the partition's previous owner (moving it is free). */
        private static final long FREE = 1L << 31;

        final AssignmentInput input;
        final int memberCount;
        final String[] memberIds;
        final Map<String, Integer> memberIndex = new HashMap<>();
        /** Member to the topics it subscribes to that exist (count > 0), ascending. */
        final int[][] memberTopics;

        final int topicCount;
        final String[] topicNames;
        final Map<String, Integer> topicIndex = new HashMap<>();
        final int[] partitionCount;
        /** Global partition index of partition 0 of a topic. */
        final int[] offset;

        final int totalPartitions;
        /** Topic to its subscribers, ascending member index. */
        final int[][] subscribers;

        /** Members with identical (existing) topic sets form a class; classes are numbered by their first member. */
        final int[] classOf;

        final int[][] classMembers;
        final int[][] classTopics;
        /** Aligned with classTopics: how many partitions of that topic the class's members own. */
        final int[][] classOwned;

        final int[][] classesOfTopic;

        /** Global partition index to owning member, or -1. */
        final int[] owner;
        /** Global partition index to the current owner that keeps it in phase 1, or -1. */
        final int[] previous;

        final int[] load;
        /** Per member: owned partitions as (topic << 32 | FREE? | partition). */
        final TreeSet<Long>[] owned;

        /** During balancing: (load << 32 | member) of members with at least one topic, overall and per class. */
        TreeSet<Long> byLoad;

        TreeSet<Long>[] classByLoad;

        int kept;
        int placed;
        int paths;
        int searches;

        // Search scratch space, reused: visit stamps avoid clearing between searches.
        int stamp;
        int[] topicSeen;
        int[] classSeen;
        int[] topicFromMember;
        int[] topicFromClass;
        int[] classFromTopic;
        int[] queueKind;
        int[] queueIndex;

        @SuppressWarnings("unchecked")
        Run(AssignmentInput input) {
            this.input = input;
            SortedMap<String, MemberSubscription> members = input.members();
            memberIds = members.keySet().toArray(new String[0]);
            memberCount = memberIds.length;
            for (int m = 0; m < memberCount; m++) {
                memberIndex.put(memberIds[m], m);
            }

            // Topics that exist and have a subscriber, with their subscribers in member order.
            SortedMap<String, List<Integer>> subscribersByTopic = new TreeMap<>();
            for (int m = 0; m < memberCount; m++) {
                for (String topic : members.get(memberIds[m]).topics()) {
                    Integer partitions = input.partitionCounts().get(topic);
                    if (partitions != null && partitions > 0) {
                        subscribersByTopic
                                .computeIfAbsent(topic, t -> new ArrayList<>())
                                .add(m);
                    }
                }
            }
            topicCount = subscribersByTopic.size();
            topicNames = new String[topicCount];
            partitionCount = new int[topicCount];
            offset = new int[topicCount];
            subscribers = new int[topicCount][];
            List<List<Integer>> topicsOfMember = new ArrayList<>(memberCount);
            for (int m = 0; m < memberCount; m++) {
                topicsOfMember.add(new ArrayList<>());
            }
            int t = 0;
            int total = 0;
            for (Map.Entry<String, List<Integer>> e : subscribersByTopic.entrySet()) {
                topicNames[t] = e.getKey();
                topicIndex.put(e.getKey(), t);
                partitionCount[t] = input.partitionCounts().get(e.getKey());
                offset[t] = total;
                total = Math.addExact(total, partitionCount[t]);
                subscribers[t] =
                        e.getValue().stream().mapToInt(Integer::intValue).toArray();
                for (int m : subscribers[t]) {
                    topicsOfMember.get(m).add(t);
                }
                t++;
            }
            totalPartitions = total;
            memberTopics = new int[memberCount][];
            for (int m = 0; m < memberCount; m++) {
                memberTopics[m] = topicsOfMember.get(m).stream()
                        .mapToInt(Integer::intValue)
                        .toArray();
            }

            // Subscription classes.
            classOf = new int[memberCount];
            Map<List<Integer>, Integer> classIds = new HashMap<>();
            List<List<Integer>> membersOfClass = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                List<Integer> key = topicsOfMember.get(m);
                Integer c = classIds.get(key);
                if (c == null) {
                    c = membersOfClass.size();
                    classIds.put(key, c);
                    membersOfClass.add(new ArrayList<>());
                }
                classOf[m] = c;
                membersOfClass.get(c).add(m);
            }
            int classCount = membersOfClass.size();
            classMembers = new int[classCount][];
            classTopics = new int[classCount][];
            classOwned = new int[classCount][];
            List<List<Integer>> classesByTopic = new ArrayList<>(topicCount);
            for (int i = 0; i < topicCount; i++) {
                classesByTopic.add(new ArrayList<>());
            }
            for (int c = 0; c < classCount; c++) {
                classMembers[c] = membersOfClass.get(c).stream()
                        .mapToInt(Integer::intValue)
                        .toArray();
                classTopics[c] = memberTopics[classMembers[c][0]];
                classOwned[c] = new int[classTopics[c].length];
                for (int topic : classTopics[c]) {
                    classesByTopic.get(topic).add(c);
                }
            }
            classesOfTopic = new int[topicCount][];
            for (int i = 0; i < topicCount; i++) {
                classesOfTopic[i] = classesByTopic.get(i).stream()
                        .mapToInt(Integer::intValue)
                        .toArray();
            }

            owner = new int[totalPartitions];
            previous = new int[totalPartitions];
            Arrays.fill(owner, -1);
            Arrays.fill(previous, -1);
            load = new int[memberCount];
            owned = new TreeSet[memberCount];
            for (int m = 0; m < memberCount; m++) {
                owned[m] = new TreeSet<>();
            }
        }

        /** Phase 1: keep every current ownership that is still valid. */
        void keepCurrent() {
            for (Map.Entry<String, SortedSet<TopicPartition>> e :
                    input.current().byMember().entrySet()) {
                Integer m = memberIndex.get(e.getKey());
                if (m == null) {
                    continue; // left the group
                }
                for (TopicPartition tp : e.getValue()) {
                    Integer t = topicIndex.get(tp.topic());
                    if (t == null
                            || tp.partition() >= partitionCount[t]
                            || Arrays.binarySearch(memberTopics[m], t) < 0) {
                        continue; // topic gone or unsubscribed, or partition gone
                    }
                    int g = offset[t] + tp.partition();
                    previous[g] = m;
                    take(m, t, tp.partition());
                    kept++;
                }
            }
        }

        /** Phase 2: each unowned partition to the least-loaded subscriber; topics with fewest subscribers first. */
        void placeUnowned() {
            Integer[] order = new Integer[topicCount];
            for (int t = 0; t < topicCount; t++) {
                order[t] = t;
            }
            Arrays.sort(
                    order,
                    (a, b) -> subscribers[a].length != subscribers[b].length
                            ? Integer.compare(subscribers[a].length, subscribers[b].length)
                            : Integer.compare(a, b));
            for (int t : order) {
                // Lazy heap of (load << 32 | member): loads only grow in this phase, so an entry whose load is stale
                // is too low and is re-queued when it surfaces. Each member has exactly one entry.
                PriorityQueue<Long> heap = null;
                for (int p = 0; p < partitionCount[t]; p++) {
                    if (owner[offset[t] + p] >= 0) {
                        continue;
                    }
                    if (heap == null) {
                        heap = new PriorityQueue<>(subscribers[t].length);
                        for (int m : subscribers[t]) {
                            heap.add(loadKey(m));
                        }
                    }
                    int m;
                    while (true) {
                        long key = heap.poll();
                        m = (int) (key & LOW32);
                        if ((int) (key >>> 32) == load[m]) {
                            break;
                        }
                        heap.add(loadKey(m));
                    }
                    take(m, t, p);
                    heap.add(loadKey(m));
                    placed++;
                }
            }
        }

        /** Phase 3: remove every path from a member with k partitions to one with at most k - 2, top level down. */
        @SuppressWarnings("unchecked")
        void balance() {
            byLoad = new TreeSet<>();
            classByLoad = new TreeSet[classMembers.length];
            for (int c = 0; c < classMembers.length; c++) {
                classByLoad[c] = new TreeSet<>();
            }
            for (int m = 0; m < memberCount; m++) {
                if (memberTopics[m].length > 0) {
                    byLoad.add(loadKey(m));
                    classByLoad[classOf[m]].add(loadKey(m));
                }
            }
            if (byLoad.isEmpty()) {
                return;
            }
            topicSeen = new int[topicCount];
            classSeen = new int[classMembers.length];
            topicFromMember = new int[topicCount];
            topicFromClass = new int[topicCount];
            classFromTopic = new int[classMembers.length];
            int capacity = memberCount + topicCount + classMembers.length;
            queueKind = new int[capacity];
            queueIndex = new int[capacity];

            int level = (int) (byLoad.last() >>> 32);
            while (level >= (int) (byLoad.first() >>> 32) + 2) {
                if (!shiftOnce(level)) {
                    // Level settled; continue with the next lower load that some member has.
                    Long lower = byLoad.lower((long) level << 32);
                    if (lower == null) {
                        break;
                    }
                    level = (int) (lower >>> 32);
                }
            }
        }

        private static final int MEMBER = 0;
        private static final int TOPIC = 1;
        private static final int CLASS = 2;

        /**
         * One breadth-first search from all members with {@code level} partitions over member -> owned topic ->
         * subscribing class -> topic owned in that class -> ...; if it reaches a member with at most
         * {@code level - 2} partitions, hands one partition along the path to the least-loaded such member (the
         * nearest among equally loaded ones, then the first found) and returns true.
         */
        private boolean shiftOnce(int level) {
            searches++;
            stamp++;
            int head = 0;
            int tail = 0;
            for (Long key : byLoad.subSet((long) level << 32, true, ((long) level << 32) | LOW32, true)) {
                queueKind[tail] = MEMBER;
                queueIndex[tail++] = (int) (key & LOW32);
            }
            if (tail == 0) {
                return false;
            }
            int globalMin = (int) (byLoad.first() >>> 32);
            int threshold = level - 2;
            int bestClass = -1;
            int bestLoad = Integer.MAX_VALUE;
            search:
            while (head < tail) {
                int kind = queueKind[head];
                int index = queueIndex[head++];
                if (kind == MEMBER) {
                    // Owned topics, highest first, by jumping over the partitions of each topic.
                    Long key = owned[index].isEmpty() ? null : owned[index].last();
                    while (key != null) {
                        int t = (int) (key >>> 32);
                        if (topicSeen[t] != stamp) {
                            topicSeen[t] = stamp;
                            topicFromMember[t] = index;
                            topicFromClass[t] = -1;
                            queueKind[tail] = TOPIC;
                            queueIndex[tail++] = t;
                        }
                        key = owned[index].lower((long) t << 32);
                    }
                } else if (kind == TOPIC) {
                    for (int c : classesOfTopic[index]) {
                        if (classSeen[c] == stamp) {
                            continue;
                        }
                        classSeen[c] = stamp;
                        classFromTopic[c] = index;
                        int least = (int) (classByLoad[c].first() >>> 32);
                        if (least <= threshold && least < bestLoad) {
                            bestLoad = least;
                            bestClass = c;
                            if (least == globalMin) {
                                break search; // nothing can be lower
                            }
                        }
                        queueKind[tail] = CLASS;
                        queueIndex[tail++] = c;
                    }
                } else {
                    int[] topics = classTopics[index];
                    for (int i = topics.length - 1; i >= 0; i--) {
                        int t = topics[i];
                        if (classOwned[index][i] > 0 && topicSeen[t] != stamp) {
                            topicSeen[t] = stamp;
                            topicFromMember[t] = -1;
                            topicFromClass[t] = index;
                            queueKind[tail] = TOPIC;
                            queueIndex[tail++] = t;
                        }
                    }
                }
            }
            if (bestClass < 0) {
                return false;
            }
            // Walk back from the receiver to the source, handing one partition over at every step. Each class is
            // on the path once, so a step never disturbs the ownership a later (earlier on the path) step relies on.
            int receiver = (int) (classByLoad[bestClass].first() & LOW32);
            int c = bestClass;
            while (true) {
                int t = classFromTopic[c];
                if (topicFromMember[t] >= 0) {
                    hand(topicFromMember[t], receiver, t);
                    break;
                }
                c = topicFromClass[t];
                int giver = giverIn(c, t);
                hand(giver, receiver, t);
                receiver = giver;
            }
            paths++;
            return true;
        }

        /** The member of class {@code c} that gives a partition of {@code t}: one holding a free one, else the first. */
        private int giverIn(int c, int t) {
            int first = -1;
            for (int m : classMembers[c]) {
                Long top = owned[m].floor(((long) t << 32) | LOW32);
                if (top != null && (int) (top >>> 32) == t) {
                    if ((top & FREE) != 0) {
                        return m;
                    }
                    if (first < 0) {
                        first = m;
                    }
                }
            }
            if (first < 0) {
                throw new IllegalStateException("class " + c + " owns no partition of " + topicNames[t]);
            }
            return first;
        }

        /** Moves {@code giver}'s highest partition of {@code t} (a free one if it has any) to {@code receiver}. */
        private void hand(int giver, int receiver, int t) {
            Long top = owned[giver].floor(((long) t << 32) | LOW32);
            if (top == null || (int) (top >>> 32) != t) {
                throw new IllegalStateException(memberIds[giver] + " owns no partition of " + topicNames[t]);
            }
            int p = (int) (top & (FREE - 1));
            owned[giver].remove(top);
            adjustLoad(giver, -1);
            classOwned[classOf[giver]][Arrays.binarySearch(classTopics[classOf[giver]], t)]--;
            take(receiver, t, p);
        }

        private void take(int m, int t, int p) {
            int g = offset[t] + p;
            owner[g] = m;
            owned[m].add(((long) t << 32) | (previous[g] == m ? 0 : FREE) | p);
            adjustLoad(m, +1);
            int c = classOf[m];
            classOwned[c][Arrays.binarySearch(classTopics[c], t)]++;
        }

        private void adjustLoad(int m, int delta) {
            if (byLoad != null) {
                byLoad.remove(loadKey(m));
                classByLoad[classOf[m]].remove(loadKey(m));
            }
            load[m] += delta;
            if (byLoad != null) {
                byLoad.add(loadKey(m));
                classByLoad[classOf[m]].add(loadKey(m));
            }
        }

        private long loadKey(int m) {
            return ((long) load[m] << 32) | m;
        }

        int rackCycles;
        int localBefore;
        int localAfter;

        /**
         * Phase 4, only when members and partitions have racks: {@link RackLocality} raises the share of partitions
         * read in their owner's rack without changing the loads' multiset.
         */
        void improveLocality() {
            PartitionRacks racks = input.partitionRacks();
            Map<String, Integer> rackIndex = new TreeMap<>();
            int[] memberRack = new int[memberCount];
            for (int m = 0; m < memberCount; m++) {
                String rack = input.members().get(memberIds[m]).rack().orElse(null);
                memberRack[m] = rack == null ? -1 : rackIndex.computeIfAbsent(rack, r -> rackIndex.size());
            }
            if (rackIndex.isEmpty() || racks.isEmpty() || totalPartitions == 0) {
                return;
            }
            int[] topicOf = new int[totalPartitions];
            int[] rackSet = new int[totalPartitions];
            Map<List<Integer>, Integer> setIndex = new HashMap<>();
            List<boolean[]> remote = new ArrayList<>();
            for (int t = 0; t < topicCount; t++) {
                for (int p = 0; p < partitionCount[t]; p++) {
                    int g = offset[t] + p;
                    topicOf[g] = t;
                    SortedSet<String> replicaRacks = racks.racksOf(topicNames[t], p);
                    if (replicaRacks.isEmpty()) {
                        rackSet[g] = -1;
                        continue;
                    }
                    List<Integer> local = new ArrayList<>();
                    for (String r : replicaRacks) {
                        Integer i = rackIndex.get(r);
                        if (i != null) {
                            local.add(i);
                        }
                    }
                    rackSet[g] = setIndex.computeIfAbsent(local, l -> {
                        boolean[] row = new boolean[rackIndex.size()];
                        Arrays.fill(row, true);
                        l.forEach(i -> row[i] = false);
                        remote.add(row);
                        return remote.size() - 1;
                    });
                }
            }
            boolean[][] remoteTable = remote.toArray(new boolean[0][]);
            localBefore = RackLocality.localCount(owner, memberRack, rackSet, remoteTable);
            RackLocality phase = new RackLocality(
                    memberCount, classOf, classTopics, memberRack, topicOf, rackSet, remoteTable, owner, previous);
            phase.run();
            rackCycles = phase.cycles;
            localAfter = RackLocality.localCount(owner, memberRack, rackSet, remoteTable);
        }

        int moved() {
            int moved = 0;
            for (int g = 0; g < totalPartitions; g++) {
                if (previous[g] >= 0 && owner[g] != previous[g]) {
                    moved++;
                }
            }
            return moved;
        }

        Assignment result() {
            Map<String, SortedSet<TopicPartition>> byMember = new TreeMap<>();
            for (String id : memberIds) {
                byMember.put(id, new TreeSet<>());
            }
            for (int t = 0; t < topicCount; t++) {
                for (int p = 0; p < partitionCount[t]; p++) {
                    int m = owner[offset[t] + p];
                    if (m < 0) {
                        throw new IllegalStateException("partition " + topicNames[t] + ":" + p + " left unassigned");
                    }
                    byMember.get(memberIds[m]).add(new TopicPartition(topicNames[t], p));
                }
            }
            return Assignment.of(byMember);
        }
    }
}

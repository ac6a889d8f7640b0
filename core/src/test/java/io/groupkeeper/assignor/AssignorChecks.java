package io.groupkeeper.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.groupkeeper.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** Builders and independent checks shared by the assignor tests. */
final class AssignorChecks {

    private AssignorChecks() {}

    // ---------------------------------------------------------------- building inputs

    static MemberSubscription member(String id, String... topics) {
        return MemberSubscription.of(id, topics);
    }

    static Map<String, MemberSubscription> members(MemberSubscription... subscriptions) {
        Map<String, MemberSubscription> map = new LinkedHashMap<>();
        for (MemberSubscription s : subscriptions) {
            map.put(s.memberId(), s);
        }
        return map;
    }

    /** {@code count} members {@code prefix000..}, all subscribed to {@code topics}. */
    static Map<String, MemberSubscription> homogeneous(String prefix, int count, String... topics) {
        Map<String, MemberSubscription> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String id = String.format("%s%03d", prefix, i);
            map.put(id, MemberSubscription.of(id, topics));
        }
        return map;
    }

    static Map<String, Integer> counts(Object... topicThenCount) {
        Map<String, Integer> map = new LinkedHashMap<>();
        for (int i = 0; i < topicThenCount.length; i += 2) {
            map.put((String) topicThenCount[i], (Integer) topicThenCount[i + 1]);
        }
        return map;
    }

    static AssignmentInput input(Map<String, MemberSubscription> members, Map<String, Integer> counts) {
        return AssignmentInput.of(members, counts, Assignment.empty());
    }

    static AssignmentInput input(
            Map<String, MemberSubscription> members, Map<String, Integer> counts, Assignment current) {
        return AssignmentInput.of(members, counts, current);
    }

    static TopicPartition tp(String topic, int partition) {
        return TopicPartition.of(topic, partition);
    }

    static Set<TopicPartition> tps(String... topicColonPartition) {
        Set<TopicPartition> set = new TreeSet<>();
        for (String s : topicColonPartition) {
            set.add(TopicPartition.parse(s));
        }
        return set;
    }

    /** Builds an assignment from alternating member id and partition sets. */
    static Assignment assignment(Object... memberThenPartitions) {
        Map<String, Set<TopicPartition>> map = new TreeMap<>();
        for (int i = 0; i < memberThenPartitions.length; i += 2) {
            @SuppressWarnings("unchecked")
            Set<TopicPartition> set = (Set<TopicPartition>) memberThenPartitions[i + 1];
            map.put((String) memberThenPartitions[i], set);
        }
        return Assignment.of(map);
    }

    /** The same input with members, counts and the current assignment supplied in a shuffled order. */
    static AssignmentInput shuffled(AssignmentInput input, long seed) {
        Random random = new Random(seed);
        List<String> ids = new ArrayList<>(input.members().keySet());
        Collections.shuffle(ids, random);
        Map<String, MemberSubscription> members = new LinkedHashMap<>();
        for (String id : ids) {
            MemberSubscription s = input.members().get(id);
            List<String> topics = new ArrayList<>(s.topics());
            Collections.shuffle(topics, random);
            members.put(id, new MemberSubscription(id, new TreeSet<>(topics), s.instanceId()));
        }
        List<String> topics = new ArrayList<>(input.partitionCounts().keySet());
        Collections.shuffle(topics, random);
        Map<String, Integer> counts = new LinkedHashMap<>();
        topics.forEach(t -> counts.put(t, input.partitionCounts().get(t)));
        List<String> owners = new ArrayList<>(input.current().byMember().keySet());
        Collections.shuffle(owners, random);
        Map<String, Set<TopicPartition>> current = new LinkedHashMap<>();
        for (String o : owners) {
            List<TopicPartition> parts = new ArrayList<>(input.current().partitionsOf(o));
            Collections.shuffle(parts, random);
            current.put(o, new java.util.LinkedHashSet<>(parts));
        }
        return AssignmentInput.of(members, counts, Assignment.of(current));
    }

    // ---------------------------------------------------------------- derived facts

    /** Topics a member subscribes to that exist with at least one partition. */
    static SortedSet<String> effectiveTopics(AssignmentInput input, String member) {
        SortedSet<String> topics = new TreeSet<>();
        for (String t : input.members().get(member).topics()) {
            Integer n = input.partitionCounts().get(t);
            if (n != null && n > 0) {
                topics.add(t);
            }
        }
        return topics;
    }

    /** Number of partitions that exist and have at least one subscriber. */
    static int assignablePartitions(AssignmentInput input) {
        int total = 0;
        for (Map.Entry<String, Integer> e : input.partitionCounts().entrySet()) {
            boolean subscribed =
                    input.members().values().stream().anyMatch(s -> s.topics().contains(e.getKey()));
            if (subscribed) {
                total += e.getValue();
            }
        }
        return total;
    }

    /** Partitions of the current assignment its owner may keep: owner present, subscribed, partition exists. */
    static Set<TopicPartition> validCurrent(AssignmentInput input, String member) {
        Set<TopicPartition> valid = new TreeSet<>();
        if (!input.members().containsKey(member)) {
            return valid;
        }
        for (TopicPartition tp : input.current().partitionsOf(member)) {
            Integer n = input.partitionCounts().get(tp.topic());
            if (n != null
                    && tp.partition() < n
                    && input.members().get(member).topics().contains(tp.topic())) {
                valid.add(tp);
            }
        }
        return valid;
    }

    static Map<String, Integer> loads(AssignmentInput input, Assignment result) {
        Map<String, Integer> loads = new TreeMap<>();
        input.members()
                .keySet()
                .forEach(m -> loads.put(m, result.partitionsOf(m).size()));
        return loads;
    }

    static int spread(AssignmentInput input, Assignment result) {
        Map<String, Integer> loads = loads(input, result);
        if (loads.isEmpty()) {
            return 0;
        }
        return Collections.max(loads.values()) - Collections.min(loads.values());
    }

    /** Partitions owned by a still-valid previous owner that now belong to someone else. */
    static int moves(AssignmentInput input, Assignment result) {
        int moves = 0;
        for (String m : input.members().keySet()) {
            for (TopicPartition tp : validCurrent(input, m)) {
                if (!result.partitionsOf(m).contains(tp)) {
                    moves++;
                }
            }
        }
        return moves;
    }

    /** Whether all members have the same effective subscription (and there is at least one member). */
    static boolean isHomogeneous(AssignmentInput input) {
        Set<SortedSet<String>> distinct = new HashSet<>();
        input.members().keySet().forEach(m -> distinct.add(effectiveTopics(input, m)));
        return distinct.size() == 1;
    }

    // ---------------------------------------------------------------- checks

    /** The {@link PartitionAssignor} contract. */
    static void assertValid(AssignmentInput input, Assignment result) {
        Map<String, Set<String>> subscribersByTopic = new HashMap<>();
        input.members()
                .forEach((id, s) -> s.topics()
                        .forEach(t -> subscribersByTopic
                                .computeIfAbsent(t, k -> new HashSet<>())
                                .add(id)));
        assertThat(input.members().keySet())
                .as("only input members")
                .containsAll(result.byMember().keySet());
        Map<TopicPartition, String> owners = new HashMap<>();
        result.byMember().forEach((member, partitions) -> {
            for (TopicPartition tp : partitions) {
                Integer n = input.partitionCounts().get(tp.topic());
                assertThat(n).as("%s given %s of an unknown topic", member, tp).isNotNull();
                assertThat(tp.partition())
                        .as("%s given nonexistent %s", member, tp)
                        .isLessThan(n);
                assertThat(input.members().get(member).topics())
                        .as("%s given %s without subscribing", member, tp)
                        .contains(tp.topic());
                String other = owners.put(tp, member);
                assertThat(other).as("%s given twice", tp).isNull();
            }
        });
        input.partitionCounts().forEach((topic, n) -> {
            boolean subscribed = subscribersByTopic.containsKey(topic);
            for (int p = 0; p < n; p++) {
                if (subscribed) {
                    assertThat(owners)
                            .as("partition %s:%d of a subscribed topic", topic, p)
                            .containsKey(tp(topic, p));
                } else {
                    assertThat(owners)
                            .as("partition %s:%d of an unsubscribed topic", topic, p)
                            .doesNotContainKey(tp(topic, p));
                }
            }
        });
        assertThat(result.partitionCount()).isEqualTo(assignablePartitions(input));
    }

    /** Members with the same effective subscription differ by at most one partition. */
    static void assertEqualSubscriptionsBalanced(AssignmentInput input, Assignment result) {
        Map<SortedSet<String>, List<Integer>> byClass = new HashMap<>();
        input.members()
                .keySet()
                .forEach(m -> byClass.computeIfAbsent(effectiveTopics(input, m), k -> new ArrayList<>())
                        .add(result.partitionsOf(m).size()));
        byClass.forEach((topics, loads) -> assertThat(Collections.max(loads) - Collections.min(loads))
                .as("spread among members subscribed to %s: %s", topics, loads)
                .isLessThanOrEqualTo(1));
    }

    /** With a common subscription, every member has floor(P/M) or ceil(P/M). */
    static void assertFloorCeil(AssignmentInput input, Assignment result) {
        int p = assignablePartitions(input);
        int m = input.members().size();
        int floor = p / m;
        int ceil = (p + m - 1) / m;
        loads(input, result)
                .forEach((member, load) -> assertThat(load)
                        .as("load of %s (P=%d, M=%d)", member, p, m)
                        .isBetween(floor, ceil));
    }

    /**
     * Optimal balance: no member with k partitions can hand partitions along a chain (a partition of topic t to a
     * subscriber of t, which hands one of its own on, ...) to a member with k - 2 or fewer. This is the optimality
     * condition for balanced semi-matchings (Harvey et al. 2003): it implies the largest load is minimal and no
     * reassignment makes the loads more even. Checked by a member-level search independent of the assignor.
     */
    static void assertOptimallyBalanced(AssignmentInput input, Assignment result) {
        Map<String, Integer> loads = loads(input, result);
        Map<String, List<String>> subscribersByTopic = new HashMap<>();
        input.members()
                .forEach((id, s) -> s.topics()
                        .forEach(t -> subscribersByTopic
                                .computeIfAbsent(t, k -> new ArrayList<>())
                                .add(id)));
        Map<String, Set<String>> ownedTopics = new HashMap<>();
        input.members().keySet().forEach(m -> {
            Set<String> topics = new TreeSet<>();
            result.partitionsOf(m).forEach(tp -> topics.add(tp.topic()));
            ownedTopics.put(m, topics);
        });
        for (String source : input.members().keySet()) {
            int sourceLoad = loads.get(source);
            Set<String> seen = new HashSet<>(List.of(source));
            Set<String> seenTopics = new HashSet<>();
            Deque<String> queue = new ArrayDeque<>(List.of(source));
            while (!queue.isEmpty()) {
                String m = queue.poll();
                for (String t : ownedTopics.get(m)) {
                    if (!seenTopics.add(t)) {
                        continue;
                    }
                    for (String next : subscribersByTopic.get(t)) {
                        if (seen.add(next)) {
                            if (loads.get(next) <= sourceLoad - 2) {
                                fail(
                                        "not balanced: %s (%d partitions) can hand partitions on to %s (%d): %s",
                                        source, sourceLoad, next, loads.get(next), loads);
                            }
                            queue.add(next);
                        }
                    }
                }
            }
        }
    }

    /**
     * Stickiness with a common subscription: only members above their quota (their final count) lose partitions,
     * they receive nothing in exchange, and the number of moves is the minimum, i.e. the excess above floor(P/M)
     * minus the ceil(P/M) slots that members owning more than the floor can keep.
     */
    static void assertMinimalMovesHomogeneous(AssignmentInput input, Assignment result) {
        int p = assignablePartitions(input);
        int m = input.members().size();
        int floor = p / m;
        int ceilSlots = p % m;
        int excess = 0;
        int aboveFloor = 0;
        for (String member : input.members().keySet()) {
            Set<TopicPartition> valid = validCurrent(input, member);
            SortedSet<TopicPartition> now = result.partitionsOf(member);
            boolean lostSome = !now.containsAll(valid);
            if (lostSome) {
                assertThat(valid)
                        .as("%s lost partitions, so it must have been over its quota", member)
                        .hasSizeGreaterThan(now.size());
                assertThat(valid)
                        .as("%s lost partitions, so it must not receive any", member)
                        .containsAll(now);
            }
            if (valid.size() > floor) {
                excess += valid.size() - floor;
                aboveFloor++;
            }
        }
        assertThat(moves(input, result)).as("moves").isEqualTo(excess - Math.min(ceilSlots, aboveFloor));
    }
}

package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertEqualSubscriptionsBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertFloorCeil;
import static io.groupkeeper.assignor.AssignorChecks.assertMinimalMovesHomogeneous;
import static io.groupkeeper.assignor.AssignorChecks.assertOptimallyBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * 1,000 members on 10,000 partitions. Asserts correctness only; prints timings (target: well under a second),
 * see target/surefire-reports/io.groupkeeper.assignor.StickyAssignorScaleTest-output.txt.
 */
class StickyAssignorScaleTest {

    private static final int MEMBERS = 1_000;
    private static final int TOPICS = 10;
    private static final int PARTITIONS_PER_TOPIC = 1_000;

    private final StickyAssignor assignor = new StickyAssignor();

    @Test
    void thousandMembersTenThousandPartitionsCommonSubscription() {
        String[] topics = new String[TOPICS];
        Map<String, Integer> counts = new TreeMap<>();
        for (int t = 0; t < TOPICS; t++) {
            topics[t] = "topic-" + t;
            counts.put(topics[t], PARTITIONS_PER_TOPIC);
        }
        Map<String, MemberSubscription> members = new TreeMap<>();
        for (int i = 0; i < MEMBERS; i++) {
            String id = String.format("member-%04d", i);
            members.put(id, MemberSubscription.of(id, topics));
        }

        AssignmentInput fresh = AssignmentInput.of(members, counts, Assignment.empty());
        Assignment first = timed("fresh 1000 x 10000", fresh);
        assertValid(fresh, first);
        assertThat(first.partitionCount()).isEqualTo(10_000);
        assertFloorCeil(fresh, first);

        // 50 members leave, 70 join, one topic grows.
        Map<String, MemberSubscription> changed = new TreeMap<>(members);
        for (int i = 0; i < 50; i++) {
            changed.remove(String.format("member-%04d", i * 20));
        }
        for (int i = 0; i < 70; i++) {
            String id = String.format("joiner-%04d", i);
            changed.put(id, MemberSubscription.of(id, topics));
        }
        counts.put(topics[3], PARTITIONS_PER_TOPIC + 137);
        AssignmentInput rebalance = AssignmentInput.of(changed, counts, first);
        Assignment second = timed("rebalance 1020 x 10137 (50 left, 70 joined)", rebalance);
        assertValid(rebalance, second);
        assertFloorCeil(rebalance, second);
        assertMinimalMovesHomogeneous(rebalance, second);

        // Worst case for the balancing phase: everything on one member, 999 newcomers.
        Set<TopicPartition> all = new TreeSet<>();
        counts.put(topics[3], PARTITIONS_PER_TOPIC);
        counts.forEach((t, n) -> {
            for (int p = 0; p < n; p++) {
                all.add(TopicPartition.of(t, p));
            }
        });
        AssignmentInput skewed = AssignmentInput.of(members, counts, Assignment.of(Map.of("member-0500", all)));
        Assignment third = timed("all on one member, 999 join", skewed);
        assertValid(skewed, third);
        assertFloorCeil(skewed, third);
        assertMinimalMovesHomogeneous(skewed, third);
        assertThat(third.partitionsOf("member-0500")).hasSize(10);
    }

    @Test
    void thousandMembersTenThousandPartitionsDifferentSubscriptions() {
        Random random = new Random(42);
        Map<String, Integer> counts = new TreeMap<>();
        for (int t = 0; t < 40; t++) {
            counts.put(String.format("topic-%02d", t), 100 + random.nextInt(300));
        }
        String[] topics = counts.keySet().toArray(new String[0]);
        Map<String, MemberSubscription> members = new LinkedHashMap<>();
        for (int i = 0; i < MEMBERS; i++) {
            Set<String> subs = new TreeSet<>();
            int n = 1 + random.nextInt(6);
            while (subs.size() < n) {
                subs.add(topics[random.nextInt(topics.length)]);
            }
            String id = String.format("member-%04d", i);
            members.put(id, MemberSubscription.of(id, subs));
        }
        AssignmentInput fresh = AssignmentInput.of(members, counts, Assignment.empty());
        Assignment first = timed(
                "fresh 1000 x "
                        + fresh.partitionCounts().values().stream()
                                .mapToInt(i -> i)
                                .sum() + ", 1-6 random topics of 40 each",
                fresh);
        assertValid(fresh, first);
        assertEqualSubscriptionsBalanced(fresh, first);
        assertOptimallyBalanced(fresh, first);

        // 100 members leave, 100 join with other random subscriptions.
        Map<String, MemberSubscription> changed = new TreeMap<>(members);
        for (int i = 0; i < 100; i++) {
            changed.remove(String.format("member-%04d", i * 10));
            Set<String> subs = new TreeSet<>();
            int n = 1 + random.nextInt(6);
            while (subs.size() < n) {
                subs.add(topics[random.nextInt(topics.length)]);
            }
            String id = String.format("joiner-%04d", i);
            changed.put(id, MemberSubscription.of(id, subs));
        }
        AssignmentInput rebalance = AssignmentInput.of(changed, counts, first);
        Assignment second = timed("rebalance, 100 left, 100 joined", rebalance);
        assertValid(rebalance, second);
        assertEqualSubscriptionsBalanced(rebalance, second);
        assertOptimallyBalanced(rebalance, second);
    }

    private Assignment timed(String what, AssignmentInput input) {
        Supplier<Assignment> run = () -> assignor.assign(input);
        long start = System.nanoTime();
        Assignment result = run.get();
        long firstMillis = (System.nanoTime() - start) / 1_000_000;
        // Once more, warm, for a steadier number.
        start = System.nanoTime();
        Assignment again = run.get();
        long warmMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(again).isEqualTo(result);
        System.out.printf(
                "sticky %s: %d ms cold, %d ms warm; %d partitions, %d moved%n",
                what, firstMillis, warmMillis, result.partitionCount(), AssignorChecks.moves(input, result));
        return result;
    }
}

package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertOptimallyBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.loads;
import static io.groupkeeper.assignor.AssignorChecks.moves;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class RackAwareStickyAssignorTest {

    private final StickyAssignor sticky = new StickyAssignor();

    private static MemberSubscription member(String id, String rack, String... topics) {
        return new MemberSubscription(id, new TreeSet<>(Set.of(topics)), Optional.empty(), Optional.ofNullable(rack));
    }

    /** Partition p of topic t lives on rack racks[p % racks.length] only (replication 1, leaders round the racks). */
    private static PartitionRacks roundRobinRacks(String topic, int partitions, String... racks) {
        Map<TopicPartition, Set<String>> map = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            map.put(new TopicPartition(topic, p), Set.of(racks[p % racks.length]));
        }
        return PartitionRacks.of(map);
    }

    @Test
    void everyPartitionGoesToAMemberInItsRackWhenBalanceAllows() {
        // Members sorted by id alternate racks so that the rack-blind result is not local by accident.
        Map<String, MemberSubscription> members = Map.of(
                "m1",
                member("m1", "a", "t"),
                "m2",
                member("m2", "b", "t"),
                "m3",
                member("m3", "c", "t"),
                "m4",
                member("m4", "a", "t"),
                "m5",
                member("m5", "b", "t"),
                "m6",
                member("m6", "c", "t"));
        PartitionRacks racks = roundRobinRacks("t", 12, "c", "a", "b");
        AssignmentInput input = AssignmentInput.of(members, Map.of("t", 12), Assignment.empty(), racks);

        Assignment result = sticky.assign(input);
        Assignment blind = sticky.assign(AssignmentInput.of(members, Map.of("t", 12), Assignment.empty()));

        assertValid(input, result);
        assertThat(loads(input, result).values()).containsOnly(2);
        assertThat(RackOracle.local(input, result)).isEqualTo(12);
        assertThat(RackOracle.local(input, blind)).isLessThan(12);
    }

    @Test
    void balanceWinsOverLocality() {
        // All four partitions live in rack a only; the member in b still gets its two.
        Map<String, MemberSubscription> members = Map.of("m1", member("m1", "a", "t"), "m2", member("m2", "b", "t"));
        AssignmentInput input =
                AssignmentInput.of(members, Map.of("t", 4), Assignment.empty(), roundRobinRacks("t", 4, "a"));

        Assignment result = sticky.assign(input);

        assertThat(loads(input, result).values()).containsOnly(2);
        assertThat(RackOracle.local(input, result)).isEqualTo(2);
    }

    @Test
    void theCeilingGoesToTheMemberThatCanReadLocally() {
        // Three partitions in rack a, two members: the extra partition goes to the member in a, whoever owned it.
        Map<String, MemberSubscription> members = Map.of("m1", member("m1", "b", "t"), "m2", member("m2", "a", "t"));
        Assignment current =
                AssignorChecks.assignment("m1", AssignorChecks.tps("t:0", "t:1"), "m2", AssignorChecks.tps("t:2"));
        AssignmentInput input = AssignmentInput.of(members, Map.of("t", 3), current, roundRobinRacks("t", 3, "a"));

        Assignment result = sticky.assign(input);

        assertThat(result.partitionsOf("m2")).hasSize(2);
        assertThat(result.partitionsOf("m2")).contains(new TopicPartition("t", 2)); // kept its own
        assertThat(RackOracle.local(input, result)).isEqualTo(2);
        assertOptimallyBalanced(input, result);
    }

    @Test
    void remotePartitionsSwapIntoTheirRacksAndNothingElseMoves() {
        Map<String, MemberSubscription> members =
                Map.of("m1", member("m1", "a", "t"), "m2", member("m2", "b", "t"), "m3", member("m3", "c", "t"));
        // t:0 lives in a, t:1 in b, t:2 in c ... but m1 owns the b one and m2 the a one; m3 is already local.
        Assignment current = AssignorChecks.assignment(
                "m1", AssignorChecks.tps("t:1"), "m2", AssignorChecks.tps("t:0"), "m3", AssignorChecks.tps("t:2"));
        AssignmentInput input =
                AssignmentInput.of(members, Map.of("t", 3), current, roundRobinRacks("t", 3, "a", "b", "c"));

        Assignment result = sticky.assign(input);

        assertThat(result.partitionsOf("m1")).containsExactly(new TopicPartition("t", 0));
        assertThat(result.partitionsOf("m2")).containsExactly(new TopicPartition("t", 1));
        assertThat(result.partitionsOf("m3")).containsExactly(new TopicPartition("t", 2));
        assertThat(moves(input, result)).isEqualTo(2);
    }

    @Test
    void nothingMovesWhenNoRackCanGain() {
        // Every partition has a replica in every rack: KIP-881's "all partitions on all racks" case.
        Map<String, MemberSubscription> members =
                Map.of("m1", member("m1", "a", "t"), "m2", member("m2", "b", "t"), "m3", member("m3", null, "t"));
        Map<TopicPartition, Set<String>> all = new TreeMap<>();
        for (int p = 0; p < 7; p++) {
            all.put(new TopicPartition("t", p), Set.of("a", "b"));
        }
        Assignment current = AssignorChecks.assignment(
                "m1", AssignorChecks.tps("t:0", "t:1", "t:2", "t:3", "t:4"), "m2", AssignorChecks.tps("t:5", "t:6"));
        AssignmentInput input = AssignmentInput.of(members, Map.of("t", 7), current, PartitionRacks.of(all));

        assertThat(sticky.assign(input)).isEqualTo(sticky.assign(AssignmentInput.of(members, Map.of("t", 7), current)));
    }

    @Test
    void mixedSubscriptionsStayBalancedAndGainLocality() {
        Map<String, MemberSubscription> members = Map.of(
                "m1",
                member("m1", "a", "x", "y"),
                "m2",
                member("m2", "b", "y"),
                "m3",
                member("m3", "a", "x"),
                "m4",
                member("m4", "b", "x", "y"));
        Map<TopicPartition, Set<String>> map = new TreeMap<>();
        for (int p = 0; p < 6; p++) {
            map.put(new TopicPartition("x", p), Set.of(p % 2 == 0 ? "a" : "b"));
            map.put(new TopicPartition("y", p), Set.of(p % 3 == 0 ? "a" : "b"));
        }
        AssignmentInput input =
                AssignmentInput.of(members, Map.of("x", 6, "y", 6), Assignment.empty(), PartitionRacks.of(map));
        Assignment blind = sticky.assign(AssignmentInput.of(members, Map.of("x", 6, "y", 6), Assignment.empty()));

        Assignment result = sticky.assign(input);

        assertValid(input, result);
        assertOptimallyBalanced(input, result);
        assertThat(new TreeSet<>(loads(input, result).values()))
                .isEqualTo(new TreeSet<>(loads(input, blind).values()));
        // 5 partitions live in a (two members, six slots), 7 in b (six slots): 5 + 6.
        assertThat(RackOracle.local(input, result)).isEqualTo(11);
        assertThat(sticky.assign(AssignmentInput.of(members, Map.of("x", 6, "y", 6), result, PartitionRacks.of(map))))
                .as("stable")
                .isEqualTo(result);
    }

    @Test
    void rackValuesAreChecked() {
        assertThatThrownBy(() -> member("m1", " ", "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> member("m1", "a\u0001", "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control character");
        assertThatThrownBy(() -> PartitionRacks.of(Map.of(new TopicPartition("t", 0), Set.of(""))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.assignment;
import static io.groupkeeper.assignor.AssignorChecks.counts;
import static io.groupkeeper.assignor.AssignorChecks.homogeneous;
import static io.groupkeeper.assignor.AssignorChecks.input;
import static io.groupkeeper.assignor.AssignorChecks.member;
import static io.groupkeeper.assignor.AssignorChecks.members;
import static io.groupkeeper.assignor.AssignorChecks.shuffled;
import static io.groupkeeper.assignor.AssignorChecks.spread;
import static io.groupkeeper.assignor.AssignorChecks.tps;
import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties every built-in assignor must have. */
class AssignorContractTest {

    static Stream<PartitionAssignor> assignors() {
        return Stream.of(new RangeAssignor(), new RoundRobinAssignor(), new StickyAssignor());
    }

    /** A random input: heterogeneous subscriptions, unknown/empty/unsubscribed topics, a stale current assignment. */
    static AssignmentInput randomInput(Random random) {
        int topicCount = 1 + random.nextInt(5);
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int t = 0; t < topicCount; t++) {
            counts.put("t" + t, random.nextInt(4) == 0 ? 0 : random.nextInt(20));
        }
        counts.put("unsubscribed", 3);
        int memberCount = 1 + random.nextInt(8);
        Map<String, MemberSubscription> members = new LinkedHashMap<>();
        for (int i = 0; i < memberCount; i++) {
            Set<String> topics = new TreeSet<>();
            for (int t = 0; t < topicCount; t++) {
                if (random.nextInt(3) > 0) {
                    topics.add("t" + t);
                }
            }
            if (random.nextInt(5) == 0) {
                topics.add("unknown-topic");
            }
            String id = "m" + random.nextInt(20);
            members.put(id, MemberSubscription.of(id, topics));
        }
        // A current assignment from some earlier state: includes departed members and partitions that no longer exist.
        Map<String, Set<TopicPartition>> current = new TreeMap<>();
        for (int t = 0; t < topicCount; t++) {
            for (int p = 0; p < 25; p++) {
                if (random.nextBoolean()) {
                    current.computeIfAbsent("m" + random.nextInt(20), k -> new TreeSet<>())
                            .add(TopicPartition.of("t" + t, p));
                }
            }
        }
        return AssignmentInput.of(members, counts, Assignment.of(current));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void validOnRandomInputs(PartitionAssignor assignor) {
        for (long seed = 0; seed < 300; seed++) {
            AssignmentInput input = randomInput(new Random(seed));
            Assignment result = assignor.assign(input);
            assertValid(input, result);
            assertThat(result.byMember().keySet())
                    .as("every member listed")
                    .isEqualTo(input.members().keySet());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void deterministicAndIndependentOfInputOrder(PartitionAssignor assignor) {
        for (long seed = 0; seed < 200; seed++) {
            AssignmentInput input = randomInput(new Random(seed));
            Assignment first = assignor.assign(input);
            assertThat(assignor.assign(input))
                    .as("same input twice, seed %d", seed)
                    .isEqualTo(first);
            assertThat(Assignors.byName(assignor.name()).assign(input))
                    .as("another instance")
                    .isEqualTo(first);
            assertThat(assignor.assign(shuffled(input, seed)))
                    .as("shuffled input, seed %d", seed)
                    .isEqualTo(first);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void singleTopicIsBalanced(PartitionAssignor assignor) {
        for (int members = 1; members <= 9; members++) {
            for (int partitions = 0; partitions <= 30; partitions++) {
                AssignmentInput input = input(homogeneous("m", members, "t"), counts("t", partitions));
                Assignment result = assignor.assign(input);
                assertValid(input, result);
                assertThat(spread(input, result))
                        .as("%d partitions over %d members", partitions, members)
                        .isLessThanOrEqualTo(1);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void edgeCases(PartitionAssignor assignor) {
        // No members.
        AssignmentInput none = input(Map.of(), counts("t", 5));
        assertThat(assignor.assign(none).byMember()).isEmpty();
        // No topics; a member subscribed to nothing; a topic nobody wants; a zero-partition topic.
        AssignmentInput odd = input(
                members(member("a", "t", "empty", "missing"), member("b")),
                counts("t", 3, "empty", 0, "orphan", 4),
                assignment("a", tps("orphan:0"), "gone", tps("t:0")));
        Assignment result = assignor.assign(odd);
        assertValid(odd, result);
        assertThat(result.partitionsOf("a")).isEqualTo(tps("t:0", "t:1", "t:2"));
        assertThat(result.partitionsOf("b")).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void everyTopicGoesToItsOnlySubscriber(PartitionAssignor assignor) {
        List<MemberSubscription> subs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            subs.add(member("m" + i, "own" + i, "shared"));
        }
        AssignmentInput input = input(
                members(subs.toArray(new MemberSubscription[0])),
                counts("own0", 3, "own1", 1, "own2", 7, "own3", 2, "own4", 4, "shared", 10));
        Assignment result = assignor.assign(input);
        assertValid(input, result);
        Set<String> topicsOfM2 = new HashSet<>();
        result.partitionsOf("m2").forEach(tp -> topicsOfM2.add(tp.topic()));
        assertThat(topicsOfM2).contains("own2").doesNotContain("own0", "own1", "own3", "own4");
        assertThat(result.partitionsOf("m2")).containsAll(tps("own2:0", "own2:6"));
    }
}

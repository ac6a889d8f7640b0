package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.assignment;
import static io.groupkeeper.assignor.AssignorChecks.counts;
import static io.groupkeeper.assignor.AssignorChecks.input;
import static io.groupkeeper.assignor.AssignorChecks.member;
import static io.groupkeeper.assignor.AssignorChecks.members;
import static io.groupkeeper.assignor.AssignorChecks.tps;
import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {

    private final RangeAssignor assignor = new RangeAssignor();

    @Test
    void name() {
        assertThat(assignor.name()).isEqualTo("range");
    }

    @Test
    void kafkaDocumentationExample() {
        // Kafka RangeAssignor javadoc: C0, C1 on t0, t1 with 3 partitions each.
        AssignmentInput input =
                input(members(member("C0", "t0", "t1"), member("C1", "t0", "t1")), counts("t0", 3, "t1", 3));
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "C0", tps("t0:0", "t0:1", "t1:0", "t1:1"),
                        "C1", tps("t0:2", "t1:2")));
    }

    @Test
    void contiguousRangesInMemberIdOrderExtrasFirst() {
        // 10 partitions over 3 members: 4, 3, 3. Members given out of order; ids sort b < c < d.
        AssignmentInput input = input(members(member("d", "t"), member("b", "t"), member("c", "t")), counts("t", 10));
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "b", tps("t:0", "t:1", "t:2", "t:3"),
                        "c", tps("t:4", "t:5", "t:6"),
                        "d", tps("t:7", "t:8", "t:9")));
    }

    @Test
    void perTopicOnlySubscribersCount() {
        // t1 is split between a and c only; b does not subscribe to it.
        AssignmentInput input = input(
                members(member("a", "t0", "t1"), member("b", "t0"), member("c", "t0", "t1")), counts("t0", 3, "t1", 5));
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "a", tps("t0:0", "t1:0", "t1:1", "t1:2"),
                        "b", tps("t0:1"),
                        "c", tps("t0:2", "t1:3", "t1:4")));
    }

    @Test
    void ignoresTheCurrentAssignment() {
        Map<String, MemberSubscription> members = members(member("a", "t"), member("b", "t"));
        Assignment fresh = assignor.assign(input(members, counts("t", 4)));
        Assignment withCurrent = assignor.assign(input(members, counts("t", 4), assignment("b", tps("t:0", "t:1"))));
        assertThat(withCurrent).isEqualTo(fresh);
    }

    @Test
    void perTopicBalanceAndContiguityOnRandomInputs() {
        for (long seed = 0; seed < 300; seed++) {
            AssignmentInput input = AssignorContractTest.randomInput(new Random(seed));
            Assignment result = assignor.assign(input);
            assertValid(input, result);
            input.partitionCounts().forEach((topic, n) -> {
                List<String> subscribers = new ArrayList<>();
                input.members().forEach((id, s) -> {
                    if (s.topics().contains(topic)) {
                        subscribers.add(id);
                    }
                });
                if (subscribers.isEmpty()) {
                    return;
                }
                // Walking subscribers in id order must walk the partitions 0..n-1 in order, sizes non-increasing by <=
                // 1.
                int next = 0;
                int previousSize = Integer.MAX_VALUE;
                for (String id : subscribers) {
                    List<Integer> mine = new ArrayList<>();
                    for (TopicPartition tp : result.partitionsOf(id)) {
                        if (tp.topic().equals(topic)) {
                            mine.add(tp.partition());
                        }
                    }
                    for (int p : mine) {
                        assertThat(p)
                                .as("contiguous range of %s in %s", id, topic)
                                .isEqualTo(next++);
                    }
                    assertThat(mine.size())
                            .isBetween(n / subscribers.size(), (n + subscribers.size() - 1) / subscribers.size());
                    assertThat(mine.size()).isLessThanOrEqualTo(previousSize);
                    previousSize = mine.size();
                }
                assertThat(next).isEqualTo(n);
            });
        }
    }
}

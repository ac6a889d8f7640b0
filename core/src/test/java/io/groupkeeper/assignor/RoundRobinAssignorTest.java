package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.assignment;
import static io.groupkeeper.assignor.AssignorChecks.counts;
import static io.groupkeeper.assignor.AssignorChecks.homogeneous;
import static io.groupkeeper.assignor.AssignorChecks.input;
import static io.groupkeeper.assignor.AssignorChecks.member;
import static io.groupkeeper.assignor.AssignorChecks.members;
import static io.groupkeeper.assignor.AssignorChecks.spread;
import static io.groupkeeper.assignor.AssignorChecks.tps;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundRobinAssignorTest {

    private final RoundRobinAssignor assignor = new RoundRobinAssignor();

    @Test
    void name() {
        assertThat(assignor.name()).isEqualTo("round-robin");
    }

    @Test
    void kafkaDocumentationExampleCommonSubscription() {
        // Kafka RoundRobinAssignor javadoc: C0, C1 on t0, t1 with 3 partitions each.
        AssignmentInput input =
                input(members(member("C0", "t0", "t1"), member("C1", "t0", "t1")), counts("t0", 3, "t1", 3));
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "C0", tps("t0:0", "t0:2", "t1:1"),
                        "C1", tps("t0:1", "t1:0", "t1:2")));
    }

    @Test
    void kafkaDocumentationExampleDifferentSubscriptions() {
        // Kafka RoundRobinAssignor javadoc: C0 [t0], C1 [t0, t1], C2 [t0, t1, t2]; t0, t1, t2 with 1, 2, 3 partitions.
        AssignmentInput input = input(
                members(member("C0", "t0"), member("C1", "t0", "t1"), member("C2", "t0", "t1", "t2")),
                counts("t0", 1, "t1", 2, "t2", 3));
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "C0", tps("t0:0"),
                        "C1", tps("t1:0"),
                        "C2", tps("t1:1", "t2:0", "t2:1", "t2:2")));
    }

    @Test
    void dealsAcrossTopicsInMemberIdOrder() {
        AssignmentInput input = input(
                members(member("c", "x", "y"), member("a", "x", "y"), member("b", "x", "y")), counts("x", 2, "y", 3));
        // Sorted partitions x:0 x:1 y:0 y:1 y:2 dealt to a b c a b.
        assertThat(assignor.assign(input))
                .isEqualTo(assignment(
                        "a", tps("x:0", "y:1"),
                        "b", tps("x:1", "y:2"),
                        "c", tps("y:0")));
    }

    @Test
    void commonSubscriptionOverManyTopicsIsBalanced() {
        for (int members = 1; members <= 12; members++) {
            for (int extra = 0; extra < 7; extra++) {
                AssignmentInput input =
                        input(homogeneous("m", members, "a", "b", "c"), counts("a", 5 + extra, "b", 3, "c", extra));
                Assignment result = assignor.assign(input);
                assertValid(input, result);
                assertThat(spread(input, result))
                        .as("%d members, extra %d", members, extra)
                        .isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void ignoresTheCurrentAssignment() {
        Map<String, MemberSubscription> members = members(member("a", "t"), member("b", "t"));
        assertThat(assignor.assign(input(members, counts("t", 4), assignment("b", tps("t:0", "t:1")))))
                .isEqualTo(assignor.assign(input(members, counts("t", 4))));
    }
}

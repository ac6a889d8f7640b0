package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertOptimallyBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.loads;
import static io.groupkeeper.assignor.AssignorChecks.moves;
import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties of the sticky assignor with racks, over random groups: members in up to four racks (some without a
 * rack), partitions with one to three replica racks (some unknown, some in a rack without members), a previous
 * assignment computed for a different membership. Shrinking works on the seed-free parameters below.
 */
class RackAwareStickyProperties {

    private static final String[] RACKS = {"a", "b", "c", "d"};

    private final StickyAssignor sticky = new StickyAssignor();

    /** One random group, built from a seed so that jqwik's parameters stay few and shrinkable. */
    private record Case(AssignmentInput input, AssignmentInput blind) {}

    private static Case build(
            long seed,
            int memberCount,
            int racks,
            int partitionsX,
            int partitionsY,
            boolean common,
            boolean withPrevious) {
        Random random = new Random(seed);
        Map<String, MemberSubscription> members = new TreeMap<>();
        for (int i = 0; i < memberCount; i++) {
            String id = String.format("m%02d", i);
            Set<String> topics = common
                    ? Set.of("x", "y")
                    : switch (random.nextInt(3)) {
                        case 0 -> Set.of("x");
                        case 1 -> Set.of("y");
                        default -> Set.of("x", "y");
                    };
            Optional<String> rack =
                    random.nextInt(8) == 0 ? Optional.empty() : Optional.of(RACKS[random.nextInt(racks)]);
            members.put(id, new MemberSubscription(id, new TreeSet<>(topics), Optional.empty(), rack));
        }
        Map<String, Integer> counts = Map.of("x", partitionsX, "y", partitionsY);
        Map<TopicPartition, Set<String>> replicaRacks = new TreeMap<>();
        for (String topic : List.of("x", "y")) {
            for (int p = 0; p < counts.get(topic); p++) {
                if (random.nextInt(10) == 0) {
                    continue; // racks unknown
                }
                Set<String> set = new TreeSet<>();
                int replicas = 1 + random.nextInt(3);
                for (int r = 0; r < replicas; r++) {
                    set.add(RACKS[
                            random.nextInt(Math.min(RACKS.length, racks + 1))]); // sometimes a rack without members
                }
                replicaRacks.put(new TopicPartition(topic, p), set);
            }
        }
        Assignment current = Assignment.empty();
        if (withPrevious) {
            // The previous target: another membership (a few members gone, one extra) and rack-blind.
            Map<String, MemberSubscription> before = new TreeMap<>();
            members.forEach((id, s) -> {
                if (random.nextInt(4) != 0) {
                    before.put(id, s);
                }
            });
            before.put("gone", MemberSubscription.of("gone", "x", "y"));
            current = new StickyAssignor().assign(AssignmentInput.of(before, counts, Assignment.empty()));
        }
        return new Case(
                AssignmentInput.of(members, counts, current, PartitionRacks.of(replicaRacks)),
                AssignmentInput.of(members, counts, current));
    }

    @Property(tries = 400)
    void balancedLocalAsBalanceAllowsAndStable(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 8) int members,
            @ForAll @IntRange(min = 1, max = 4) int racks,
            @ForAll @IntRange(min = 0, max = 14) int partitionsX,
            @ForAll @IntRange(min = 0, max = 10) int partitionsY,
            @ForAll boolean withPrevious) {
        Case c = build(seed, members, racks, partitionsX, partitionsY, true, withPrevious);
        Assignment result = sticky.assign(c.input());
        Assignment blind = sticky.assign(c.blind());

        assertValid(c.input(), result);
        assertOptimallyBalanced(c.input(), result);
        assertThat(sorted(loads(c.input(), result)))
                .as("same loads as rack-blind")
                .isEqualTo(sorted(loads(c.blind(), blind)));
        assertThat(RackOracle.local(c.input(), result))
                .as("same-rack count is the max-flow optimum: %s", c.input())
                .isEqualTo(RackOracle.maxLocalCommonSubscription(c.input()));
        checkStickyAndStable(c, result, blind);
    }

    @Property(tries = 400)
    void mixedSubscriptionsBalancedNoLessLocalAndStable(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 8) int members,
            @ForAll @IntRange(min = 1, max = 4) int racks,
            @ForAll @IntRange(min = 0, max = 14) int partitionsX,
            @ForAll @IntRange(min = 0, max = 10) int partitionsY,
            @ForAll boolean withPrevious) {
        Case c = build(seed, members, racks, partitionsX, partitionsY, false, withPrevious);
        Assignment result = sticky.assign(c.input());
        Assignment blind = sticky.assign(c.blind());

        assertValid(c.input(), result);
        assertOptimallyBalanced(c.input(), result);
        assertThat(sorted(loads(c.input(), result))).isEqualTo(sorted(loads(c.blind(), blind)));
        checkStickyAndStable(c, result, blind);
    }

    private void checkStickyAndStable(Case c, Assignment result, Assignment blind) {
        int local = RackOracle.local(c.input(), result);
        int blindLocal = RackOracle.local(c.input(), blind);
        assertThat(local).as("never less local than rack-blind").isGreaterThanOrEqualTo(blindLocal);
        Statistics.label("racks gained").collect(local > blindLocal);
        Statistics.label("racks gained").coverage(cov -> cov.check(true).percentage(p -> p > 10));
        if (local == blindLocal) {
            assertThat(result)
                    .as("racks move nothing when they cannot gain: %s", c.input())
                    .isEqualTo(blind);
        }
        // Every extra move buys locality: a cycle passes at most one partition per member and gains at least one.
        assertThat(moves(c.input(), result))
                .isLessThanOrEqualTo(
                        moves(c.blind(), blind) + c.input().members().size() * (local - blindLocal));
        AssignmentInput again = new AssignmentInput(
                c.input().members(),
                c.input().partitionCounts(),
                result,
                c.input().partitionRacks());
        assertThat(sticky.assign(again)).as("stable").isEqualTo(result);
    }

    private static List<Integer> sorted(Map<String, Integer> loads) {
        List<Integer> l = new ArrayList<>(loads.values());
        l.sort(null);
        return l;
    }
}

package io.groupkeeper.assignor;

import static io.groupkeeper.assignor.AssignorChecks.assertEqualSubscriptionsBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertFloorCeil;
import static io.groupkeeper.assignor.AssignorChecks.assertMinimalMovesHomogeneous;
import static io.groupkeeper.assignor.AssignorChecks.assertOptimallyBalanced;
import static io.groupkeeper.assignor.AssignorChecks.assertValid;
import static io.groupkeeper.assignor.AssignorChecks.isHomogeneous;
import static io.groupkeeper.assignor.AssignorChecks.shuffled;
import static io.groupkeeper.assignor.AssignorChecks.spread;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random sequences of group changes (members joining and leaving, subscriptions changing, topics appearing,
 * growing, shrinking and disappearing), each step assigned from the previous step's result and checked.
 */
class StickyAssignorPropertyTest {

    private static final int SCENARIOS = 200;
    private static final int STEPS = 25;
    private static final String[] TOPICS = {"a", "b", "c", "d", "e"};

    private final StickyAssignor assignor = new StickyAssignor();

    @ParameterizedTest(name = "common subscription: {0}")
    @ValueSource(booleans = {true, false})
    void randomChangeSequences(boolean common) {
        int homogeneousSteps = 0;
        int totalMoves = 0;
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            Random random = new Random(seed * 7919 + (common ? 1 : 0));
            Scenario scenario = new Scenario(random, common);
            Assignment current = Assignment.empty();
            for (int step = 0; step < STEPS; step++) {
                scenario.mutate();
                AssignmentInput input = AssignmentInput.of(scenario.members(), scenario.counts, current);
                Assignment result = assignor.assign(input);
                String where = "seed " + seed + " step " + step + " input " + input;

                assertValid(input, result);
                assertEqualSubscriptionsBalanced(input, result);
                assertOptimallyBalanced(input, result);
                if (!input.members().isEmpty() && isHomogeneous(input)) {
                    homogeneousSteps++;
                    assertThat(spread(input, result)).as(where).isLessThanOrEqualTo(1);
                    assertFloorCeil(input, result);
                    assertMinimalMovesHomogeneous(input, result);
                }
                assertThat(assignor.assign(AssignmentInput.of(input.members(), input.partitionCounts(), result)))
                        .as("stable, " + where)
                        .isEqualTo(result);
                assertThat(assignor.assign(shuffled(input, seed + step)))
                        .as("order-independent, " + where)
                        .isEqualTo(result);
                totalMoves += AssignorChecks.moves(input, result);
                current = result;
            }
        }
        // The sequences must actually exercise the interesting cases.
        if (common) {
            assertThat(homogeneousSteps).isGreaterThan(SCENARIOS * STEPS / 2);
        }
        assertThat(totalMoves).isPositive();
    }

    /** A small group that changes at random; member ids m00..m14, topics a..e. */
    private static final class Scenario {
        final Random random;
        final boolean common;
        final TreeMap<String, Set<String>> subscriptions = new TreeMap<>();
        final TreeMap<String, Integer> counts = new TreeMap<>();
        Set<String> commonTopics = new TreeSet<>();

        Scenario(Random random, boolean common) {
            this.random = random;
            this.common = common;
            for (String t : TOPICS) {
                if (random.nextInt(3) > 0) {
                    counts.put(t, random.nextInt(16));
                }
            }
            commonTopics = randomTopics();
            int initial = 1 + random.nextInt(6);
            for (int i = 0; i < initial; i++) {
                join();
            }
        }

        Set<String> randomTopics() {
            Set<String> topics = new TreeSet<>();
            for (String t : TOPICS) {
                if (random.nextInt(2) == 0) {
                    topics.add(t);
                }
            }
            if (topics.isEmpty()) {
                topics.add(TOPICS[random.nextInt(TOPICS.length)]);
            }
            return topics;
        }

        void join() {
            String id = String.format("m%02d", random.nextInt(15));
            subscriptions.put(id, common ? commonTopics : randomTopics());
        }

        void mutate() {
            int changes = 1 + random.nextInt(3);
            for (int i = 0; i < changes; i++) {
                int kind = random.nextInt(10);
                String topic = TOPICS[random.nextInt(TOPICS.length)];
                switch (kind) {
                    case 0, 1 -> join();
                    case 2, 3 -> {
                        if (!subscriptions.isEmpty()) {
                            List<String> ids = new ArrayList<>(subscriptions.keySet());
                            subscriptions.remove(ids.get(random.nextInt(ids.size())));
                        }
                    }
                    case 4, 5 -> counts.merge(topic, 1 + random.nextInt(6), Integer::sum); // appear or grow
                    case 6 ->
                        counts.computeIfPresent(topic, (t, n) -> Math.max(0, n - 1 - random.nextInt(4))); // shrink
                    case 7 -> counts.remove(topic); // deleted
                    case 8 -> {
                        if (common) {
                            commonTopics = randomTopics();
                            subscriptions.replaceAll((id, topics) -> commonTopics);
                        } else if (!subscriptions.isEmpty()) {
                            List<String> ids = new ArrayList<>(subscriptions.keySet());
                            subscriptions.put(ids.get(random.nextInt(ids.size())), randomTopics());
                        }
                    }
                    default -> {} // nothing changes: the assignment must stay put
                }
            }
        }

        TreeMap<String, MemberSubscription> members() {
            TreeMap<String, MemberSubscription> members = new TreeMap<>();
            subscriptions.forEach((id, topics) -> members.put(id, MemberSubscription.of(id, topics)));
            return members;
        }
    }
}

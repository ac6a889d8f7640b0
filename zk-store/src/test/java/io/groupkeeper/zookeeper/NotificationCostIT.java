package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * I8: one member joining a group of N costs O(N) watch events and writes, not O(N²). All members share one store
 * (one session), so the store's counters see every watch event and write of the whole group.
 */
class NotificationCostIT extends ZkTestSupport {

    record Cost(int members, StoreStats cost) {}

    /** Sticky (the default): a join moves few partitions, so few targets change. */
    @Test
    void oneJoinWithTheStickyAssignorCostsLinearlyManyWatchEventsAndWrites() {
        assertLinear("sticky");
    }

    /** Round-robin reshuffles nearly every target on a join: the worst case must still be O(N), not O(N^2). */
    @Test
    void oneJoinThatChangesEveryTargetStillCostsLinearlyManyWatchEventsAndWrites() {
        assertLinear("round-robin");
    }

    private void assertLinear(String assignor) {
        List<Cost> costs = new ArrayList<>();
        for (int n : new int[] {5, 10, 20, 40}) {
            costs.add(measureJoin(n, assignor));
        }
        System.out.println("assignor " + assignor);
        System.out.println("members  watchEvents  writes  transactions  reads   (one member joins N)");
        costs.forEach(c -> System.out.printf(
                "%7d  %11d  %6d  %12d  %5d%n",
                c.members(),
                c.cost().watchEvents(),
                c.cost().writes(),
                c.cost().transactions(),
                c.cost().reads()));
        for (Cost c : costs) {
            // Every event and write is attributable: the leader's membership event, one target per member that
            // gives up a partition, the joiner's claims and the releases it waits on. A herd would be ~N² events.
            assertThat(c.cost().watchEvents())
                    .as("watch events for N=%d", c.members())
                    .isLessThanOrEqualTo(5L * c.members() + 10);
            assertThat(c.cost().writes())
                    .as("writes for N=%d", c.members())
                    .isLessThanOrEqualTo(12L * c.members() + 20);
        }
        Cost small = costs.get(1);
        Cost large = costs.get(3);
        assertThat((double) large.cost().watchEvents()
                        / Math.max(1, small.cost().watchEvents()))
                .as("4x members must not cost 16x events")
                .isLessThan(6.0);
    }

    private Cost measureJoin(int n, String assignor) {
        String group = newGroup();
        String topic = "cost-" + n;
        topic(topic, 2 * n);
        GroupKeeper gk = newKeeper();
        List<GroupMember> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GroupMember m = gk.member(group).topics(topic).assignor(assignor).build();
            m.start();
            members.add(m);
        }
        awaitBalanced(Map.of(topic, 2 * n), members.toArray(GroupMember[]::new));
        ZooKeeperStore stats = storeOf(gk);
        awaitQuiet(stats);
        StoreStats before = stats.stats();
        GroupMember joiner = gk.member(group).topics(topic).assignor(assignor).build();
        joiner.start();
        members.add(joiner);
        awaitBalanced(Map.of(topic, 2 * n), members.toArray(GroupMember[]::new));
        awaitQuiet(stats);
        Cost cost = new Cost(n, stats.stats().minus(before));
        members.forEach(GroupMember::close);
        return cost;
    }
}

package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.fixtures.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** I6: the group converges after the leader dies, including mid-rebalance. On real ZooKeeper. */
class LeaderFailoverIT extends ZkTestSupport {

    private GroupMember startMember(GroupKeeper gk, String group, String topic, Duration settle) {
        GroupMember m = gk.member(group).topics(topic).settleDelay(settle).build();
        m.start();
        return m;
    }

    @Test
    void leaderKilledWhileARebalanceIsPendingAndTheGroupStillConverges() throws Exception {
        String group = newGroup();
        topic("lead", 8);
        // A settle delay keeps the leader's next generation pending long enough to kill it in the middle.
        Duration settle = Duration.ofMillis(1500);
        GroupKeeper leaderKeeper = newKeeper();
        GroupMember leader = startMember(leaderKeeper, group, "lead", settle);
        await().until(leader::isLeader);
        GroupMember b = startMember(newKeeper(), group, "lead", settle);
        GroupMember c = startMember(newKeeper(), group, "lead", settle);
        awaitBalanced(Map.of("lead", 8), leader, b, c);
        long generationBefore = publishedGeneration(group);

        GroupMember d = startMember(newKeeper(), group, "lead", settle); // the leader schedules a rebalance ...
        expireSession(storeOf(leaderKeeper)); // ... and dies before publishing it
        leaderKeeper.store().close();

        awaitBalanced(Map.of("lead", 8), b, c, d);
        assertThat(List.of(b, c, d)).filteredOn(GroupMember::isLeader).hasSize(1);
        assertThat(publishedGeneration(group)).isGreaterThan(generationBefore);
    }

    /** Members see only their own target's generation; the assignment node holds the group's. */
    private static long publishedGeneration(String group) throws Exception {
        String json = new String(admin.getData().forPath(ZkLayout.assignment(group)), StandardCharsets.UTF_8);
        return Long.parseLong(json.replaceAll(".*\"generation\":(\\d+).*", "$1"));
    }

    @Test
    void newLeaderRepairsAHalfPublishedGeneration() throws Exception {
        String group = newGroup();
        topic("half", 6);
        GroupKeeper leaderKeeper = newKeeper();
        GroupMember leader = startMember(leaderKeeper, group, "half", Duration.ZERO);
        await().until(leader::isLeader);
        GroupMember b = startMember(newKeeper(), group, "half", Duration.ZERO);
        GroupMember c = startMember(newKeeper(), group, "half", Duration.ZERO);
        awaitBalanced(Map.of("half", 6), leader, b, c);

        // What a leader dying between its target transactions leaves behind: b's target says "all of it" in a newer
        // generation, while c's target and the assignment node are from the old generation.
        String targetB = ZkLayout.GROUPS + "/" + group + "/assignment/" + b.memberId();
        long next = b.generation() + 1;
        admin.setData()
                .forPath(
                        targetB,
                        ("{\"generation\":" + next + ",\"partitions\":{\"half\":[0,1,2,3,4,5]},\"static\":false}")
                                .getBytes(StandardCharsets.UTF_8));
        expireSession(storeOf(leaderKeeper));
        leaderKeeper.store().close();

        awaitBalanced(Map.of("half", 6), b, c);
        assertThat(b.isLeader() || c.isLeader()).isTrue();
    }
}

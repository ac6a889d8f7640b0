package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.metrics.MicrometerGroupMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Meters read from a SimpleMeterRegistry after real rebalances, commits and connection changes on ZooKeeper. */
class MetricsIT extends ZkTestSupport {

    @Test
    void rebalancesCommitsAndConnectionStatesAreMetered() throws Exception {
        String group = newGroup();
        topic("metered", 4);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GroupKeeper gk = GroupKeeper.builder()
                .store(newStore())
                .metrics(new MicrometerGroupMetrics(registry))
                .build()
                .start();
        toClose.add(gk);
        GroupMember a = gk.member(group).topics("metered").build();
        a.start();
        awaitBalanced(Map.of("metered", 4), a);
        GroupMember b = gk.member(group).topics("metered").build();
        b.start();
        awaitBalanced(Map.of("metered", 4), a, b);

        assertThat(registry.get("groupkeeper.connection.state.changes")
                        .tag("state", "connected")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("groupkeeper.member.partitions.owned")
                        .tag("member", a.memberId())
                        .gauge()
                        .value())
                .isEqualTo(2.0);
        assertThat(registry.get("groupkeeper.member.generation")
                        .tag("member", b.memberId())
                        .gauge()
                        .value())
                .isEqualTo((double) b.generation())
                .isPositive();
        // a: one step taking 4, one giving up 2; b: one step taking 2.
        assertThat(registry.get("groupkeeper.rebalance")
                        .tag("member", a.memberId())
                        .timer()
                        .count())
                .isGreaterThanOrEqualTo(2);
        assertThat(registry.get("groupkeeper.rebalance.partitions.moved")
                        .tag("member", a.memberId())
                        .summary()
                        .totalAmount())
                .isEqualTo(6.0);
        assertThat(registry.get("groupkeeper.generations.published")
                        .tag("group", group)
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(2.0);

        TopicPartition tp = a.assignment().first();
        assertThat(a.commit(Map.of(tp, 5L)).status(tp)).isEqualTo(Status.COMMITTED);
        admin.setData().forPath(ZkLayout.offset(group, tp), "50".getBytes(StandardCharsets.UTF_8));
        assertThat(a.commit(Map.of(tp, 6L)).status(tp)).isEqualTo(Status.ADOPTED);
        assertThat(registry.get("groupkeeper.commit")
                        .tag("member", a.memberId())
                        .timer()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("groupkeeper.commit.partitions")
                        .tags("member", a.memberId(), "result", "committed")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("groupkeeper.commit.partitions")
                        .tags("member", a.memberId(), "result", "adopted")
                        .counter()
                        .count())
                .isEqualTo(1.0);

        b.close();
        assertThat(registry.find("groupkeeper.member.partitions.owned")
                        .tag("member", b.memberId())
                        .gauge())
                .isNull();
        await().untilAsserted(() -> assertThat(registry.get("groupkeeper.member.partitions.owned")
                        .tag("member", a.memberId())
                        .gauge()
                        .value())
                .isEqualTo(4.0));
    }
}

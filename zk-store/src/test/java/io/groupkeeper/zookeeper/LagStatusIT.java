package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.GroupStores;
import io.groupkeeper.spi.internal.OffsetSnapshot;
import io.groupkeeper.status.LagEvaluator;
import io.groupkeeper.status.LagStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Each lag status from a real sequence of commits stored in ZooKeeper: the offset node keeps the last commits with
 * their log end offsets and times (a controlled clock), and the evaluator judges them.
 */
class LagStatusIT extends ZkTestSupport {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T10:00:00Z"));
    private final LagEvaluator evaluator = new LagEvaluator(Duration.ofMinutes(5));
    private final TopicPartition tp = new TopicPartition("status", 0);
    private GroupMember member;
    private ZooKeeperStore store;

    private void start() {
        topic("status", 1);
        store = ZooKeeperStore.builder()
                .connectString(connectString())
                .clock(clock)
                .build();
        GroupKeeper gk = GroupKeeper.builder().store(store).clock(clock).build().start();
        toClose.add(gk);
        member = gk.member(newGroup()).topics("status").build();
        member.start();
        await().until(() -> member.assignment().contains(tp));
    }

    private void commit(long offset, long logEnd) {
        clock.advance(Duration.ofMinutes(1));
        member.commit(Map.of(tp, offset), Map.of(tp, logEnd));
    }

    private LagStatus status(long logEndNow) {
        OffsetSnapshot stored = GroupStores.of(store, member.groupId()).readOffset(tp, null);
        return evaluator
                .evaluate(stored.history(), OptionalLong.of(logEndNow), clock.instant())
                .status();
    }

    @Test
    void ok() {
        start();
        commit(10, 40);
        commit(20, 40);
        commit(30, 40);
        assertThat(status(40)).isEqualTo(LagStatus.OK);
    }

    @Test
    void warnWhenLagGrows() {
        start();
        commit(10, 100);
        commit(20, 200);
        commit(30, 300);
        assertThat(status(300)).isEqualTo(LagStatus.WARN);
    }

    @Test
    void stallWhenCommittingTheSameOffsetWithLag() {
        start();
        commit(10, 50);
        commit(10, 50);
        commit(10, 50);
        assertThat(status(50)).isEqualTo(LagStatus.STALL);
    }

    @Test
    void stopWhenNoCommitForLongerThanTheWindow() {
        start();
        commit(10, 50);
        clock.advance(Duration.ofMinutes(10));
        assertThat(status(50)).isEqualTo(LagStatus.STOP);
    }

    @Test
    void rewindWhenTheOffsetMovesBack() {
        start();
        commit(10, 50);
        commit(20, 50);
        commit(5, 50);
        assertThat(status(50)).isEqualTo(LagStatus.REWIND);
    }

    @Test
    void historyIsBoundedAndSurvivesAChangeOfOwner() {
        start();
        for (int i = 1; i <= 15; i++) {
            commit(i, 100);
        }
        OffsetSnapshot stored = GroupStores.of(store, member.groupId()).readOffset(tp, null);
        assertThat(stored.history()).hasSize(10);
        assertThat(stored.history().get(9).offset()).isEqualTo(15);
        member.close();
        GroupMember next = newKeeper().member(member.groupId()).topics("status").build();
        next.start();
        await().until(() -> next.assignment().contains(tp));
        next.commit(Map.of(tp, 16L));
        OffsetSnapshot after =
                GroupStores.of(storeOf(newKeeper()), member.groupId()).readOffset(tp, null);
        assertThat(after.history()).hasSize(10);
        assertThat(after.history().get(8).offset()).isEqualTo(15);
        assertThat(after.history().get(9).offset()).isEqualTo(16);
    }
}

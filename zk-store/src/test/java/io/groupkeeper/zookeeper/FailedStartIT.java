package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A member whose registration landed on the server while its reply was lost with the connection (found by the
 * simulator's JOIN_LOST_REPLY): its start fails, and before the fix nothing removed the member node, which then lived
 * as long as the keeper's session while the leader gave partitions to a member nobody runs. Here the node really is
 * created on the server, then the store says the call failed and tells the member's keeper "suspended"; once the
 * connection is back the failed start must have removed its node.
 */
class FailedStartIT extends ZkTestSupport {

    @Test
    void aStartWhoseRegistrationReplyIsLostLeavesNoMemberNodeOnceTheConnectionIsBack() throws Exception {
        String group = newGroup();
        topic("lost", 1);
        InterposedStore lossy = InterposedStore.hearing(newStore());
        GroupKeeper keeper = GroupKeeper.builder().store(lossy).build().start();
        toClose.add(keeper);
        AtomicBoolean armed = new AtomicBoolean(true);
        lossy.afterRegistration = () -> {
            if (armed.compareAndSet(true, false)) {
                lossy.fire(ConnectionEvent.SUSPENDED);
                throw new StoreException("register member: CONNECTIONLOSS (the test: the node was created)");
            }
        };
        GroupMember ghost = keeper.member(group).topics("lost").build();
        CompletableFuture<Void> start = ghost.startAsync();
        String node = ZkLayout.members(group) + "/" + ghost.memberId();
        // The node appears before the registration's reply reaches the hook that loses it: wait for both.
        await().atMost(Duration.ofSeconds(10)).until(() -> !armed.get());
        assertThat(admin.checkExists().forPath(node))
                .as("the registration landed")
                .isNotNull();

        lossy.fire(ConnectionEvent.RECONNECTED); // the connection is back in the same session
        assertThatThrownBy(() -> start.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(StoreException.class);
        assertThat(admin.checkExists().forPath(node))
                .as("the failed start's member node")
                .isNull();

        // The keeper's session lives on: a member that joins now gets the partition (no ghost counted by the leader).
        GroupMember next = keeper.member(group).topics("lost").build();
        next.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> next.assignment().contains(new TopicPartition("lost", 0)));
        assertThat(admin.getChildren().forPath(ZkLayout.members(group))).containsExactly(next.memberId());
    }
}

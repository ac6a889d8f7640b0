package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.internal.ClaimResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A connection blip in the middle of a batch of claims: the claims reach ZooKeeper (the owner nodes are created by
 * this session) but the member is told "suspended" before it has recorded them. After the reconnection (same
 * session, nodes intact) it must re-confirm or hand over each of them; one it forgot would be held by its session for
 * as long as it lives, and the member the leader moved it to would wait for ever.
 */
class ClaimDuringConnectionLossIT extends ZkTestSupport {

    @Test
    void claimsThatLandedAsTheConnectionDroppedAreHandedOverWhenTheTargetMovedThem() throws Exception {
        String group = newGroup();
        topic("blip", 2);
        InterposedStore blipping = InterposedStore.hearing(newStore());
        GroupKeeper gkA = GroupKeeper.builder().store(blipping).build().start();
        toClose.add(gkA);
        AtomicBoolean armed = new AtomicBoolean(true);
        CountDownLatch suspendedTold = new CountDownLatch(1);
        // The first claim that lands tells every member of this client "suspended" before it returns.
        blipping.afterClaim = result -> {
            if (result instanceof ClaimResult.Claimed && armed.compareAndSet(true, false)) {
                blipping.fire(ConnectionEvent.SUSPENDED);
                suspendedTold.countDown();
            }
        };
        List<String> told = new CopyOnWriteArrayList<>();
        GroupMember a = gkA.member(group)
                .topics("blip")
                .listener(new io.groupkeeper.RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(
                            java.util.SortedMap<TopicPartition, java.util.OptionalLong> partitions) {
                        told.add("assigned " + partitions.keySet());
                    }

                    @Override
                    public void onPartitionsRevoked(java.util.SortedSet<TopicPartition> partitions) {
                        told.add("revoked " + partitions);
                    }
                })
                .build();
        a.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> ownersInZk(group).size() == 2);
        // The owner nodes are on the server a moment before the claim returns to a's thread and fires.
        assertThat(suspendedTold.await(10, TimeUnit.SECONDS))
                .as("a claim landed and told a 'suspended'")
                .isTrue();
        assertThat(a.assignment()).as("a suspended member owns nothing").isEmpty();

        // While a is cut off (as far as it knows), a second member joins; the leader (a, whose real session is fine)
        // gives it one of the two partitions, still held by a's session.
        GroupKeeper gkB = newKeeper();
        GroupMember b = gkB.member(group).topics("blip").build();
        b.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> b.generation() > 0);

        blipping.fire(ConnectionEvent.RECONNECTED);
        awaitBalanced(Map.of("blip", 2), a, b);
        assertThat(ownersInZk(group))
                .containsOnlyKeys(new TopicPartition("blip", 0), new TopicPartition("blip", 1))
                .containsValues(a.memberId(), b.memberId());
        // a never told its user code of the claims that landed while it was suspended: nothing to revoke either. Its
        // one announcement may still be on its way: assignment() shows a partition while onPartitionsAssigned runs.
        await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty());
        assertThat(told).hasSize(1).allMatch(e -> e.startsWith("assigned ["));
    }
}

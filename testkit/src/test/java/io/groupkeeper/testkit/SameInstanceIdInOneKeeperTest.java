package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import java.time.Duration;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, finding 2: a static member still closing (its revocation callback running) and a new member with the same
 * instance id built on the same keeper. The store sees one session and calls the member node "already ours" for both,
 * so before the fix the new member re-confirmed the old one's owner node while it still processed (I1), and the old
 * one's release and deregistration then deleted the new one's nodes. Now the keeper refuses a second live holder of an
 * instance id until the first has left.
 */
class SameInstanceIdInOneKeeperTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final InMemoryZooKeeper zk = new InMemoryZooKeeper();
    private final GroupKeeper keeper = GroupKeeper.builder()
            .store(new InMemoryCoordinationStore(zk))
            .build()
            .start();
    private final CountDownLatch revocationMayReturn = new CountDownLatch(1);

    @AfterEach
    void close() {
        revocationMayReturn.countDown();
        keeper.close();
    }

    @Test
    void aSecondMemberWithTheIdIsRefusedWhileTheFirstIsStillClosing() {
        GroupMember first = closingSlowly();
        GroupMember twin = keeper.member("g")
                .topics("t")
                .instanceId("worker-1")
                .registrationTimeout(Duration.ofMillis(200))
                .build();

        assertThatThrownBy(twin::start)
                .isInstanceOf(MemberIdInUseException.class)
                .hasMessageContaining("'worker-1'")
                .hasMessageContaining("'g'")
                .hasMessageContaining("has not finished leaving");
        assertThat(twin.assignment()).isEmpty();
        assertThat(first.assignment()).as("the first still revoking").isEmpty();
        assertThat(group().readOwner(TP))
                .as("the first's owner node, untouched")
                .isPresent();
    }

    @Test
    void aMemberWithTheIdWaitsForTheFirstToLeaveAndKeepsItsNodes() throws Exception {
        GroupMember first = closingSlowly();
        GroupMember next = keeper.member("g")
                .topics("t")
                .instanceId("worker-1")
                .registrationTimeout(Duration.ofSeconds(20))
                .build();
        CompletableFuture<Void> started = next.startAsync();

        assertThat(started).as("waits while the first is closing").isNotDone();
        revocationMayReturn.countDown();
        started.get(10, TimeUnit.SECONDS);
        await().until(() -> next.assignment().contains(TP));

        assertThat(group().isRegistered("worker-1")).as("the new member's node").isTrue();
        assertThat(group().readOwner(TP)).as("the new member's owner node").isPresent();
        assertThat(first.assignment()).isEmpty();
    }

    /** A static member owning the partition whose close is held in its revocation callback; returns once it is. */
    private GroupMember closingSlowly() {
        keeper.topics().ensureTopic("t", 1);
        AtomicBoolean revoking = new AtomicBoolean();
        GroupMember first = keeper.member("g")
                .topics("t")
                .instanceId("worker-1")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        revoking.set(true);
                        try {
                            revocationMayReturn.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                })
                .build();
        first.start();
        await().until(() -> first.assignment().contains(TP));
        first.closeAsync();
        await().untilTrue(revoking);
        return first;
    }

    private GroupStore group() {
        return GroupStores.of(keeper.store(), "g");
    }
}

package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, finding 4, on a real server: the session of a closing member expires right after its user code handed
 * over a final offset, so the release that follows cannot land in it. The member, back in a new session, claims the
 * partition again and releases it with the final offset: the next member starts there, not at the log end.
 */
class FinalOffsetAcrossSessionsIT extends ZkTestSupport {

    @Test
    void aFinalOffsetHandedOverAsTheSessionExpiresReachesTheNextMember() throws Exception {
        String group = newGroup();
        topic("expiring", 1);
        TopicPartition tp = new TopicPartition("expiring", 0);
        GroupKeeper keeper = newKeeper();
        AtomicReference<GroupMember> self = new AtomicReference<>();
        GroupMember member = keeper.member(group)
                .topics("expiring")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        self.get().commitOnRelease(Map.of(tp, 42L), Map.of());
                        try {
                            expireSession(storeOf(keeper));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                })
                .build();
        self.set(member);
        member.start();
        awaitBalanced(Map.of("expiring", 1), member);
        long session = keeper.store().sessionId();

        java.util.concurrent.CompletableFuture<Void> closed = member.closeAsync();
        closed.get(30, TimeUnit.SECONDS);

        assertThat(keeper.store().sessionId()).as("a new session").isNotEqualTo(session);
        assertThat(ownersInZk(group)).as("released").isEmpty();
        AtomicReference<OptionalLong> startsAt = new AtomicReference<>();
        GroupMember next = newKeeper()
                .member(group)
                .topics("expiring")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                        startsAt.set(partitions.get(tp));
                    }
                })
                .build();
        next.start();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(startsAt.get()).hasValue(42L));
    }
}

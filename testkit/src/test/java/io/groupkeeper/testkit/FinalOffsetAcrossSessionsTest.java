package io.groupkeeper.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.GroupStores;
import java.time.Duration;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, finding 4: a final offset handed over during a revocation whose release then failed (the connection
 * dropped) was kept with the stopped partition, but forgotten once the member came back in a new session: the release
 * compared versions within the old session, found nothing held and dropped it. A partition never committed, whose
 * successor starts at the log end, then skipped every record up to the handed-over offset. Now the member, back in a
 * new session, claims the partition again and releases it with the final offset when the offset node still holds what
 * it last saw there.
 */
class FinalOffsetAcrossSessionsTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final InMemoryZooKeeper zk = new InMemoryZooKeeper();
    private final InMemoryCoordinationStore store = InMemoryCoordinationStore.builder(zk)
            .sessionTimeout(Duration.ofSeconds(30))
            .build();
    private final GroupKeeper keeper =
            GroupKeeper.builder().store(store).build().start();
    private GroupKeeper later;

    @AfterEach
    void close() {
        keeper.close();
        if (later != null) {
            later.close();
        }
    }

    @Test
    void aFinalOffsetWhoseReleaseMetTheEndOfItsSessionIsWrittenInTheNextSession() throws Exception {
        keeper.topics().ensureTopic("t", 1);
        AtomicReference<GroupMember> self = new AtomicReference<>();
        AtomicBoolean revoked = new AtomicBoolean();
        GroupMember member = keeper.member("g")
                .topics("t")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                        assertThat(self.get().commitOnRelease(Map.of(TP, 42L), Map.of()))
                                .containsExactly(TP);
                        store.disconnect(); // the release that follows fails
                        store.expireSession(); // and the session ends while the connection is gone
                        revoked.set(true);
                    }
                })
                .build();
        self.set(member);
        member.start();
        await().until(() -> member.assignment().contains(TP));
        assertThat(member.committed(TP)).as("never committed").isEmpty();

        CompletableFuture<Void> closed = member.closeAsync();
        await().untilTrue(revoked);
        store.reconnect(); // LOST, then a new session
        closed.get(10, TimeUnit.SECONDS);

        assertThat(GroupStores.of(keeper.store(), "g").readOffset(TP, null).offset())
                .as("the handed-over offset")
                .hasValue(42L);
        assertThat(GroupStores.of(keeper.store(), "g").readOwner(TP))
                .as("released in the new session")
                .isEmpty();
        later = GroupKeeper.builder()
                .store(new InMemoryCoordinationStore(zk))
                .build()
                .start();
        AtomicReference<java.util.OptionalLong> startsAt = new AtomicReference<>();
        GroupMember successor = later.member("g")
                .topics("t")
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(
                            java.util.SortedMap<TopicPartition, java.util.OptionalLong> partitions) {
                        startsAt.set(partitions.get(TP));
                    }
                })
                .build();
        successor.start();
        await().untilAsserted(() ->
                assertThat(startsAt.get()).as("where the successor starts").hasValue(42L));
    }
}

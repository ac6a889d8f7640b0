package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.AssignmentInput;
import io.groupkeeper.assignor.PartitionAssignor;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A member's callbacks run on a lane of their own, behind each other: a revocation can wait behind a slow or failed
 * callback. Neither a close meanwhile nor a callback's Error may leave an owner node behind the member.
 */
class CallbacksInFlightIT extends ZkTestSupport {

    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Everything to the greatest member id: a member "b" joining takes every partition from "a". */
    static final class ToTheLast implements PartitionAssignor {
        @Override
        public String name() {
            return "to-the-last";
        }

        @Override
        public Assignment assign(AssignmentInput in) {
            Map<String, SortedSet<TopicPartition>> out = new TreeMap<>();
            in.members().keySet().forEach(m -> out.put(m, new TreeSet<>()));
            String last = in.members().lastKey();
            in.partitionCounts().forEach((topic, n) -> {
                for (int p = 0; p < n; p++) {
                    out.get(last).add(new TopicPartition(topic, p));
                }
            });
            return Assignment.of(out);
        }
    }

    private GroupKeeper keeper(String memberId) {
        GroupKeeper k = GroupKeeper.builder()
                .store(newStore())
                .memberIds(() -> memberId)
                .build()
                .start();
        toClose.add(k);
        return k;
    }

    @Test
    void aCloseWhileARevocationWaitsBehindASlowCallbackReleasesThePartitionAfterIt() throws Exception {
        String group = newGroup();
        topic("t", 1);
        CountDownLatch inAssigned = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger revoked = new AtomicInteger();
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                inAssigned.countDown();
                awaitQuietly(release);
            }

            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                revoked.incrementAndGet();
            }
        };
        GroupMember a = keeper("a")
                .member(group)
                .topics("t")
                .assignor(new ToTheLast())
                .listener(listener)
                .build();
        a.start();
        assertThat(inAssigned.await(10, TimeUnit.SECONDS)).isTrue(); // a's callbacks lane is busy from here
        GroupMember b =
                keeper("b").member(group).topics("t").assignor(new ToTheLast()).build();
        b.start();
        // a's step took t:0 out of its assignment and began the revocation, whose callback waits behind the slow one.
        await().atMost(WAIT).until(() -> a.assignment().isEmpty() && a.generation() == b.generation());

        CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
        assertThat(closing)
                .as("the close waits for the revocation it found on its way")
                .isNotDone();
        release.countDown();
        closing.get(30, TimeUnit.SECONDS);

        assertThat(revoked)
                .as("a's user code was told before its close returned")
                .hasValue(1);
        await().atMost(WAIT).until(() -> b.assignment().contains(T0));
        assertThat(ownersInZk(group)).containsExactly(Map.entry(T0, b.memberId()));
    }

    @Test
    void anErrorThrownByACallbackDoesNotStopTheCallbacksAfterIt() throws Exception {
        String group = newGroup();
        topic("t", 1);
        AtomicInteger revoked = new AtomicInteger();
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                throw new AssertionError("a user's check failed inside the callback");
            }

            @Override
            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                revoked.incrementAndGet();
            }
        };
        GroupMember a = keeper("a")
                .member(group)
                .topics("t")
                .assignor(new ToTheLast())
                .listener(listener)
                .build();
        a.start();
        await().atMost(WAIT).until(() -> a.assignment().contains(T0));
        GroupMember b =
                keeper("b").member(group).topics("t").assignor(new ToTheLast()).build();
        b.start();

        await().atMost(WAIT).until(() -> b.assignment().contains(T0));
        assertThat(revoked)
                .as("the revocation after the failed callback was delivered")
                .hasValue(1);
        assertThat(ownersInZk(group)).containsExactly(Map.entry(T0, b.memberId()));
        CompletableFuture.runAsync(a::close).get(30, TimeUnit.SECONDS);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

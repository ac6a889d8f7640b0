package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A partition lost when the store's connection goes in doubt and gained again by the same member at once, while a
 * handler call of it still runs (docs/parallel.md, "Ownership"): the container hears a new ownership (its assignment
 * hook runs again, as Kafka's consumer calls {@code onPartitionsLost} then {@code onPartitionsAssigned}), and the new
 * progress, which resumes from the stored low-water mark, dispatches nothing of the partition until the call of the
 * progress let go has returned: two records of one partition never run at once in a member, across its ownerships too.
 */
class ContainerConnectionDoubtIT extends ContainerTestSupport {

    @Test
    void aPartitionRegainedAfterAConnectionInDoubtWaitsForTheCallStillRunningBeforeItDispatchesAgain()
            throws Exception {
        String topic = newTopic(1);
        send(topic, 0, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
        String group = newName("doubt");
        GroupKeeper keeper = newKeeper();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger assignments = new AtomicInteger();
        List<String> calls = new CopyOnWriteArrayList<>();
        List<OptionalLong> tokens = new CopyOnWriteArrayList<>();
        started(container(keeper, group, topic)
                .ordering(Ordering.PARTITION)
                .parallelism(4)
                .onPartitionsAssigned((partitions, seeker) -> {
                    assignments.incrementAndGet();
                    partitions.forEach(tp -> tokens.add(seeker.fencingToken(tp)));
                })
                .recordHandler(r -> {
                    if (running.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    calls.add(r.value());
                    try {
                        if (r.value().equals("5") && calls.indexOf("5") == calls.size() - 1) {
                            // the first call of 5 holds until the test lets it go (the partition's call in flight)
                            assertThat(release.await(60, TimeUnit.SECONDS))
                                    .as("released")
                                    .isTrue();
                        }
                    } finally {
                        running.decrementAndGet();
                    }
                })
                .build());
        awaitStored(group, topic, 0, 5); // 0..4 done and committed; 5 runs
        await().atMost(WAIT).until(() -> calls.contains("5"));

        // The member's connection drops and comes back with the same session: "connection in doubt; stopped processing
        // [t:0] without commit", then the same member claims the partition again and resumes from the stored 5.
        ((ZooKeeperStore) keeper.store())
                .curator()
                .getZookeeperClient()
                .getZooKeeper()
                .getTestable()
                .closeSocket();
        await().atMost(WAIT).until(() -> assignments.get() == 2);
        assertThat(tokens.get(1)).as("the second claim's token").isNotEqualTo(tokens.get(0));

        // The first call of 5 still runs: nothing of the partition may start meanwhile (before: 5 again at once).
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(3))
                .until(() -> calls.size() == 6 && overlaps.get() == 0);

        release.countDown();
        await().atMost(WAIT).until(() -> calls.contains("9"));
        awaitStored(group, topic, 0, 10);
        assertThat(overlaps.get()).as("calls of the partition that overlapped").isZero();
        assertThat(calls)
                .as("5 runs again under the new claim, after the call of the lost one returned")
                .containsExactly("0", "1", "2", "3", "4", "5", "5", "6", "7", "8", "9");
    }
}

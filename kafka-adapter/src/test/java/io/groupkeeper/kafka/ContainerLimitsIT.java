package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The builder's progress limits on real ZooKeeper + Kafka (docs/parallel.md, "The span" and "Memory"): a container
 * built with a small span stops dispatching at it, and one built with a small buffer cap pauses the partition's
 * fetching at it; both go on when the record holding them is done.
 */
class ContainerLimitsIT extends ContainerTestSupport {

    @Test
    void aSmallSpanStopsDispatchingAtTheLowWaterMarkPlusTheSpanUntilTheFailingRecordIsDone() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        send(topic, 0, IntStream.range(0, 20).mapToObj(i -> "v" + i).toArray(String[]::new));
        AtomicBoolean failing = new AtomicBoolean(true);
        AtomicInteger attemptsOfFirst = new AtomicInteger();
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .ordering(Ordering.UNORDERED)
                .parallelism(4)
                .maxSpan(5)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(10_000, Backoff.fixed(Duration.ofMillis(20)))
                                .thenStopPartition())
                        .build())
                .recordHandler(r -> {
                    if (r.offset() == 0 && failing.get()) {
                        attemptsOfFirst.incrementAndGet();
                        throw new IllegalStateException("not yet");
                    }
                    seen.records.add(r);
                })
                .build());
        TopicPartition p0 = new TopicPartition(topic, 0);
        // offsets 1..4 lie within the span above the low-water mark 0; the record at 0 keeps failing meanwhile
        await().atMost(WAIT).until(() -> seen.records.size() == 4 && attemptsOfFirst.get() >= 20);
        assertThat(offsets(seen)).containsExactly(1L, 2L, 3L, 4L);
        assertThat(c.workers().get(0).paused())
                .as("fetching paused at the end of the span")
                .contains(p0);

        failing.set(false);
        await().atMost(WAIT).until(() -> seen.records.size() == 20);
        assertThat(offsets(seen)).hasSize(20).contains(0L, 19L);
        awaitStored(group, topic, 0, 20);
    }

    @Test
    void aSmallBufferCapPausesThePartitionsFetchingUntilHalfIsDone() throws Exception {
        String topic = newTopic(1);
        send(topic, 0, IntStream.range(0, 40).mapToObj(i -> "v" + i).toArray(String[]::new));
        CountDownLatch release = new CountDownLatch(1);
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), newName("g"), topic)
                .kafkaProperty("max.poll.records", "2")
                .ordering(Ordering.PARTITION)
                .parallelism(2)
                .maxBufferedRecords(6)
                .recordHandler(r -> {
                    if (r.offset() == 0 && !release.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("not released");
                    }
                    seen.records.add(r);
                })
                .build());
        TopicPartition p0 = new TopicPartition(topic, 0);
        // the record at 0 is held by its handler; what is fetched behind it stays held until the cap pauses fetching
        await().atMost(WAIT).until(() -> c.workers().get(0).paused().contains(p0));
        assertThat(seen.records).isEmpty();

        release.countDown();
        await().atMost(WAIT).until(() -> seen.records.size() == 40);
        assertThat(offsets(seen)).hasSize(40);
        await().atMost(WAIT).until(() -> !c.workers().get(0).paused().contains(p0));
    }

    private static Set<Long> offsets(Seen seen) {
        return seen.records.stream().map(r -> r.offset()).collect(Collectors.toCollection(TreeSet::new));
    }
}

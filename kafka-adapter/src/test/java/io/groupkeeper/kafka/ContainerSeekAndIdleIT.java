package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ContainerListener;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 36 item 6: listener code positions a partition when it is assigned (an offset from its own store, or a point
 * in time), before the first record is fetched; and a quiet container reports itself idle.
 */
class ContainerSeekAndIdleIT extends ContainerTestSupport {

    @Test
    void anAssignmentHookSeeksToAnOffsetOrATimestampBeforeTheFirstRecord() throws Exception {
        String topic = newTopic(1);
        TopicPartition tp = new TopicPartition(topic, 0);
        // record i stamped base + i s. Recent times: the broker's retention (7 days, first checked 30 s after it
        // started) deletes records stamped long ago, so times from 1970 vanished whenever a loaded run reached
        // that check before the containers had read them
        long base = System.currentTimeMillis() - 60_000;
        for (int i = 0; i < 10; i++) {
            producer.send(new ProducerRecord<>(topic, 0, base + i * 1_000L, "k", "v" + i))
                    .get();
        }
        GroupKeeper keeper = newKeeper();
        Queue<String> byOffset = new ConcurrentLinkedQueue<>();
        Queue<List<TopicPartition>> assigned = new ConcurrentLinkedQueue<>();
        started(container(keeper, newName("from-store"), topic)
                .onPartitionsAssigned((partitions, seeker) -> {
                    assigned.add(List.copyOf(partitions));
                    seeker.seek(tp, 6); // as read from the application's own store
                })
                .recordHandler(r -> byOffset.add(r.value()))
                .build());
        Queue<String> byTime = new ConcurrentLinkedQueue<>();
        started(container(keeper, newName("from-time"), topic)
                .onPartitionsAssigned((partitions, seeker) -> seeker.seekToTimestamp(tp, base + 3_500L))
                .recordHandler(r -> byTime.add(r.value()))
                .build());

        await().atMost(WAIT).until(() -> byOffset.size() == 4 && byTime.size() == 6);
        assertThat(byOffset).containsExactly("v6", "v7", "v8", "v9");
        assertThat(assigned).containsExactly(List.of(tp));
        assertThat(byTime)
                .as("the first record at or after the time")
                .containsExactly("v4", "v5", "v6", "v7", "v8", "v9");
    }

    /*
     * The quiet before the first record is reported too, counted from the worker's start. A loaded machine may take
     * longer than the interval to assign the partition and fetch its record, so the idle tests below make that happen
     * every time — the container reports idle on an empty topic first, then the record is sent — and judge only the
     * reports that came after the record (the worker's thread reports and fetches, so the order is exact).
     */

    @Test
    void aQuietContainerReportsItselfIdleOncePerInterval() throws Exception {
        String topic = newTopic(1);
        GroupKeeper keeper = newKeeper();
        Queue<Duration> before = new ConcurrentLinkedQueue<>();
        Queue<Duration> idle = new ConcurrentLinkedQueue<>();
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        started(container(keeper, newName("quiet"), topic)
                .idleEventInterval(Duration.ofMillis(400))
                .listener(new ContainerListener() {
                    @Override
                    public void idle(String member, Duration idleFor) {
                        (seen.isEmpty() ? before : idle).add(idleFor); // the handler runs on this thread too
                    }
                })
                .recordHandler(r -> seen.add(r.value()))
                .build());
        await().atMost(WAIT).until(() -> !before.isEmpty()); // quiet from the start: reported before any record
        send(topic, 0, "a");

        await().atMost(WAIT).until(() -> seen.size() == 1 && idle.size() >= 2);
        List<Duration> reports = List.copyOf(idle);
        assertThat(reports).allSatisfy(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofMillis(400)));
        assertThat(reports.get(1)).as("reported again one interval later").isGreaterThan(reports.get(0));
    }

    @Test
    void aContainerWhoseHandlersAreStillAtWorkOnAnotherThreadIsNotIdle() throws Exception {
        String topic = newTopic(1);
        GroupKeeper keeper = newKeeper();
        Queue<Duration> before = new ConcurrentLinkedQueue<>();
        Queue<Duration> idle = new ConcurrentLinkedQueue<>();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        started(container(keeper, newName("busy"), topic)
                .parallelism(2) // the handler runs on a work thread while the polling thread polls empty-handed
                .idleEventInterval(Duration.ofMillis(200))
                .listener(new ContainerListener() {
                    @Override
                    public void idle(String member, Duration idleFor) {
                        // a report made before the fetch that handed the record over cannot see the handler started
                        (started.getCount() > 0 ? before : idle).add(idleFor);
                    }
                })
                .recordHandler(r -> {
                    started.countDown();
                    release.await();
                })
                .build());
        await().atMost(WAIT).until(() -> !before.isEmpty()); // quiet from the start: reported before any record
        send(topic, 0, "a");
        assertThat(started.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        await().during(Duration.ofMillis(1_000)).atMost(WAIT).until(idle::isEmpty);
        release.countDown();
        await().atMost(WAIT).until(() -> !idle.isEmpty()); // quiet once the record is done
    }
}

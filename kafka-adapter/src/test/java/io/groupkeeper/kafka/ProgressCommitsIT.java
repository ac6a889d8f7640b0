package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.kafka.internal.ProgressCommits;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 46 item 2 through the consumer the listener container drives ({@link ProgressCommits}), on a real broker and
 * real ZooKeeper: the container's low-water mark and done value are committed instead of the position, handed to the
 * next owner on a revocation, and never copied to Kafka's group offsets (the mirror copies the low-water mark only).
 */
class ProgressCommitsIT extends KafkaTestSupport {

    private static String done(long from) {
        return "{\"from\":" + from + ",\"ranges\":[[" + (from + 2) + "," + (from + 3) + "]]}";
    }

    private static String node(String group, String topic, int partition) throws Exception {
        return new String(
                zk.curator()
                        .getData()
                        .forPath(ZkPaths.offset(group, io.groupkeeper.TopicPartition.of(topic, partition))),
                StandardCharsets.UTF_8);
    }

    private CoordinatedConsumer<String, String> started(CoordinatedConsumer.Builder<String, String> b) {
        CoordinatedConsumer<String, String> c =
                b.startPosition(StartPosition.earliest()).build();
        toClose.add(c);
        return c.start();
    }

    private static List<ConsumerRecord<String, String>> pollUntil(CoordinatedConsumer<String, String> c, int count) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            c.poll(Duration.ofMillis(100)).forEach(got::add);
            return got.size() >= count;
        });
        return got;
    }

    @Test
    void theLowWaterMarkAndDoneValueAreCommittedAndOnlyTheMarkReachesKafka() throws Exception {
        String topic = newTopic(1);
        String group = newName("progress");
        produce(topic, 1, 10);
        CoordinatedConsumer<String, String> c =
                started(consumer(newKeeper(), group, topic).mirrorOffsetsToKafka());
        pollUntil(c, 10); // the position is 10; the container has finished 0..2, 5 and 6
        TopicPartition tp = new TopicPartition(topic, 0);

        ((ProgressCommits) c).progress(tp, 3, Optional.of(done(3)));
        c.commitSync();

        assertThat(storedOffset(group, topic, 0)).hasValue(3);
        assertThat(node(group, topic, 0)).contains("\"done\":" + done(3));
        await().atMost(WAIT).pollInSameThread().untilAsserted(() -> {
            c.poll(Duration.ofMillis(100)); // a commit sent before the mirror's producer was ready is sent again
            OffsetAndMetadata inKafka = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .get(tp);
            assertThat(inKafka).isNotNull();
            assertThat(inKafka.offset()).as("the low-water mark").isEqualTo(3);
            assertThat(inKafka.metadata())
                    .doesNotContain("from")
                    .doesNotContain("ranges")
                    .doesNotContain("5");
        });

        ((ProgressCommits) c).progress(tp, 7, Optional.empty()); // all done up to 7: nothing above it
        c.commitSync();
        assertThat(storedOffset(group, topic, 0)).hasValue(7);
        assertThat(node(group, topic, 0)).doesNotContain("done");
    }

    @Test
    void aRevocationHandsTheFinalProgressToTheNextOwnerWhoReadsItBesideTheOffsetItResumesFrom() throws Exception {
        String topic = newTopic(2);
        String group = newName("handover");
        produce(topic, 2, 40);
        CoordinatedConsumer<String, String>[] a = new CoordinatedConsumer[1];
        a[0] = started(consumer(newKeeper(), group, topic).listener(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // The container drains, then hands its final snapshot over before returning.
                partitions.forEach(tp -> ((ProgressCommits) a[0])
                        .progress(tp, 4 + tp.partition(), Optional.of(done(4 + tp.partition()))));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
        }));
        pollUntil(a[0], 40);

        Map<TopicPartition, Optional<String>> doneSeen = new ConcurrentHashMap<>();
        Map<TopicPartition, OptionalLong> offsetSeen = new ConcurrentHashMap<>();
        CoordinatedConsumer<String, String>[] b = new CoordinatedConsumer[1];
        b[0] = started(consumer(newKeeper(), group, topic).listener(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                partitions.forEach(tp -> {
                    doneSeen.put(tp, ((ProgressCommits) b[0]).resumeDone(tp));
                    offsetSeen.put(tp, ((ProgressCommits) b[0]).resumeOffset(tp));
                });
            }
        }));
        List<ConsumerRecord<String, String>> atB = new ArrayList<>();
        await().atMost(WAIT).pollInSameThread().until(() -> {
            a[0].poll(Duration.ofMillis(50)); // serves the revocation
            b[0].poll(Duration.ofMillis(50)).forEach(atB::add);
            return !atB.isEmpty();
        });

        TopicPartition moved = b[0].assignment().iterator().next();
        long mark = 4 + moved.partition();
        assertThat(offsetSeen).containsExactly(Map.entry(moved, OptionalLong.of(mark)));
        assertThat(doneSeen).containsExactly(Map.entry(moved, Optional.of(done(mark))));
        assertThat(atB.get(0).offset())
                .as("fetching resumes at the low-water mark")
                .isEqualTo(mark);
        assertThat(((ProgressCommits) b[0]).resumeDone(new TopicPartition(topic, 1 - moved.partition())))
                .as("not owned")
                .isEmpty();
    }
}

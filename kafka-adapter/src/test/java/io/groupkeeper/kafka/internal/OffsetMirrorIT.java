package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** On a real broker: the mirror never moves Kafka's offset backwards across owners, and gives up what it gave up. */
class OffsetMirrorIT extends BrokerTestSupport {

    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger mirrored = new AtomicInteger();
    private final GroupMetrics metrics = new GroupMetrics() {
        @Override
        public void offsetsMirrored(String group, int partitions) {
            mirrored.addAndGet(partitions);
        }

        @Override
        public void offsetMirrorFailed(String group, int partitions) {
            failed.addAndGet(partitions);
        }
    };

    private OffsetMirror mirror(String kafkaGroup) {
        return new OffsetMirror(
                "g",
                kafkaGroup,
                kafka.clientProperties(),
                metrics,
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                System::nanoTime);
    }

    /**
     * Issue 34 finding 5. The previous owner's write of its final offset reaches Kafka after the next owner's first
     * write (a request retried inside the client or queued in the broker looks the same to Kafka as one sent late):
     * Kafka must keep the next owner's offset.
     */
    @Test
    void aPreviousOwnersWriteThatLandsAfterTheNextOwnersDoesNotMoveKafkasOffsetBack() throws Exception {
        String topic = "t-" + UUID.randomUUID();
        String kafkaGroup = "g-" + UUID.randomUUID();
        kafka.createTopic(topic, 1);
        io.groupkeeper.TopicPartition p0 = new io.groupkeeper.TopicPartition(topic, 0);
        try (OffsetMirror previous = mirror(kafkaGroup);
                OffsetMirror next = mirror(kafkaGroup)) {
            previous.gained(List.of(p0));
            await().atMost(Duration.ofSeconds(30)).until(() -> previous.ready(p0));
            previous.offer(Map.of(p0, 10L), previous.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> stored(kafkaGroup, topic) == 10L);

            // The store moved the partition to the next owner, which starts from 10 and commits 20.
            next.gained(List.of(p0));
            await().atMost(Duration.ofSeconds(30)).until(() -> next.ready(p0));
            next.offer(Map.of(p0, 20L), next.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> stored(kafkaGroup, topic) == 20L);

            // The previous owner's final offset (committed while it owned the partition) arrives only now.
            int failedBefore = failed.get();
            previous.offer(Map.of(p0, 15L), previous.mark() - 1);
            previous.released(List.of(p0));
            await().atMost(Duration.ofSeconds(30)).until(() -> failed.get() > failedBefore && previous.idle());
            assertThat(stored(kafkaGroup, topic))
                    .as("Kafka's offset after the late write")
                    .isEqualTo(20L);

            next.offer(Map.of(p0, 30L), next.mark()); // the owner is not disturbed
            await().atMost(Duration.ofSeconds(30)).until(() -> stored(kafkaGroup, topic) == 30L);
        }
    }

    @Test
    void aCommitSentBeforeThePartitionsProducerWasReadyIsNotMirroredButOwed() {
        String topic = "t-" + UUID.randomUUID();
        io.groupkeeper.TopicPartition p0 = new io.groupkeeper.TopicPartition(topic, 0);
        kafka.createTopic(topic, 1);
        try (OffsetMirror m = mirror("g-" + UUID.randomUUID())) {
            long before = m.mark();
            m.gained(List.of(p0));
            m.offer(Map.of(p0, 3L), before);
            m.offer(Map.of(new io.groupkeeper.TopicPartition(topic, 1), 3L), m.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> m.ready(p0) && m.idle());
            assertThat(m.owed())
                    .as("committed again to be mirrored; a partition never gained is not")
                    .containsExactly(p0);
            m.offer(Map.of(p0, 3L), m.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> mirrored.get() == 1 && m.idle());
            assertThat(m.owed()).isEmpty();
        }
    }

    @Test
    void aFailedMirrorOfAPartitionGivenUpSinceIsNotRetriedBehindItsNextOwner() throws Exception {
        String topic = "t-" + UUID.randomUUID();
        String kafkaGroup = "busy-" + UUID.randomUUID();
        kafka.createTopic(topic, 2);
        io.groupkeeper.TopicPartition p0 = new io.groupkeeper.TopicPartition(topic, 0);
        io.groupkeeper.TopicPartition p1 = new io.groupkeeper.TopicPartition(topic, 1);
        // Kafka's group has a live member of its own: the mirror refuses to write under it.
        Map<String, Object> props = new HashMap<>(kafka.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, kafkaGroup);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // its own commits would hide the mirror's
        KafkaConsumer<String, String> member =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        member.subscribe(List.of(topic));
        await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
            member.poll(Duration.ofMillis(100));
            return !member.assignment().isEmpty();
        });
        try (OffsetMirror mirror = mirror(kafkaGroup)) {
            mirror.gained(List.of(p0, p1));
            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.ready(p0) && mirror.ready(p1));
            mirror.offer(Map.of(p0, 500L), mirror.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> failed.get() == 1 && mirror.idle()); // p0 waits to retry
            mirror.released(List.of(p0)); // given up: its failed write is not retried
            await().atMost(Duration.ofSeconds(30)).until(mirror::idle);

            member.close(Duration.ofSeconds(10)); // the Kafka group is empty: writes are accepted
            mirror.offer(Map.of(p1, 7L), mirror.mark());
            await().atMost(Duration.ofSeconds(30)).until(() -> mirrored.get() >= 1 && mirror.idle());

            try (Admin admin = Admin.create(kafka.clientProperties())) {
                Map<TopicPartition, OffsetAndMetadata> stored = admin.listConsumerGroupOffsets(kafkaGroup)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
                assertThat(stored).containsOnlyKeys(new TopicPartition(topic, 1));
                assertThat(stored.get(new TopicPartition(topic, 1)).offset()).isEqualTo(7);
            }
            assertThat(mirrored).as("p1 alone").hasValue(1);
            assertThat(failed).as("p0's one refused write").hasValue(1);
        }
    }

    private long stored(String kafkaGroup, String topic) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            OffsetAndMetadata o = admin.listConsumerGroupOffsets(kafkaGroup)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .get(new TopicPartition(topic, 0));
            return o == null ? -1 : o.offset();
        }
    }
}

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

/** On a real broker: a mirror write that failed is not sent again once the member gave its partition up. */
class OffsetMirrorIT extends BrokerTestSupport {

    @Test
    void aFailedMirrorOfAPartitionGivenUpSinceIsNotRetriedBehindItsNextOwner() throws Exception {
        String topic = "t-" + UUID.randomUUID();
        String kafkaGroup = "busy-" + UUID.randomUUID();
        kafka.createTopic(topic, 2);
        io.groupkeeper.TopicPartition p0 = new io.groupkeeper.TopicPartition(topic, 0);
        io.groupkeeper.TopicPartition p1 = new io.groupkeeper.TopicPartition(topic, 1);
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger mirrored = new AtomicInteger();
        GroupMetrics metrics = new GroupMetrics() {
            @Override
            public void offsetsMirrored(String group, int partitions) {
                mirrored.addAndGet(partitions);
            }

            @Override
            public void offsetMirrorFailed(String group, int partitions) {
                failed.addAndGet(partitions);
            }
        };
        // Kafka refuses offset changes from outside while the Kafka group has a live member of its own.
        Map<String, Object> props = new HashMap<>(kafka.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, kafkaGroup);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // its own commits would hide the mirror's
        KafkaConsumer<String, String> member = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        member.subscribe(List.of(topic));
        await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
            member.poll(Duration.ofMillis(100));
            return !member.assignment().isEmpty();
        });
        try (OffsetMirror mirror = new OffsetMirror("g", kafkaGroup, kafka.clientProperties(), metrics,
                Duration.ofSeconds(10), Duration.ofMinutes(1), System::nanoTime)) {
            mirror.offer(Map.of(p0, 500L));
            await().atMost(Duration.ofSeconds(30)).until(() -> failed.get() == 1 && mirror.idle()); // p0 waits to retry
            // Given up: sent at once (and refused again) rather than with some later offer, and not retried after.
            mirror.released(List.of(p0));
            await().atMost(Duration.ofSeconds(30)).until(() -> failed.get() == 2 && mirror.idle());

            member.close(Duration.ofSeconds(10)); // the Kafka group is empty: writes are accepted
            mirror.offer(Map.of(p1, 7L));
            await().atMost(Duration.ofSeconds(30)).until(() -> mirrored.get() >= 1);

            try (Admin admin = Admin.create(kafka.clientProperties())) {
                Map<TopicPartition, OffsetAndMetadata> stored = admin.listConsumerGroupOffsets(kafkaGroup)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                assertThat(stored).containsOnlyKeys(new TopicPartition(topic, 1));
                assertThat(stored.get(new TopicPartition(topic, 1)).offset()).isEqualTo(7);
            }
            assertThat(mirrored).as("p1 alone").hasValue(1);
        }
    }
}

package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * On a real broker: counts answered from what the member's consumer reported (without asking Kafka) are checked
 * within one refresh interval, and counts that were wrong by then fire the rebalancer's hook and are corrected.
 */
class KafkaTopicMetadataIT extends BrokerTestSupport {

    @Test
    void countsAnsweredFromTheConsumersLookUpAreCheckedAndCorrectedWithinARefresh() {
        String topic = "t-" + UUID.randomUUID();
        kafka.createTopic(topic, 2);
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(
                kafka.clientProperties(), Duration.ofMillis(100), Duration.ofSeconds(10), "group " + topic)) {
            // what the consumer reported is out of date already: one partition was added after its look-up
            md.watch(List.of(topic), Map.of(topic, 1), Set.of());
            AtomicBoolean changed = new AtomicBoolean();

            assertThat(md.partitionCounts(List.of(topic), () -> changed.set(true)))
                    .isEqualTo(Map.of(topic, 1));

            await().atMost(Duration.ofSeconds(20)).untilTrue(changed);
            assertThat(md.partitionCounts(List.of(topic), null)).isEqualTo(Map.of(topic, 2));
        }
    }
}

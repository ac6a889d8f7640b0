package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a member's own KafkaConsumer learned as it started spares the topic check its Admin client. No broker: the
 * bootstrap address refuses connections, so anything that did reach for Kafka would find it unavailable.
 */
class KafkaTopicMetadataTest {

    private static final Map<String, Object> UNREACHABLE = Map.of("bootstrap.servers", "127.0.0.1:1");

    @Test
    void topicsTheConsumerFoundNeedNoCheckAndServeAsTheLastKnownCounts() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200),
                owner)) {
            md.watch(List.of("a", "b"), Map.of("a", 3, "b", 1), Set.of());

            assertThat(md.missingTopics()).isEmpty();
            assertThat(pollingThreadOf(owner)).as("no timer, so no Admin client either").isFalse();
            // Kafka unreachable now: the counts the consumer reported are what the group goes on with.
            assertThat(md.partitionCounts(List.of("a", "b"), null)).isEqualTo(Map.of("a", 3, "b", 1));
        }
    }

    @Test
    void aTopicTheConsumerDidNotFindIsMissingAtOnceAndCheckedUntilItAppears() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200),
                owner)) {
            md.watch(List.of("a", "gone"), Map.of("a", 3), Set.of("gone"));

            assertThat(md.missingTopics()).containsExactly("gone");
            assertThat(pollingThreadOf(owner)).isTrue();
        }
    }

    @Test
    void topicsNobodyAskedAboutYetAreChecked() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200),
                owner)) {
            md.watch(List.of("a", "b"), Map.of("a", 3), Set.of());

            assertThat(md.missingTopics()).isEmpty();
            assertThat(pollingThreadOf(owner)).isTrue();
        }
    }

    private static boolean pollingThreadOf(String owner) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("groupkeeper-kafka-metadata " + owner));
    }
}

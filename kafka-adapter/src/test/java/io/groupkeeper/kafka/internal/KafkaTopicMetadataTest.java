package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    void replicaRacksFromAnUnreachableKafkaAreNoneAndTheAssignmentGoesOnWithoutRacks() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200),
                owner)) {
            md.watch(List.of("a"), Map.of("a", 3), Set.of());

            assertThat(md.partitionRacks(List.of("a"))).isEqualTo(io.groupkeeper.assignor.PartitionRacks.empty());
            assertThat(md.partitionCounts(List.of("a"), null)).as("counts unaffected").isEqualTo(Map.of("a", 3));
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

    @Test
    void aLeadersFirstCountsComeFromWhatTheConsumerFoundWithoutAnAdminClient() {
        String owner = "group " + UUID.randomUUID();
        String clientId = "md-" + UUID.randomUUID();
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(unreachable(clientId), Duration.ofMinutes(1),
                Duration.ofMillis(200), owner)) {
            // Found topics only: a missing one would have the timer check Kafka at once, by design.
            md.watch(List.of("a", "b"), Map.of("a", 3, "b", 1), Set.of());

            // the rebalancer's first call as leader, with its hook (checked a refresh interval later)
            assertThat(md.partitionCounts(List.of("a", "b"), () -> { })).isEqualTo(Map.of("a", 3, "b", 1));
            assertThat(adminClientThread(clientId)).as("the leader published without creating an Admin client")
                    .isFalse();
        }
    }

    @Test
    void aCountAskedForWhileTheConsumerLooksTheTopicsUpWaitsForWhatItFinds() throws Exception {
        String owner = "group " + UUID.randomUUID();
        String clientId = "md-" + UUID.randomUUID();
        // A long timeout: a call that did not wait would go to the unreachable Kafka and fail only after it.
        try (KafkaTopicMetadata md = new KafkaTopicMetadata(unreachable(clientId), Duration.ofMinutes(1),
                Duration.ofSeconds(30), owner)) {
            md.expectLookUp();
            CompletableFuture<Map<String, Integer>> counts = new CompletableFuture<>();
            Thread leader = new Thread(() -> {
                try {
                    counts.complete(md.partitionCounts(List.of("a"), null));
                } catch (RuntimeException e) {
                    counts.completeExceptionally(e);
                }
            }, "rebalancer");
            leader.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.getState() == Thread.State.TIMED_WAITING);

            md.watch(List.of("a"), Map.of("a", 4), Set.of());

            assertThat(counts.get(10, TimeUnit.SECONDS)).isEqualTo(Map.of("a", 4));
            assertThat(adminClientThread(clientId)).isFalse();
        }
    }

    private static Map<String, Object> unreachable(String clientId) {
        return Map.of("bootstrap.servers", "127.0.0.1:1", "client.id", clientId);
    }

    private static boolean adminClientThread(String clientId) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("kafka-admin-client-thread | " + clientId));
    }

    private static boolean pollingThreadOf(String owner) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("groupkeeper-kafka-metadata " + owner));
    }
}

package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.log.internal.LogContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What a member's own KafkaConsumer learned as it started spares the topic check its Admin client. No broker: the
 * bootstrap address refuses connections, so anything that did reach for Kafka would find it unavailable.
 */
class KafkaTopicMetadataTest {

    private static final Map<String, Object> UNREACHABLE = Map.of("bootstrap.servers", "127.0.0.1:1");

    @Test
    void topicsTheConsumerFoundNeedNoCheckAndServeAsTheLastKnownCounts() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200), owner)) {
            md.watch(List.of("a", "b"), Map.of("a", 3, "b", 1), Set.of());

            assertThat(md.missingTopics()).isEmpty();
            assertThat(pollingThreadOf(owner))
                    .as("no timer, so no Admin client either")
                    .isFalse();
            // Kafka unreachable now: the counts the consumer reported are what the group goes on with.
            assertThat(md.partitionCounts(List.of("a", "b"), null)).isEqualTo(Map.of("a", 3, "b", 1));
        }
    }

    @Test
    void replicaRacksFromAnUnreachableKafkaAreNoneAndTheAssignmentGoesOnWithoutRacks() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200), owner)) {
            md.watch(List.of("a"), Map.of("a", 3), Set.of());

            assertThat(md.partitionRacks(List.of("a"))).isEqualTo(io.groupkeeper.assignor.PartitionRacks.empty());
            assertThat(md.partitionCounts(List.of("a"), null))
                    .as("counts unaffected")
                    .isEqualTo(Map.of("a", 3));
        }
    }

    @Test
    void aTopicTheConsumerDidNotFindIsMissingAtOnceAndCheckedUntilItAppears() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200), owner)) {
            md.watch(List.of("a", "gone"), Map.of("a", 3), Set.of("gone"));

            assertThat(md.missingTopics()).containsExactly("gone");
            assertThat(pollingThreadOf(owner)).isTrue();
        }
    }

    @Test
    void topicsNobodyAskedAboutYetAreChecked() {
        String owner = "group " + UUID.randomUUID();
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200), owner)) {
            md.watch(List.of("a", "b"), Map.of("a", 3), Set.of());

            assertThat(md.missingTopics()).isEmpty();
            assertThat(pollingThreadOf(owner)).isTrue();
        }
    }

    @Test
    void aLeadersFirstCountsComeFromWhatTheConsumerFoundWithoutAnAdminClient() {
        String owner = "group " + UUID.randomUUID();
        String clientId = "md-" + UUID.randomUUID();
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(unreachable(clientId), Duration.ofMinutes(1), Duration.ofMillis(200), owner)) {
            // Found topics only: a missing one would have the timer check Kafka at once, by design.
            md.watch(List.of("a", "b"), Map.of("a", 3, "b", 1), Set.of());

            // the rebalancer's first call as leader, with its hook (checked a refresh interval later)
            assertThat(md.partitionCounts(List.of("a", "b"), () -> {})).isEqualTo(Map.of("a", 3, "b", 1));
            assertThat(adminClientThread(clientId))
                    .as("the leader published without creating an Admin client")
                    .isFalse();
        }
    }

    @Test
    void aCountAskedForWhileTheConsumerLooksTheTopicsUpWaitsForWhatItFinds() throws Exception {
        String owner = "group " + UUID.randomUUID();
        String clientId = "md-" + UUID.randomUUID();
        // A long timeout: a call that did not wait would go to the unreachable Kafka and fail only after it.
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(unreachable(clientId), Duration.ofMinutes(1), Duration.ofSeconds(30), owner)) {
            md.expectLookUp();
            CompletableFuture<Map<String, Integer>> counts = new CompletableFuture<>();
            Thread leader = new Thread(
                    () -> {
                        try {
                            counts.complete(md.partitionCounts(List.of("a"), null));
                        } catch (RuntimeException e) {
                            counts.completeExceptionally(e);
                        }
                    },
                    "rebalancer");
            leader.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.getState() == Thread.State.TIMED_WAITING);

            md.watch(List.of("a"), Map.of("a", 4), Set.of());

            assertThat(counts.get(10, TimeUnit.SECONDS)).isEqualTo(Map.of("a", 4));
            assertThat(adminClientThread(clientId)).isFalse();
        }
    }

    @Test
    void aBrokerRackGroupkeeperCannotCarryCountsAsNoRackWithOneWarningNamingTheBrokerAndValue() {
        String longRack = "z".repeat(300);
        Node good = new Node(1, "h1", 9092, "r1");
        Node tooLong = new Node(2, "h2", 9092, longRack);
        Node control = new Node(3, "h3", 9092, "a\u0007b");
        TopicDescription d = new TopicDescription(
                "t",
                false,
                List.of(
                        new TopicPartitionInfo(0, good, List.of(good, tooLong), List.of(good)),
                        new TopicPartitionInfo(1, tooLong, List.of(tooLong, control), List.of(tooLong)),
                        new TopicPartitionInfo(2, control, List.of(control, good), List.of(control))));
        Logger logger = (Logger) LoggerFactory.getLogger(KafkaTopicMetadata.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMinutes(1), Duration.ofMillis(200), "group racks")) {
            md.rememberRacks("t", d);
            md.rememberRacks("t", d); // the periodic check describes the topic again: no second warning

            // Without the filter, PartitionRacks.of throws on the leader and every rebalance fails.
            assertThat(md.partitionRacks(List.of("t")))
                    .isEqualTo(PartitionRacks.of(Map.of(
                            new TopicPartition("t", 0), Set.of("r1"),
                            new TopicPartition("t", 2), Set.of("r1"))));
        } finally {
            logger.detachAppender(appender);
        }
        List<String> warnings = appender.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0)).contains("broker 2", longRack);
        assertThat(warnings.get(1)).contains("broker 3", "a\\u0007b").doesNotContain("\u0007");
    }

    /**
     * The timer's thread has no member lane around it: its lines still name the group, through the MDC key the
     * documented pattern prints ({@code %X{group}}), and the message carries no prefix of its own.
     */
    @Test
    void theTimersLinesNameTheGroupInTheLoggingContextNotInTheMessage() {
        String group = "g-" + UUID.randomUUID();
        Logger logger = (Logger) LoggerFactory.getLogger(KafkaTopicMetadata.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (KafkaTopicMetadata md =
                new KafkaTopicMetadata(UNREACHABLE, Duration.ofMillis(50), Duration.ofMillis(200), group)) {
            md.watch(List.of("gone"), Map.of(), Set.of("gone")); // a missing topic: the timer checks Kafka
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> unreadable(appender).isPresent());
        } finally {
            logger.detachAppender(appender);
        }
        ILoggingEvent line = unreadable(appender).orElseThrow();
        assertThat(line.getThreadName()).isEqualTo("groupkeeper-kafka-metadata " + group);
        assertThat(line.getMDCPropertyMap())
                .containsEntry(LogContext.GROUP, group)
                .doesNotContainKey(LogContext.MEMBER);
        assertThat(line.getFormattedMessage())
                .startsWith("cannot read topic metadata from Kafka at 127.0.0.1:1")
                .doesNotContain(group);
    }

    private static Optional<ILoggingEvent> unreadable(ListAppender<ILoggingEvent> appender) {
        synchronized (appender) {
            return appender.list.stream()
                    .filter(e -> e.getFormattedMessage().contains("cannot read topic metadata"))
                    .findFirst();
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

package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.BatchFailedException;
import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.DeadLetterHeaders;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Recovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** The container's error policy on real ZooKeeper + Kafka: retries, dead letters, skip, stop, bad bytes, batches. */
class ContainerErrorHandlingIT extends ContainerTestSupport {

    /** A value deserializer that refuses anything not starting with '{'. */
    static Deserializer<String> jsonOnly() {
        return (t, data) -> {
            String s = new StringDeserializer().deserialize(t, data);
            if (s.startsWith("{")) {
                return s;
            }
            throw new SerializationException("not JSON: " + s);
        };
    }

    @Test
    void aPoisonRecordIsRetriedWithBackoffThenDeadLetteredWithItsOriginAndTheGroupMovesOn() throws Exception {
        String topic = newTopic(1);
        servers.kafka().createTopic(topic + "-dlt", 1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger poisonCalls = new AtomicInteger();
        Seen seen = new Seen();
        send(topic, 0, "a");
        send(topic, 0, "poison");
        send(topic, 0, "b");
        started(container(keeper, group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(
                                        3, Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(1)))
                                .thenDeadLetter())
                        .build())
                .sleeper(waits::add)
                .recordHandler(r -> {
                    if (r.value().equals("poison")) {
                        poisonCalls.incrementAndGet();
                        throw new IllegalStateException("cannot bill " + r.value());
                    }
                    seen.records.add(r);
                })
                .build());

        awaitStored(group, topic, 0, 3); // the position moved past the poison record
        assertThat(seen.values()).containsExactly("a", "b");
        assertThat(poisonCalls).hasValue(3);
        assertThat(waits).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
        ConsumerRecord<String, String> dead = readAll(topic + "-dlt", 1).get(0);
        assertThat(dead.value()).isEqualTo("poison");
        assertThat(dead.key()).isEqualTo("k-poison");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_TOPIC)).isEqualTo(topic);
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_PARTITION)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("1");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_TIMESTAMP))
                .isEqualTo(Long.toString(readAll(topic, 3).get(1).timestamp()));
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_CLASS)).isEqualTo(IllegalStateException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_MESSAGE)).isEqualTo("cannot bill poison");
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(header(dead, DeadLetterHeaders.GROUP)).isEqualTo(group);
    }

    @Test
    void aRecordThatDoesNotDeserializeIsDeadLetteredRawWithoutRetries() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        Seen seen = new Seen();
        send(topic, 0, "{1}");
        send(topic, 0, "garbage");
        send(topic, 0, "{2}");
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .deserializers(new StringDeserializer(), jsonOnly())
                .createDeadLetterTopics(true)
                .sleeper(waits::add)
                .recordHandler(seen.records::add)
                .build());

        awaitStored(group, topic, 0, 3);
        assertThat(seen.values()).containsExactly("{1}", "{2}");
        assertThat(waits).isEmpty();
        ConsumerRecord<String, String> dead = readAll(topic + "-dlt", 1).get(0);
        assertThat(dead.value()).isEqualTo("garbage");
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_CLASS)).isEqualTo(SerializationException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_MESSAGE)).isEqualTo("not JSON: garbage");
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("1");
        assertThat(c.stoppedPartitions()).isEmpty();
    }

    @Test
    void theMostSpecificRuleWinsSkipMovesOnAndStopPausesThePartitionUntilResumed() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        Seen seen = new Seen();
        AtomicBoolean fixed = new AtomicBoolean();
        send(topic, 0, "n1");
        send(topic, 0, "not-a-number"); // NumberFormatException (an IllegalArgumentException): skipped
        send(topic, 0, "n2");
        send(topic, 1, "m1");
        send(topic, 1, "broken"); // IllegalStateException (a RuntimeException): the partition stops
        send(topic, 1, "m2");
        ListenerContainer<String, String> c = started(container(keeper, group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .on(RuntimeException.class, ErrorAction.stopPartition())
                        .on(IllegalArgumentException.class, ErrorAction.skip())
                        .otherwise(ErrorAction.deadLetter())
                        .build())
                .createDeadLetterTopics(true)
                .recordHandler(r -> {
                    if (r.value().equals("not-a-number")) {
                        Integer.parseInt(r.value());
                    }
                    if (r.value().equals("broken") && !fixed.get()) {
                        throw new IllegalStateException("downstream refuses " + r.value());
                    }
                    seen.records.add(r);
                })
                .build());

        TopicPartition p1 = new TopicPartition(topic, 1);
        awaitStored(group, topic, 0, 3);
        await().atMost(WAIT).until(() -> c.stoppedPartitions().containsKey(p1));
        assertThat(c.stoppedPartitions().get(p1).offset()).isEqualTo(1);
        assertThat(c.stoppedPartitions().get(p1).reason()).contains("downstream refuses broken");
        await().atMost(WAIT).until(() -> c.pausedPartitions().contains(p1));
        awaitStored(group, topic, 1, 1); // committed up to the stopped record, not past it
        assertThat(c.workers().get(0).owned()).contains(p1); // still owned
        send(topic, 0, "n3"); // the other partition keeps flowing
        awaitStored(group, topic, 0, 4);
        assertThat(seen.values()).containsExactlyInAnyOrder("n1", "n2", "m1", "n3");

        fixed.set(true);
        assertThat(c.resume(p1)).isTrue();
        awaitStored(group, topic, 1, 3);
        assertThat(seen.values()).hasSize(6).endsWith("broken", "m2");
        assertThat(c.stoppedPartitions()).isEmpty();
        assertThat(c.pausedPartitions()).isEmpty();
    }

    @Test
    void aMissingDeadLetterTopicFailsStartNamingIt() {
        String topic = newTopic(1);
        GroupKeeper keeper = newKeeper();
        ListenerContainer<String, String> c = container(keeper, newName("g"), topic)
                .createDeadLetterTopics(false)
                .recordHandler(r -> {})
                .build();
        toClose.add(c);
        assertThatThrownBy(c::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dead-letter topic(s) [" + topic + "-dlt] do not exist")
                .hasMessageContaining("createDeadLetterTopics");
        assertThat(c.state()).isEqualTo(io.groupkeeper.kafka.container.ContainerState.FAILED);
    }

    /**
     * {@code checkDeadLetterTopics(false)}: the start does not look at the dead-letter topics, so a missing one fails
     * only its first send — the partition stops at the record, and {@code resume} dead-letters it once the topic exists.
     */
    @Test
    void aMissingDeadLetterTopicNotCheckedAtStartFailsOnlyItsSend() throws Exception {
        String topic = newTopic(1);
        String dlt = topic + "-dlt";
        String group = newName("g");
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .createDeadLetterTopics(false)
                .checkDeadLetterTopics(false)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.deadLetter())
                        .build())
                .deadLetterTimeout(Duration.ofSeconds(2))
                .recordHandler(r -> {
                    if (r.value().startsWith("poison")) {
                        throw new IllegalStateException("cannot bill " + r.value());
                    }
                    seen.records.add(r);
                })
                .build());
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(admin.listTopics().names().get()).doesNotContain(dlt);
        send(topic, 0, "x1", "poison", "x2");
        TopicPartition p0 = new TopicPartition(topic, 0);
        await().atMost(WAIT).until(() -> c.stoppedPartitions().containsKey(p0));
        assertThat(c.stoppedPartitions().get(p0).offset()).isEqualTo(1);
        assertThat(c.stoppedPartitions().get(p0).reason()).contains("dead-letter send to " + dlt);
        assertThat(seen.values()).containsExactly("x1");

        servers.kafka().createTopic(dlt, 1);
        awaitWritable(dlt, 1);
        assertThat(c.resume(p0)).isTrue();
        awaitStored(group, topic, 0, 3);
        assertThat(seen.values()).containsExactly("x1", "x2");
        assertThat(readAll(dlt, 1).get(0).value()).isEqualTo("poison");
    }

    @Test
    void aBatchHandlerNamingTheFailedRecordGetsTheOthersOnceAndTheFailedOneIsDeadLettered() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        for (String v : List.of("r0", "r1", "bad", "r3", "r4")) {
            send(topic, 0, v);
        }
        started(container(keeper, group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(2, Backoff.none()).then(Recovery.DEAD_LETTER))
                        .build())
                .createDeadLetterTopics(true)
                .batchHandler(batch -> {
                    for (int i = 0; i < batch.size(); i++) {
                        if (batch.get(i).value().equals("bad")) {
                            throw new BatchFailedException(i, new IllegalArgumentException("bad amount"));
                        }
                        handled.add(batch.get(i).value());
                    }
                })
                .build());

        awaitStored(group, topic, 0, 5);
        // r0 and r1 are handled in the first call, then "bad" fails twice at the head of its batch; r3, r4 come after.
        assertThat(handled).containsExactly("r0", "r1", "r3", "r4");
        ConsumerRecord<String, String> dead = readAll(topic + "-dlt", 1).get(0);
        assertThat(dead.value()).isEqualTo("bad");
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_CLASS)).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("2");
    }

    @Test
    void inBatchModeARecordThatDoesNotDeserializeIsDeadLetteredWithoutRetriesAndTheRestOfTheBatchIsDeliveredOnce()
            throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        send(topic, 0, "{0}", "{1}", "garbage", "{3}", "{4}");
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .deserializers(new StringDeserializer(), jsonOnly())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(100)))
                                .thenDeadLetter())
                        .build())
                .sleeper(waits::add)
                .batchHandler(batch ->
                        batches.add(batch.stream().map(ConsumerRecord::value).toList()))
                .build());

        awaitStored(group, topic, 0, 5);
        assertThat(batches.stream().flatMap(List::stream)).containsExactly("{0}", "{1}", "{3}", "{4}");
        assertThat(waits).isEmpty(); // no retry, no backoff
        ConsumerRecord<String, String> dead = readAll(topic + "-dlt", 1).get(0);
        assertThat(dead.value()).isEqualTo("garbage");
        assertThat(header(dead, DeadLetterHeaders.EXCEPTION_CLASS)).isEqualTo(SerializationException.class.getName());
        assertThat(header(dead, DeadLetterHeaders.ATTEMPTS)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("2");
        assertThat(c.stoppedPartitions()).isEmpty();
    }

    @Test
    void aDeadLetterSendThatFailsStopsThePartitionAtTheRecordWithinTheTimeoutWhileTheOtherPartitionFlows()
            throws Exception {
        String topic = newTopic(2);
        String dlt = topic + "-dlt";
        String group = newName("g");
        Seen seen = new Seen();
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic) // creates the DLT
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.deadLetter())
                        .build())
                .deadLetterTimeout(Duration.ofSeconds(2))
                .recordHandler(r -> {
                    if (r.value().startsWith("poison")) {
                        throw new IllegalStateException("cannot bill " + r.value());
                    }
                    seen.records.add(r);
                })
                .build());
        await().atMost(WAIT).until(() -> c.workers().get(0).owned().size() == 2);
        // The dead-letter topic goes away after the start check (the broker does not auto-create topics).
        admin.deleteTopics(List.of(dlt)).all().get();
        await().atMost(WAIT).until(() -> !admin.listTopics().names().get().contains(dlt));

        send(topic, 0, "x1", "poison", "x2");
        TopicPartition p0 = new TopicPartition(topic, 0);
        // Within a few dead-letter timeouts, not the producer's 60 s max.block.ms (twice).
        await().atMost(Duration.ofSeconds(12)).until(() -> c.stoppedPartitions().containsKey(p0));
        assertThat(c.stoppedPartitions().get(p0).offset()).isEqualTo(1);
        assertThat(c.stoppedPartitions().get(p0).reason())
                .contains("dead-letter send to " + dlt)
                .contains("cannot bill poison");
        awaitStored(group, topic, 0, 1); // committed up to the record, not past it
        send(topic, 1, "y1", "y2");
        awaitStored(group, topic, 1, 2); // the other partition flows
        assertThat(storedOffset(group, topic, 0)).isEqualTo(OptionalLong.of(1));
        assertThat(seen.values()).containsExactly("x1", "y1", "y2");
        assertThat(c.state()).isEqualTo(ContainerState.RUNNING);

        servers.kafka().createTopic(dlt, 2); // the topic is back: resume retries the record
        awaitWritable(dlt, 2);
        assertThat(c.resume(p0)).isTrue();
        awaitStored(group, topic, 0, 3);
        assertThat(seen.values()).containsExactly("x1", "y1", "y2", "x2");
        ConsumerRecord<String, String> dead = readAll(dlt, 1).get(0);
        assertThat(dead.value()).isEqualTo("poison");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("1");
    }
}
